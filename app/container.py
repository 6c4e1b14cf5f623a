"""All services, built once per process (by runtime.py) over one store: the one place that
builds them for the API, the workers and MCP. Each service gets the repositories it uses."""

from __future__ import annotations

from functools import partial
from typing import Protocol

from thoughtgraph.domain.allowlist import load_allowlist
from thoughtgraph.domain.consent import FieldPolicy
from thoughtgraph.domain.scopes import ScopePolicy
from thoughtgraph.features.changes.service import HistoryService
from thoughtgraph.features.checkpoints.service import CheckpointService
from thoughtgraph.features.consent.gate import FieldChanges
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
from thoughtgraph.features.reembedding.service import EmbedderFactory, ReembeddingService
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.retention.service import AccessRecorder, RetentionService
from thoughtgraph.features.search.recall import RecallService
from thoughtgraph.features.search.related import RelatedService
from thoughtgraph.features.search.service import SearchService
from thoughtgraph.features.services import Services
from thoughtgraph.features.thoughts.after_write import AfterWrite
from thoughtgraph.features.thoughts.browse import BrowseService
from thoughtgraph.features.thoughts.service import ThoughtService
from thoughtgraph.features.topics.service import TopicService
from thoughtgraph.features.topics.summaries import TopicSummariser
from thoughtgraph.features.write_behind import while_vector_indexes_build
from thoughtgraph.observability.telemetry import Telemetry
from thoughtgraph.ports.clock import Clock, SystemClock
from thoughtgraph.ports.jobs import JobQueue, NoJobQueue
from thoughtgraph.ports.services import Embeddings
from thoughtgraph.ports.store_status import StoreStatus
from thoughtgraph.ports.vector_slots import SpaceSchema
from thoughtgraph.settings import Settings
from thoughtgraph.store.executor import Executor


class Store(Executor, StoreStatus, SpaceSchema, Protocol):
    """What the services are built over: an executor that also reports its status and
    keeps the record of its vector spaces."""


def build_services(
    store: Store,
    embedder: Embeddings,
    *,
    settings: Settings | None = None,
    clock: Clock | None = None,
    queue: JobQueue | None = None,
    telemetry: Telemetry | None = None,
    embedders: EmbedderFactory | None = None,
) -> Services:
    """``embedders``: builds an embedder from settings overrides (re-embedding); by
    default a new one each time over ``settings``."""
    from thoughtgraph.features.contradictions.judge import build_judge
    from thoughtgraph.llm.client import build_llm_client
    from thoughtgraph.llm.embedders.spaces import build_for

    settings = settings or Settings()
    clock = clock or SystemClock()
    queue = queue or NoJobQueue()
    telemetry = telemetry or Telemetry()
    llm = build_llm_client(settings, observer=telemetry)
    repos = Repositories.over(store)
    # Usage counts and events wait out a vector index build (features/write_behind.py).
    held = while_vector_indexes_build(repos.executor)
    ops = OpsService(repos.ops, store, clock, keep=settings.ops_events_keep, held=held)
    events = ops.recorder
    field_policy = FieldPolicy.parse(
        settings.consent_sensitive_fields,
        settings.consent_benign_fields,
        settings.consent_expiry_days,
    )
    fields = FieldChanges(repos, embedder, field_policy, clock)
    after_write = AfterWrite(queue, scan_on_write=settings.scan_on_write, events=events)
    thoughts = ThoughtService(
        repos,
        embedder,
        clock=clock,
        queue=queue,
        after_write=after_write,
        scopes=ScopePolicy.parse(settings.scope_defaults),
        fields=fields,
        # Multi-fact extraction needs a model; offline a contribution is written as it is.
        extract_min_chars=settings.extraction_min_chars if llm is not None else None,
    )
    access = AccessRecorder(repos, clock, held=held)
    merging = MergeService(repos, embedder, settings, clock, fields)
    allowlist = load_allowlist(settings.allowlist_file)  # a bad file stops the start
    search = SearchService(
        repos,
        embedder,
        clock=clock,
        access=access,
        settings=settings,
        events=events,
        allowlist=allowlist,
    )
    return Services(
        repos=repos,
        embedder=embedder,
        thoughts=thoughts,
        browse=BrowseService(repos),
        related=RelatedService(repos),
        search=search,
        lineage=LineageService(repos),
        history=HistoryService(repos),
        access=access,
        retention=RetentionService(repos, settings, clock),
        supersession=SupersessionService(repos, embedder, clock, fields),
        contradictions=ContradictionService(repos, embedder, thoughts, clock, fields),
        scanner=ContradictionScanner(repos, build_judge(settings, llm), settings, clock),
        merging=merging,
        proposals=ProposalService(repos, merging, settings, clock),
        consent=ConsentService(repos, fields, clock),
        checkpoints=CheckpointService(
            repos.checkpoints, clock, max_bytes=settings.checkpoint_max_bytes
        ),
        procedures=ProcedureService(
            repos,
            embedder,
            scopes=thoughts.scopes,
            after_write=after_write,
            clock=clock,
            llm=llm,
            llm_calls=settings.llm_max_calls_per_run,
            allowlist=allowlist,
        ),
        topics=TopicService(
            repos, TopicSummariser(llm, settings.topic_summary_max_words), settings, clock
        ),
        consolidation=ConsolidationService(repos, queue, clock),
        episodes=EpisodeService(repos, embedder, thoughts, llm, settings, clock, events),
        insights=InsightService(repos, thoughts, llm, queue, settings, clock),
        extraction=FactExtractor(repos, thoughts, embedder, llm, settings, clock),
        allowlist=allowlist,
        recall=RecallService(search, llm, allowlist),
        context=ContextService(
            repos,
            search,
            settings=settings,
            clock=clock,
            events=events,
            allowlist=allowlist,
            access=access,
        ),
        telemetry=telemetry,
        ops=ops,
        reembedding=ReembeddingService(
            repos.reembedding,
            store,
            embedders or partial(build_for, settings),
            queue,
            grace_s=settings.reembed_grace_s,
            api_base=settings.embedding_api_base,
        ),
    )
