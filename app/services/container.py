"""All services, built once per process (by app/runtime.py) over one store."""

from __future__ import annotations

from dataclasses import dataclass

from app.clock import Clock, SystemClock
from app.domain.allowlist import AllowlistPolicy, load_allowlist
from app.jobs.queue import JobQueue, NoJobQueue
from app.observability.telemetry import Telemetry
from app.services.browse import BrowseService
from app.services.consolidation import ConsolidationService
from app.services.context import ContextService
from app.services.contradictions import ContradictionService
from app.services.episodes import EpisodeService
from app.services.history import HistoryService
from app.services.lineage import LineageService
from app.services.merging import MergeService
from app.services.ops import OpsService
from app.services.ports import Embeddings
from app.services.recall import RecallService
from app.services.retention import AccessRecorder, RetentionService
from app.services.scanning import ContradictionScanner
from app.services.search import SearchService
from app.services.summaries import TopicSummariser
from app.services.supersession import SupersessionService
from app.services.thoughts import ThoughtService
from app.services.topics import TopicService
from app.settings import Settings
from app.store.cypher_store import CypherGraphStore
from app.store.repositories.transfer import TransferRepository


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
        from app.knowledge.judge import build_judge
        from app.llm.client import build_llm_client

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
