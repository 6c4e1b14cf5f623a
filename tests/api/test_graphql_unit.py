"""The GraphQL schema on its own: SDL, query guards, error codes and masking.

No engine and no embedder: operations run through ``schema.execute`` with a tiny stand-in
context. The guards reject documents before any resolver runs, so the stand-in for those
tests fails loudly if anything touches it. End-to-end behaviour over HTTP against the
real engine is covered by the ``test_api_*`` modules.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
import strawberry
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from structlog.testing import capture_logs

from thoughtgraph.api.access import AccessPolicy
from thoughtgraph.api.graphql.app import ThoughtgraphGraphQL, create_graphql_app
from thoughtgraph.api.graphql.request_context import GraphQLContext
from thoughtgraph.api.graphql.schema import build_schema
from thoughtgraph.domain.access import Principal
from thoughtgraph.domain.errors import (
    ConsentRequiredError,
    EmbeddingError,
    ForbiddenError,
    InvalidInputError,
    InvalidStateError,
    NotFoundError,
    StoreError,
    ThoughtgraphError,
    ThoughtNotFoundError,
)
from thoughtgraph.settings import Settings

UNKNOWN_ID = "00000000-0000-4000-8000-000000000000"


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return Settings(data_dir=tmp_path_factory.mktemp("graphql-unit"))


@pytest.fixture(scope="module")
def schema(settings: Settings) -> strawberry.Schema:
    return build_schema(settings)


class Untouchable:
    """A context for documents that must be refused before any resolver runs."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the context was touched: .{name}")


class RaisingSearch:
    """``services.search`` whose every search raises the given exception."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    async def search_for(self, caller: Any, namespace: str, query: str, **options: Any) -> Any:
        raise self.error


def raising_context(error: Exception) -> Any:
    return SimpleNamespace(
        services=SimpleNamespace(search=RaisingSearch(error)),
        principal=Principal.anyone(),
    )


def run(
    schema: strawberry.Schema,
    document: str,
    context: Any = None,
    variables: dict[str, Any] | None = None,
) -> dict[str, Any]:
    result = asyncio.run(
        schema.execute(document, variable_values=variables, context_value=context or Untouchable())
    )
    errors = [error.formatted for error in result.errors or ()]
    return {"data": result.data, "errors": errors}


def codes(body: dict[str, Any]) -> list[Any]:
    return [(error.get("extensions") or {}).get("code") for error in body["errors"]]


# --- the SDL ------------------------------------------------------------------------------


def test_sdl_has_the_types_queries_and_mutations(schema: strawberry.Schema) -> None:
    sdl = str(schema)
    for expected in [
        "enum ThoughtType {\n  ORIGINAL\n  REFINEMENT\n  CONSOLIDATION\n}",
        "enum LineageRelation {\n  REFINES\n  CONSOLIDATES\n  SUPERSEDES\n}",
        "enum ChangeKind {\n  CREATED\n  REFINED\n  CONSOLIDATED\n  SUPERSEDED\n",
        'thought(id: ID!, namespace: String! = "default"): Thought\n',
        'thoughts(namespace: String! = "default", filter: ThoughtFilterInput = null,'
        " first: Int = 20, after: String = null, currentOnly: Boolean = false,"
        " validAt: DateTime = null, knownAt: DateTime = null): ThoughtConnection!",
        "search(query: String!, k: Int = 10, threshold: Float = 0,"
        ' namespace: String! = "default", currentOnly: Boolean = false,'
        " validAt: DateTime = null, knownAt: DateTime = null, filter: SearchFilterInput = null,"
        " mode: RetrievalMode = STANDARD, hybrid: Boolean = true,"
        " agent: String = null, expand: Boolean = null): [SearchHit!]!",
        'searchTiered(query: String!, namespace: String! = "default", limit: Int = 7,'
        " topicLimit: Int = 3, detailLevel: DetailLevel = FULL, threshold: Float = 0,"
        " currentOnly: Boolean = false, validAt: DateTime = null, knownAt: DateTime = null,"
        " filter: SearchFilterInput = null, mode: RetrievalMode = STANDARD,"
        " agent: String = null): TieredSearch!",
        'cite(thoughtId: ID!, action: String!, namespace: String! = "default"): Thought!',
        'ignore(thoughtId: ID!, namespace: String! = "default"): Thought!',
        "enum RetrievalMode {\n  REFLEXIVE\n  STANDARD\n  DEEP\n  EXHAUSTIVE\n}",
        'related(id: ID!, namespace: String! = "default", first: Int = 10): [RelatedThought!]!',
        'topics(namespace: String! = "default", first: Int = 20): [Topic!]!',
        'topic(id: ID!, namespace: String! = "default"): Topic\n',
        'contradictions(namespace: String! = "default", status: ContradictionStatus = null,'
        " first: Int = 20): [Contradiction!]!",
        'contradiction(id: ID!, namespace: String! = "default"): Contradiction\n',
        'episodes(namespace: String! = "default", first: Int = 20): [Episode!]!',
        'episode(id: ID!, namespace: String! = "default"): Episode\n',
        'consolidationRuns(namespace: String! = "default", first: Int = 20): [ConsolidationRun!]!',
        'consolidationRun(id: ID!, namespace: String! = "default"): ConsolidationRun\n',
        'supersede(newerId: ID!, olderId: ID!, reason: String!, namespace: String! = "default"):'
        " Thought!",
        'forget(id: ID!, namespace: String! = "default"): Thought!',
        'restore(id: ID!, namespace: String! = "default"): Thought!',
        'pin(id: ID!, namespace: String! = "default", pinned: Boolean = true): Thought!',
        "resolveContradiction(id: ID!, resolution: Resolution!,"
        ' namespace: String! = "default", note: String = null, mergedContent: String = null):'
        " Contradiction!",
        'runConsolidation(namespace: String! = "default", dryRun: Boolean = false):'
        " ConsolidationRun!",
        'scanContradictions(namespace: String! = "default"): Boolean!',
        'requestInsights(namespace: String! = "default"): Boolean!',
        'undoConsolidation(thoughtId: ID!, namespace: String! = "default"): [Thought!]!',
        'ingestEpisode(transcript: String = null, namespace: String! = "default",'
        " title: String = null, artifacts: [ArtifactInput!] = null,"
        " turns: [TurnInput!] = null, sessionId: String = null, scope: Scope = null,"
        " userId: String = null): Episode!",
        'proposeMerge(userIds: [String!]!, namespace: String! = "default"): [MergeProposal!]!',
        'decideMerge(id: ID!, accept: Boolean!, namespace: String! = "default",'
        " userId: String = null): MergeProposal!",
        'mergeProposals(namespace: String! = "default", status: ProposalStatus = null,'
        " first: Int = 20): [MergeProposal!]!",
        'consentRequests(namespace: String! = "default", status: ConsentStatus = null,'
        " first: Int = 20): [ConsentRequest!]!",
        'approveConsent(id: ID!, namespace: String! = "default", note: String = null):'
        " ConsentRequest!",
        'rejectConsent(id: ID!, namespace: String! = "default", note: String = null):'
        " ConsentRequest!",
        'saveCheckpoint(threadId: String!, data: String!, namespace: String! = "default",'
        " id: ID = null, parentId: ID = null, metadata: String = null): Checkpoint!",
        'checkpoint(threadId: String!, namespace: String! = "default", id: ID = null):'
        " Checkpoint\n",
        'checkpoints(threadId: String!, namespace: String! = "default", first: Int = 20,'
        " before: ID = null): [Checkpoint!]!",
        "enum ConsentStatus {\n  PENDING\n  APPROVED\n  APPLIED\n  REJECTED\n  EXPIRED\n}",
        "enum Sensitivity {\n  SENSITIVE\n  BENIGN\n}",
        "enum Scope {\n  PRIVATE\n  SHARED\n  SYSTEM\n}",
        'lineage(id: ID!, maxDepth: Int = 10, namespace: String! = "default"): LineageResult!',
        'searchChanges(query: String!, k: Int = 10, namespace: String! = "default"): [ChangeHit!]!',
        'history(thoughtId: ID!, namespace: String! = "default"): [ChangeEvent!]!',
        'changes(namespace: String! = "default", afterRevision: Int = 0, limit: Int = 100):'
        " ChangesPage!",
        "contribute(input: ContributeInput!): ContributionPayload!",
        "refine(input: RefineInput!): ContributionPayload!",
        "consolidate(input: ConsolidateInput!): ContributionPayload!",
        "scalar DateTime",
    ]:
        assert expected in sdl, expected


def _block(sdl: str, header: str) -> str:
    start = sdl.index(header + " {")
    return sdl[start : sdl.index("\n}", start)]


# Each type's fields, one per line as the SDL prints them (descriptions aside).
EXPECTED_FIELDS = {
    "type Checkpoint": """
        id: ID!
        threadId: String!
        parentId: ID
        data: String!
        metadata: String
        sizeBytes: Int!
        createdAt: DateTime!""",
    "type Thought": """
        id: ID!
        namespace: String!
        type: ThoughtType!
        content: String!
        agentId: String!
        agentName: String!
        context: String
        sessionId: String
        tags: [String!]!
        pheromoneWeight: Float!
        createdAt: DateTime!
        revision: Int!
        sourceIds: [ID!]!
        sources: [Thought!]!
        refinements: [Thought!]!
        refinedBy: Thought
        superseded: Boolean!
        kind: ThoughtKind!
        salience: Float!
        importance: Int!
        pinned: Boolean!
        category: String
        lastAccessedAt: DateTime
        accessCount: Int!
        state: ThoughtState!
        purgeAt: DateTime
        validFrom: DateTime!
        validTo: DateTime
        supersededAt: DateTime
        supersededBy: Thought
        topicId: ID
        topic: Topic
        episodeId: ID
        about: String""",
    "type SearchHit": """
        thought: Thought!
        id: ID!
        score: Float!
        similarity: Float!
        pheromoneWeight: Float!
        tags: [String!]!
        refinedBy: ID
        superseded: Boolean!
        supersededBy: ID""",
    "type Guidance": """
        similarThoughtId: ID!
        similarity: Float!
        message: String!
        similarThought: Thought""",
    "type ContributionPayload": """
        thought: Thought!
        revision: Int!
        guidance: Guidance
        consentRequest: ConsentRequest""",
    "type ConsentRequest": """
        id: ID!
        namespace: String!
        person: String!
        field: String!
        sensitivity: Sensitivity!
        status: ConsentStatus!
        value: String!
        thoughtId: ID!
        replacesIds: [ID!]!
        evidence: String
        proposedById: String!
        proposedByName: String!
        signals: Int!
        createdAt: DateTime!
        expiresAt: DateTime!
        decidedAt: DateTime
        decidedBy: String
        note: String""",
    "type LineageNode": """
        thoughtId: ID!
        type: ThoughtType!
        contentPreview: String!
        contributor: String!
        agentId: String!
        createdAt: DateTime!
        sourceIds: [ID!]!
        depth: Int!""",
    "type LineageResult": """
        thoughtId: ID!
        chain: [LineageNode!]!
        truncated: Boolean!""",
    "type ChangeHit": """
        fromId: ID!
        toId: ID!
        relation: LineageRelation!
        reason: String!
        createdAt: DateTime!
        score: Float!
        from: Thought
        to: Thought""",
    "type ChangeEvent": """
        id: ID!
        revision: Int!
        kind: ChangeKind!
        subjectKind: SubjectKind!
        subjectId: ID!
        thoughtId: ID
        sourceIds: [ID!]!
        actorId: String!
        actorName: String!
        at: DateTime!""",
    "type ChangesPage": """
        revision: Int!
        events: [ChangeEvent!]!""",
    "type ThoughtConnection": """
        edges: [ThoughtEdge!]!
        nodes: [Thought!]!
        pageInfo: PageInfo!""",
    "type ThoughtEdge": """
        cursor: String!
        node: Thought!""",
    "type PageInfo": """
        hasNextPage: Boolean!
        endCursor: String""",
    "input ThoughtFilterInput": """
        type: ThoughtType = null
        tag: String = null
        agentId: String = null
        kind: ThoughtKind = null
        topicId: ID = null""",
    "input ContributeInput": """
        content: String!
        agentId: String!
        agentName: String!
        context: String = null
        sessionId: String = null
        tags: [String!] = []
        namespace: String! = "default"
        reason: String = null
        kind: ThoughtKind = null
        salience: Float = null
        importance: Int = null
        pinned: Boolean = null
        category: String = null
        validFrom: DateTime = null
        validTo: DateTime = null
        about: String = null
        refines: ID = null
        consolidates: [ID!] = null""",
    "input RefineInput": """
        content: String!
        sourceId: ID!
        reason: String = null""",
    "input ConsolidateInput": """
        content: String!
        sourceIds: [ID!]!
        reason: String = null""",
    "type RelatedThought": """
        thought: Thought!
        strength: Float!""",
    "type Topic": """
        id: ID!
        namespace: String!
        name: String!
        summary: String
        thoughtCount: Int!
        unsummarisedCount: Int!
        createdAt: DateTime!
        updatedAt: DateTime!
        summarisedAt: DateTime
        thoughts(first: Int = 20): [Thought!]!""",
    "type Contradiction": """
        id: ID!
        status: ContradictionStatus!
        relation: String!
        detectedAt: DateTime!
        detector: String!
        confidence: Float!
        explanation: String!
        thoughtAId: ID!
        thoughtBId: ID!
        thoughtA: Thought
        thoughtB: Thought
        resolution: Resolution
        note: String
        resolvedBy: String
        resolvedAt: DateTime
        mergedThoughtId: ID
        mergedThought: Thought""",
    "type Episode": """
        id: ID!
        title: String!
        narrative: String!
        summary: String!
        compressed: String!
        indexLabel: String!
        artifacts: [Artifact!]!
        thoughtIds: [ID!]!
        createdAt: DateTime!
        extractor: String!
        thoughts(first: Int = 20): [Thought!]!""",
    "input ArtifactInput": """
        kind: String!
        ref: String!""",
    "input TurnInput": """
        speaker: String!
        text: String!
        at: DateTime = null""",
    "type ConsolidationRun": """
        id: ID!
        status: RunStatus!
        dryRun: Boolean!
        trigger: String!
        requestedAt: DateTime!
        startedAt: DateTime
        finishedAt: DateTime
        durationMs: Int
        attempts: Int!
        counts: RunCounts!
        usage: RunUsage!
        error: String""",
    "type RunCounts": """
        candidates: Int!
        deduped: Int!
        assigned: Int!
        summarised: Int!
        superseded: Int!
        forgotten: Int!
        purged: Int!
        contradictionsFound: Int!
        links: Int!
        pairsJudged: Int!""",
    "type RunUsage": """
        llmCalls: Int!
        promptTokens: Int!
        completionTokens: Int!
        costUsd: Float!""",
}


@pytest.mark.parametrize("header", sorted(EXPECTED_FIELDS))
def test_sdl_fields(schema: strawberry.Schema, header: str) -> None:
    printed = {line.strip() for line in _block(str(schema), header).splitlines()}
    for field in EXPECTED_FIELDS[header].split("\n"):
        if field.strip():
            assert field.strip() in printed, (header, field.strip())


# --- guards and request-level errors --------------------------------------------------------


def test_depth_limit_refuses_deep_documents(schema: strawberry.Schema, settings: Settings) -> None:
    levels = settings.max_query_depth
    deep = "{ thoughts { nodes { " + "sources { " * levels + "id" + " }" * levels + " } } }"
    body = run(schema, deep)
    assert body["data"] is None
    assert codes(body) == ["GRAPHQL_VALIDATION_FAILED"]
    assert "depth" in body["errors"][0]["message"]


def test_depth_within_the_limit_passes_validation(schema: strawberry.Schema) -> None:
    # Validation passes; the first resolver then touches the (untouchable) context.
    body = run(schema, "{ thoughts { nodes { sources { id } } } }")
    assert codes(body) == ["INTERNAL_ERROR"]


def test_alias_limit_refuses_too_many_aliases(
    schema: strawberry.Schema, settings: Settings
) -> None:
    aliases = " ".join(f"a{i}: __typename" for i in range(settings.max_aliases + 1))
    body = run(schema, "{ " + aliases + " }")
    assert codes(body) == ["GRAPHQL_VALIDATION_FAILED"]
    assert "aliases" in body["errors"][0]["message"]
    allowed = " ".join(f"a{i}: __typename" for i in range(settings.max_aliases))
    assert run(schema, "{ " + allowed + " }")["errors"] == []


def test_token_limit_refuses_huge_documents(schema: strawberry.Schema, settings: Settings) -> None:
    body = run(schema, "{ " + " ".join(["__typename"] * settings.max_tokens) + " }")
    assert codes(body) == ["GRAPHQL_PARSE_FAILED"]
    assert "tokens" in body["errors"][0]["message"]


@pytest.mark.parametrize(
    ("document", "variables", "code"),
    [
        ("{ nope }", None, "GRAPHQL_VALIDATION_FAILED"),
        ('{ search(query: "x", k: "ten") { id } }', None, "GRAPHQL_VALIDATION_FAILED"),
        ("{ search { id } }", None, "GRAPHQL_VALIDATION_FAILED"),
        (
            "{ thoughts(filter: {type: NEWEST}) { nodes { id } } }",
            None,
            "GRAPHQL_VALIDATION_FAILED",
        ),
        (
            'query($k: Int) { search(query: "x", k: $k) { id } }',
            {"k": "ten"},
            "GRAPHQL_VALIDATION_FAILED",
        ),
        (
            "mutation($i: RefineInput!) { refine(input: $i) { revision } }",
            {"i": {"content": "x", "agentId": "a", "agentName": "A"}},
            "GRAPHQL_VALIDATION_FAILED",
        ),
        ("{ search(query: ", None, "GRAPHQL_PARSE_FAILED"),
    ],
)
def test_request_errors_carry_a_code(
    schema: strawberry.Schema, document: str, variables: dict[str, Any] | None, code: str
) -> None:
    body = run(schema, document, variables=variables)
    assert body["data"] is None
    assert codes(body) == [code]


# --- errors from resolvers ------------------------------------------------------------------


SEARCH = '{ search(query: "anything") { id } }'


@pytest.mark.parametrize(
    ("error", "extensions"),
    [
        (
            InvalidInputError("k must be between 1 and 100", field="k"),
            {"code": "VALIDATION_ERROR", "field": "k"},
        ),
        (ThoughtNotFoundError([UNKNOWN_ID]), {"code": "THOUGHT_NOT_FOUND", "ids": [UNKNOWN_ID]}),
    ],
)
def test_service_errors_keep_message_and_code(
    schema: strawberry.Schema, error: Exception, extensions: dict[str, Any]
) -> None:
    body = run(schema, SEARCH, raising_context(error))
    assert body["data"] is None
    [formatted] = body["errors"]
    assert formatted["message"] == str(error)
    assert formatted["extensions"] == extensions
    assert formatted["path"] == ["search"]


@pytest.mark.parametrize(
    "error",
    [
        StoreError("FalkorDB rejected a statement: errMsg: Invalid input at 12", statement="x"),
        EmbeddingError("litellm: 401 from https://api.example.com key sk-123", model="m"),
    ],
)
def test_engine_and_model_words_never_reach_the_client(
    schema: strawberry.Schema, error: ThoughtgraphError
) -> None:
    with capture_logs() as logs:
        body = run(schema, SEARCH, raising_context(error))
    [formatted] = body["errors"]
    assert formatted["message"] == error.public_message
    assert formatted["extensions"] == {"code": error.code}
    assert error.message not in repr(body)
    [entry] = [log for log in logs if log["event"] == "graphql.infrastructure_error"]
    assert entry["error"] == error.message  # the operator sees what the client does not
    assert entry["log_level"] == "warning"


def test_unexpected_errors_are_masked_and_logged(schema: strawberry.Schema) -> None:
    secret = "password=hunter2 at /srv/secret.db"
    with capture_logs() as logs:
        body = run(schema, SEARCH, raising_context(RuntimeError(secret)))
    [formatted] = body["errors"]
    assert formatted["message"] == "Unexpected error."
    assert formatted["extensions"] == {"code": "INTERNAL_ERROR"}
    assert secret not in repr(body)
    [entry] = [log for log in logs if log["event"] == "graphql.unexpected_error"]
    assert entry["log_level"] == "error"
    assert entry["path"] == "search"
    assert isinstance(entry["exc_info"], RuntimeError)


def test_expected_errors_are_logged_without_traceback(schema: strawberry.Schema) -> None:
    with capture_logs() as logs:
        run(schema, SEARCH, raising_context(InvalidInputError("bad", field="query")))
    [entry] = [log for log in logs if log["event"].startswith("graphql.")]
    assert entry["event"] == "graphql.error"
    assert entry["code"] == "VALIDATION_ERROR"
    assert "exc_info" not in entry


# --- the ASGI app -------------------------------------------------------------------------------


def _request(services: Any) -> Request:
    app = Starlette()
    app.state.services = services
    return Request(
        {"type": "http", "method": "POST", "path": "/graphql", "headers": [], "app": app}
    )


@pytest.fixture
def graphql_app(settings: Settings) -> ThoughtgraphGraphQL:
    app = create_graphql_app(settings, AccessPolicy.from_settings(settings))
    assert isinstance(app, ThoughtgraphGraphQL)
    return app


def test_graphiql_is_enabled(graphql_app: ThoughtgraphGraphQL) -> None:
    assert graphql_app.graphql_ide == "graphiql"


def test_every_request_gets_a_new_context_and_new_loaders(
    graphql_app: ThoughtgraphGraphQL,
) -> None:
    services: Any = SimpleNamespace(
        browse=Untouchable(), topics=Untouchable(), consolidation=Untouchable()
    )
    request = _request(services)
    first = asyncio.run(graphql_app.get_context(request, Response()))
    second = asyncio.run(graphql_app.get_context(request, Response()))
    assert isinstance(first, GraphQLContext)
    assert first.services is services and second.services is services
    assert first.loaders is not second.loaders
    assert first.loaders.thoughts is not second.loaders.thoughts
    assert first.loaders.refiners is not second.loaders.refiners


def test_no_context_outside_the_lifespan(graphql_app: ThoughtgraphGraphQL) -> None:
    from cross_web import HTTPException

    with pytest.raises(HTTPException) as raised:
        asyncio.run(graphql_app.get_context(_request(None), Response()))
    assert raised.value.status_code == 503


# --- knowledge fields: errors, weights, actors ------------------------------------------------


class RaisingServices:
    """Every service method the knowledge mutations call raises the given error."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def __getattr__(self, name: str) -> Any:
        return self

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise self.error


@pytest.mark.parametrize(
    ("document", "error", "extensions"),
    [
        (
            'mutation { resolveContradiction(id: "c-1", resolution: A_WINS) { id } }',
            NotFoundError("contradiction", "c-1"),
            {"code": "NOT_FOUND", "kind": "contradiction", "id": "c-1"},
        ),
        (
            f'mutation {{ undoConsolidation(thoughtId: "{UNKNOWN_ID}") {{ id }} }}',
            InvalidStateError("not an active merge", field="thoughtId"),
            {"code": "INVALID_STATE", "field": "thoughtId"},
        ),
        (
            f'mutation {{ forget(id: "{UNKNOWN_ID}") {{ id }} }}',
            ThoughtNotFoundError([UNKNOWN_ID]),
            {"code": "THOUGHT_NOT_FOUND", "ids": [UNKNOWN_ID]},
        ),
        (
            'mutation { approveConsent(id: "c-1") { id status } }',
            ForbiddenError("only ana's key decides a change to their city"),
            {"code": "FORBIDDEN"},
        ),
        (
            'mutation { rejectConsent(id: "c-1") { id } }',
            InvalidStateError("consent request c-1 is approved already", field="id"),
            {"code": "INVALID_STATE", "field": "id"},
        ),
        (
            'mutation { supersede(newerId: "a", olderId: "b", reason: "moved") { id } }',
            ConsentRequiredError("would change a field about a person", ids=["b"]),
            {"code": "CONSENT_REQUIRED", "ids": ["b"]},
        ),
    ],
)
def test_knowledge_errors_keep_their_codes(
    schema: strawberry.Schema, document: str, error: Exception, extensions: dict[str, Any]
) -> None:
    services = RaisingServices(error)
    context = SimpleNamespace(
        services=SimpleNamespace(
            contradictions=services,
            merging=services,
            retention=services,
            consent=services,
            supersession=services,
        ),
        principal=Principal.anyone(),
    )
    body = run(schema, document, context)
    [formatted] = body["errors"]
    assert formatted["message"] == str(error)
    assert formatted["extensions"] == extensions


def test_every_root_field_has_a_weight(schema: strawberry.Schema) -> None:
    """A root field without a weight would cost 1 whatever it does: refuse that."""
    from thoughtgraph.api.graphql.cost import ROOT_WEIGHTS

    for root in (schema._schema.query_type, schema._schema.mutation_type):
        assert root is not None
        assert sorted(set(root.fields) - set(ROOT_WEIGHTS)) == [], root.name


def test_nested_knowledge_lists_are_sized_by_their_arguments(schema: strawberry.Schema) -> None:
    from graphql import parse

    from thoughtgraph.api.graphql.cost import measure_operation

    def cost(document: str) -> int:
        measured = measure_operation(schema._schema, parse(document), None, {})
        assert measured is not None
        return measured.cost

    # topics 5; per topic its thoughts list 1 and, per thought, its topic (a loader) 1.
    assert cost("{ topics(first: 3) { thoughts(first: 4) { topic { id } } } }") == 5 + 3 * (
        1 + 4 * 1
    )
    assert cost('{ related(id: "x") { strength thought { supersededBy { id } } } }') == 3 + 10 * (
        1 + 1
    )
    assert cost("{ contradictions { thoughtA { id } thoughtB { id } } }") == 5 + 20 * 2
    assert cost("mutation { runConsolidation { id counts { links } } }") == 20 + 1


def test_checkpoint_data_and_merge_users_are_weighed(schema: strawberry.Schema) -> None:
    """A listing of checkpoint data is sized by `first` and each data weighs as a large
    read; proposing a merge weighs per user named."""
    from graphql import parse

    from thoughtgraph.api.graphql.cost import measure_operation

    def cost(document: str) -> int:
        measured = measure_operation(schema._schema, parse(document), None, {})
        assert measured is not None
        return measured.cost

    assert cost('{ checkpoints(threadId: "t", first: 100) { id data } }') == 5 + 100 * 20
    assert cost('{ checkpoints(threadId: "t") { id } }') == 5
    assert cost('{ checkpoint(threadId: "t") { data } }') == 1 + 20
    users = ", ".join(f'"u{i}"' for i in range(10))
    assert cost(f"mutation {{ proposeMerge(userIds: [{users}]) {{ id }} }}") == 10 * 20


def test_writes_name_the_keys_agent_or_the_local_caller() -> None:
    from thoughtgraph.features.access import LOCAL_ACTOR, actor_of

    assert actor_of(Principal.anyone()) == LOCAL_ACTOR
    keyed = Principal(key_id="k1", agent_id="planner", agent_name="Planner")
    assert actor_of(keyed).model_dump() == {"id": "planner", "name": "Planner", "key_id": "k1"}
