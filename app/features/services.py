"""Every feature's service, as the interfaces (GraphQL, MCP, HTTP) and the workers see them.
``thoughtgraph.container`` builds one per process."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from thoughtgraph.domain.allowlist import AllowlistPolicy
from thoughtgraph.features.changes.service import HistoryService
from thoughtgraph.features.checkpoints.service import CheckpointService
from thoughtgraph.features.consent.service import ConsentService
from thoughtgraph.features.consolidation.merging import MergeService
from thoughtgraph.features.consolidation.proposals import ProposalService
from thoughtgraph.features.consolidation.service import ConsolidationService
from thoughtgraph.features.context.service import ContextService
from thoughtgraph.features.contradictions.scanning import ContradictionScanner
from thoughtgraph.features.contradictions.service import ContradictionService
from thoughtgraph.features.contradictions.supersession import SupersessionService
from thoughtgraph.features.episodes.service import EpisodeService
from thoughtgraph.features.extraction.service import FactExtractor
from thoughtgraph.features.insights.service import InsightService
from thoughtgraph.features.lineage.service import LineageService
from thoughtgraph.features.ops.service import OpsService
from thoughtgraph.features.procedures.service import ProcedureService
from thoughtgraph.features.reembedding.service import ReembeddingService
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.retention.service import AccessRecorder, RetentionService
from thoughtgraph.features.search.recall import RecallService
from thoughtgraph.features.search.related import RelatedService
from thoughtgraph.features.search.service import SearchService
from thoughtgraph.features.thoughts.browse import BrowseService
from thoughtgraph.features.thoughts.service import ThoughtService
from thoughtgraph.features.topics.service import TopicService
from thoughtgraph.observability.telemetry import Telemetry
from thoughtgraph.ports.clock import Clock
from thoughtgraph.ports.services import Embeddings
from thoughtgraph.settings import Settings


@dataclass(frozen=True)
class Services:
    repos: Repositories
    embedder: Embeddings
    thoughts: ThoughtService
    browse: BrowseService
    related: RelatedService
    search: SearchService
    lineage: LineageService
    history: HistoryService
    access: AccessRecorder
    retention: RetentionService
    supersession: SupersessionService
    contradictions: ContradictionService
    scanner: ContradictionScanner
    merging: MergeService
    proposals: ProposalService
    consent: ConsentService
    checkpoints: CheckpointService  # a client's saved state of a thread, per user
    reembedding: ReembeddingService  # another embedder's vectors, switched to live
    procedures: ProcedureService  # workflows and code patterns (procedural memory)
    topics: TopicService
    consolidation: ConsolidationService
    episodes: EpisodeService
    extraction: FactExtractor
    insights: InsightService  # insights about people (a background job)
    # Agents' category allowlists (TG_ALLOWLIST_FILE): every read path asks
    # allowlist.categories_for(agent, requested) which categories it may return.
    allowlist: AllowlistPolicy
    recall: RecallService
    context: ContextService
    # Operating the service: metrics and tracing (app/observability), operational events.
    telemetry: Telemetry
    ops: OpsService

    async def close(self) -> None:
        await self.access.close()
        await self.ops.close()


class JobRuntime(Protocol):
    """What a background job runs with: the process's settings, clock and services (a
    worker's Runtime, or the CLI's)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def services(self) -> Services: ...

    @property
    def repos(self) -> Repositories: ...
