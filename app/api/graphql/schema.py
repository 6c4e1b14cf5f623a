"""The schema: every domain's queries and mutations, with the guards from settings."""

from __future__ import annotations

from typing import Any

import strawberry
from graphql.error import GraphQLError
from strawberry.extensions import MaxTokensLimiter, ValidationCache
from strawberry.types import ExecutionContext

from thoughtgraph.api.access import AccessPolicy
from thoughtgraph.api.graphql.auth import IntrospectionSwitch
from thoughtgraph.api.graphql.changes.queries import ChangeQuery
from thoughtgraph.api.graphql.checkpoints.mutations import CheckpointMutation
from thoughtgraph.api.graphql.checkpoints.queries import CheckpointQuery
from thoughtgraph.api.graphql.consent.mutations import ConsentMutation
from thoughtgraph.api.graphql.consent.queries import ConsentQuery
from thoughtgraph.api.graphql.consolidation.mutations import ConsolidationMutation
from thoughtgraph.api.graphql.consolidation.proposals import ProposalMutation, ProposalQuery
from thoughtgraph.api.graphql.consolidation.queries import ConsolidationQuery
from thoughtgraph.api.graphql.context.queries import ContextQuery
from thoughtgraph.api.graphql.contradictions.mutations import ContradictionMutation
from thoughtgraph.api.graphql.contradictions.queries import ContradictionQuery
from thoughtgraph.api.graphql.episodes.mutations import EpisodeMutation
from thoughtgraph.api.graphql.episodes.queries import EpisodeQuery
from thoughtgraph.api.graphql.errors import MaskUnexpectedErrors, RequestErrorCodes, log_errors
from thoughtgraph.api.graphql.guards import HeavyOperationGate, QueryGuard
from thoughtgraph.api.graphql.insights.mutations import InsightMutation
from thoughtgraph.api.graphql.lineage.queries import LineageQuery
from thoughtgraph.api.graphql.ops.queries import OpsQuery
from thoughtgraph.api.graphql.parsing import CachedParser
from thoughtgraph.api.graphql.procedures.mutations import ProcedureMutation
from thoughtgraph.api.graphql.procedures.queries import ProcedureQuery
from thoughtgraph.api.graphql.reembedding.mutations import ReembeddingMutation
from thoughtgraph.api.graphql.reembedding.queries import ReembeddingQuery
from thoughtgraph.api.graphql.retention.mutations import ThoughtLifecycleMutation
from thoughtgraph.api.graphql.search.queries import SearchQuery
from thoughtgraph.api.graphql.search.recall_queries import RecallQuery
from thoughtgraph.api.graphql.search.usage_mutations import UsageMutation
from thoughtgraph.api.graphql.telemetry import OperationTelemetry
from thoughtgraph.api.graphql.thoughts.mutations import ThoughtMutation
from thoughtgraph.api.graphql.thoughts.queries import ThoughtQuery
from thoughtgraph.api.graphql.topics.queries import TopicQuery
from thoughtgraph.settings import Settings


@strawberry.type
class Query(
    ThoughtQuery,
    LineageQuery,
    ChangeQuery,
    TopicQuery,
    ContradictionQuery,
    EpisodeQuery,
    ConsolidationQuery,
    ProposalQuery,
    ConsentQuery,
    CheckpointQuery,
    ProcedureQuery,
    RecallQuery,
    ContextQuery,
    SearchQuery,
    OpsQuery,
    ReembeddingQuery,
):
    pass


@strawberry.type
class Mutation(
    ThoughtMutation,
    ThoughtLifecycleMutation,
    ContradictionMutation,
    ConsolidationMutation,
    ProposalMutation,
    ConsentMutation,
    CheckpointMutation,
    ProcedureMutation,
    EpisodeMutation,
    InsightMutation,
    UsageMutation,
    ReembeddingMutation,
):
    pass


class ThoughtgraphSchema(strawberry.Schema):
    """Logs errors through structlog instead of strawberry's stdlib logger."""

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        log_errors(errors, execution_context)


def build_schema(settings: Settings, access: AccessPolicy | None = None) -> strawberry.Schema:
    extensions: list[Any] = [
        # Metrics and traces of every operation, refused ones included (app/observability).
        OperationTelemetry,
        # Agents send the same few documents over and over: parse and validate each once.
        # Results are cached per document text, rejections included, so limits still hold.
        CachedParser(maxsize=256),
        ValidationCache(maxsize=256),
        # Depth, aliases and cost in one pass that measures each fragment once; strawberry's
        # own depth and alias limiters walk every fragment expansion (exponential).
        QueryGuard(
            max_depth=settings.max_query_depth,
            max_aliases=settings.max_aliases,
            max_cost=settings.max_query_cost,
        ),
        HeavyOperationGate(
            heavy_cost=settings.heavy_query_cost,
            max_heavy=settings.max_concurrent_heavy_queries,
            max_waiting=settings.max_waiting_heavy_queries,
        ),
        MaxTokensLimiter(max_token_count=settings.max_tokens),
        IntrospectionSwitch(
            enabled=settings.introspection
            if settings.introspection is not None
            else settings.graphiql,
            access=access or AccessPolicy.from_settings(settings),
        ),
        RequestErrorCodes(),
        MaskUnexpectedErrors(),
    ]
    return ThoughtgraphSchema(query=Query, mutation=Mutation, extensions=extensions)
