"""All services, built once per process (by app/runtime.py) over one store."""

from __future__ import annotations

from dataclasses import dataclass

from thoughtgraph.domain.allowlist import AllowlistPolicy, load_allowlist
from thoughtgraph.features.changes.service import HistoryService
from thoughtgraph.features.consolidation.merging import MergeService
from thoughtgraph.features.consolidation.service import ConsolidationService
from thoughtgraph.features.context.service import ContextService
from thoughtgraph.features.contradictions.scanning import ContradictionScanner
from thoughtgraph.features.contradictions.service import ContradictionService
from thoughtgraph.features.contradictions.supersession import SupersessionService
from thoughtgraph.features.episodes.service import EpisodeService
from thoughtgraph.features.lineage.service import LineageService
from thoughtgraph.features.ops.service import OpsService
from thoughtgraph.features.retention.service import AccessRecorder, RetentionService
from thoughtgraph.features.search.recall import RecallService
from thoughtgraph.features.search.service import SearchService
from thoughtgraph.features.thoughts.browse import BrowseService
from thoughtgraph.features.thoughts.service import ThoughtService
from thoughtgraph.features.topics.service import TopicService
from thoughtgraph.features.topics.summaries import TopicSummariser
from thoughtgraph.features.transfer.repository import TransferRepository
from thoughtgraph.observability.telemetry import Telemetry
from thoughtgraph.ports.clock import Clock, SystemClock
from thoughtgraph.ports.jobs import JobQueue, NoJobQueue
from thoughtgraph.ports.services import Embeddings
from thoughtgraph.settings import Settings
from thoughtgraph.store.cypher_store import CypherGraphStore


@dataclass(frozen=True)
class Services:
    store: CypherGraphStore
    embedder: Embeddings
    thoughts: ThoughtService
    browse: BrowseService
    search: SearchService
    lineage: LineageService
    history: HistoryService
    access: AccessRecorder
    retention: RetentionService
    supersession: SupersessionService
    contradictions: ContradictionService
    scanner: ContradictionScanner
    merging: MergeService
    topics: TopicService
    consolidation: ConsolidationService
    episodes: EpisodeService
    # Agents' category allowlists (TG_ALLOWLIST_FILE): every read path asks
    # allowlist.categories_for(agent, requested) which categories it may return.
    allowlist: AllowlistPolicy
    recall: RecallService
    context: ContextService
    # Operating the service: metrics and tracing (app/observability), operational events.
    telemetry: Telemetry
    ops: OpsService

    @classmethod
    def build(
        cls,
        store: CypherGraphStore,
        embedder: Embeddings,
        *,
        settings: Settings | None = None,
        clock: Clock | None = None,
        queue: JobQueue | None = None,
        telemetry: Telemetry | None = None,
    ) -> Services:
        from thoughtgraph.features.contradictions.judge import build_judge
        from thoughtgraph.llm.client import build_llm_client

        settings = settings or Settings()
        clock = clock or SystemClock()
        queue = queue or NoJobQueue()
        telemetry = telemetry or Telemetry()
        llm = build_llm_client(settings, observer=telemetry)
        ops = OpsService(store, clock, keep=settings.ops_events_keep)
        events = ops.recorder
        thoughts = ThoughtService(
            store,
            embedder,
            clock=clock,
            queue=queue,
            scan_on_write=settings.scan_on_write,
            batches=TransferRepository(store),
            events=events,
        )
        access = AccessRecorder(store, clock)
        allowlist = load_allowlist(settings.allowlist_file)  # a bad file stops the start
        search = SearchService(
            store, embedder, clock=clock, access=access, settings=settings, events=events
        )
        return cls(
            store=store,
            embedder=embedder,
            thoughts=thoughts,
            browse=BrowseService(store),
            search=search,
            lineage=LineageService(store),
            history=HistoryService(store),
            access=access,
            retention=RetentionService(store, settings, clock),
            supersession=SupersessionService(store, embedder, clock),
            contradictions=ContradictionService(store, embedder, thoughts, clock),
            scanner=ContradictionScanner(store, build_judge(settings, llm), settings, clock),
            merging=MergeService(store, embedder, settings, clock),
            topics=TopicService(
                store, TopicSummariser(llm, settings.topic_summary_max_words), settings, clock
            ),
            consolidation=ConsolidationService(store, queue, clock),
            episodes=EpisodeService(store, embedder, thoughts, llm, settings, clock, events),
            allowlist=allowlist,
            recall=RecallService(search, llm, allowlist),
            context=ContextService(store, search, settings=settings, clock=clock, events=events),
            telemetry=telemetry,
            ops=ops,
        )

    async def close(self) -> None:
        await self.access.close()
        await self.ops.close()
