"""A consolidation run (seeds 002, 003, 004): over the namespace's candidates, a page at
a time, scan for contradictions and link neighbours, merge near-duplicates, assign
topics; then supersede what the judge saw updated, summarise the topics that are due,
and forget what is stale. A dry run computes the same counts and writes nothing.

Retries are safe: the run node records attempts; every write MERGEs on a deterministic
id or is guarded, so a run redelivered after its worker died completes without
duplicating a merge, a topic, an edge or a contradiction.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import structlog

from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.judgement import PairRelation, UsageMeter
from thoughtgraph.domain.knowledge import (
    ConsolidationRun,
    ContradictionStatus,
    Resolution,
    RunCounts,
    RunStatus,
    RunUsage,
    stable_id,
)
from thoughtgraph.domain.models import Thought
from thoughtgraph.domain.rules import SUPERSESSION_MIN_CONFIDENCE
from thoughtgraph.domain.units import HOUR_MS
from thoughtgraph.features.consolidation.candidates import candidate_pages
from thoughtgraph.features.consolidation.neighbour_snapshot import VectorSnapshot
from thoughtgraph.features.consolidation.repository import CandidateWindow
from thoughtgraph.features.services import JobRuntime
from thoughtgraph.features.topics.service import KnownTopics

log = structlog.get_logger(__name__)
DETECTOR = "supersession-detector"


async def start_scheduled_consolidation(runtime: JobRuntime, namespace: str) -> str:
    """The namespace's run for the current schedule slot. Its id comes from the slot, so
    a fan-out delivered twice finds the run it created the first time (one run a slot)."""
    now = runtime.clock.now_ms()
    period_ms = max(1, int(runtime.settings.consolidation_every_s * 1000))
    run_id = stable_id("run", namespace, "schedule", str(now // period_ms))
    run = await runtime.repos.runs.create(
        namespace, run_id, dry_run=False, trigger="schedule", at_ms=now
    )
    return run.id


async def run_consolidation(
    runtime: JobRuntime, namespace: str, run_id: str, *, dry_run: bool
) -> ConsolidationRun:
    runs, clock = runtime.repos.runs, runtime.clock
    run = await runs.start(namespace, run_id, clock.now_ms())
    if run is None:  # finished already: a redelivered task
        found = await runs.get_many(namespace, [run_id])
        if run_id in found:
            return found[run_id]
        run = await runs.create(
            namespace, run_id, dry_run=dry_run, trigger="worker", at_ms=clock.now_ms()
        )
        run = await runs.start(namespace, run_id, clock.now_ms()) or run
    usage = UsageMeter(max_calls=runtime.settings.llm_max_calls_per_run)
    started = time.monotonic()
    log.info("consolidation.started", namespace=namespace, run=run_id, attempt=run.attempts)
    try:
        counts = await Consolidation(
            runtime, namespace, run_id, usage, dry_run=run.dry_run
        ).execute()
    except Exception as exc:
        log.exception("consolidation.failed", namespace=namespace, run=run_id)
        await runs.finish(
            namespace,
            run_id,
            status=RunStatus.FAILED,
            counts=RunCounts(),
            usage=_usage(usage),
            error=str(exc)[:500],
            at_ms=clock.now_ms(),
        )
        raise
    finished = await runs.finish(
        namespace,
        run_id,
        status=RunStatus.SUCCEEDED,
        counts=counts,
        usage=_usage(usage),
        error=None,
        at_ms=clock.now_ms(),
    )
    log.info(
        "consolidation.finished",
        namespace=namespace,
        run=run_id,
        dry_run=run.dry_run,
        seconds=round(time.monotonic() - started, 3),
        **counts.model_dump(),
    )
    return finished


def _usage(meter: UsageMeter) -> RunUsage:
    u = meter.usage
    return RunUsage(
        llm_calls=u.calls,
        prompt_tokens=u.prompt_tokens,
        completion_tokens=u.completion_tokens,
        cost_usd=u.cost_usd,
    )


class Consolidation:
    def __init__(
        self,
        runtime: JobRuntime,
        namespace: str,
        run_id: str,
        usage: UsageMeter,
        *,
        dry_run: bool,
    ) -> None:
        self._rt = runtime
        self._ns = namespace
        self._run_id = run_id  # stamped on the thoughts its merges write
        self._usage = usage
        self._dry = dry_run
        self._counts: dict[str, int] = {}
        self._topic_pending: dict[str, int] = {}
        self._updates: list[tuple[str, str, str]] = []  # (pair id, newer, older) this run
        self._contested: set[str] = set()  # thoughts of open contradictions: not merged
        self._topics: KnownTopics | None = None  # read once, kept current by assignment
        self._vectors: VectorSnapshot | None = None  # read once, merges added as they happen
        self._judged: set[str] = set()  # pairs judged on earlier pages of this run

    def _add(self, name: str, n: int) -> None:
        self._counts[name] = self._counts.get(name, 0) + n

    async def execute(self) -> RunCounts:
        settings = self._rt.settings
        open_now = await self._rt.repos.contradictions.by_status(
            self._ns, ContradictionStatus.OPEN, 10_000
        )
        self._contested = {t for c in open_now for t in (c.thought_a_id, c.thought_b_id)}
        until = self._rt.clock.now_ms()
        window = CandidateWindow(
            since_ms=until - settings.consolidation_window_hours * HOUR_MS,
            until_ms=until,
            min_importance=settings.consolidation_min_importance,
            min_access_count=settings.consolidation_min_access_count,
        )
        candidates, current = await self._rt.repos.merges.count_candidates(self._ns, window)
        self._vectors = await self._rt.services.scanner.snapshot(
            self._ns, candidates=candidates, current=current
        )
        pages = candidate_pages(
            self._rt,
            self._ns,
            window,
            page_size=settings.consolidation_batch_size,
            vectors=self._vectors,
        )
        async for page in pages:
            await self._page(page)
            log.info("consolidation.page", namespace=self._ns, thoughts=len(page))
        await self._supersede_updates()
        await self._summarise()
        self._add(
            "forgotten", await self._rt.services.retention.forget_due(self._ns, dry_run=self._dry)
        )
        return RunCounts(**self._counts)

    async def _page(self, page: list[tuple[Thought, Sequence[float]]]) -> None:
        services = self._rt.services
        self._add("candidates", len(page))
        scan = await services.scanner.scan(
            self._ns,
            page,
            self._usage,
            dry_run=self._dry,
            source=self._vectors,
            judged_in_run=self._judged,
        )
        self._add("pairs_judged", len(scan.verdicts))
        self._add("contradictions_found", len(scan.contradictions) if self._dry else scan.recorded)
        self._add("links", scan.would_link if self._dry else scan.links)
        for pair, verdict in scan.contradictions:
            if verdict.relation is PairRelation.UPDATE:
                self._updates.append((pair.pair_id, pair.newer_id, pair.older_id))
        contested = self._contested | {
            tid for pair, _ in scan.contradictions for tid in (pair.older_id, pair.newer_id)
        }
        merged_away: set[str] = set()
        page_thoughts = [t for t, _ in page]
        clusters = await services.merging.plan(self._ns, page_thoughts, scan.neighbours, contested)
        embeddings: dict[str, Sequence[float]] = {}
        if clusters and not self._dry:  # merged thoughts take stored embeddings
            embeddings = await services.merging.fullest_embeddings(
                self._ns, clusters, {t.id: e for t, e in page}
            )
        for members in clusters:
            if any(m.id in merged_away for m in members):
                continue
            merged_away.update(m.id for m in members)
            if self._dry:
                self._add("deduped", len(members))
                continue
            merged = await services.merging.merge(
                self._ns, members, embeddings, run_id=self._run_id
            )
            if merged is not None:
                self._add("deduped", len(members))
                if self._vectors is not None:
                    self._vectors.add(merged.thought, merged.embedding)
        remaining = [(t, e) for t, e in page if t.id not in merged_away]
        if self._topics is None:
            self._topics = await services.topics.known_topics(self._ns)
        assigned = await services.topics.assign(
            self._ns, remaining, dry_run=self._dry, known=self._topics
        )
        self._add("assigned", assigned.assigned)
        for topic_id, n in assigned.added.items():
            self._topic_pending[topic_id] = self._topic_pending.get(topic_id, 0) + n

    async def _supersede_updates(self) -> None:
        """Supersession detection: an open contradiction the judge saw as an update (the
        newer statement replaces the older, with confidence) is resolved for the newer."""
        contradictions = self._rt.services.contradictions
        open_ones = await self._rt.repos.contradictions.by_status(
            self._ns, ContradictionStatus.OPEN, 1_000
        )
        due = [
            c
            for c in open_ones
            if c.relation == PairRelation.UPDATE.value
            and c.confidence >= SUPERSESSION_MIN_CONFIDENCE
        ]
        if self._dry:
            seen = {c.id for c in due}
            extra = [u for u in self._updates if u[0] not in seen]
            self._add("superseded", len(due) + len(extra))
            return
        actor = Actor.maintenance(DETECTOR)
        ids = [i for c in due for i in (c.thought_a_id, c.thought_b_id)]
        # The pairs of all of them in one read (a person field is proposed, not retired).
        pairs = await self._rt.repos.thoughts.get_many(self._ns, ids) if ids else {}
        for contradiction in due:
            if await contradictions.resolve_open(
                contradiction,
                Resolution.B_WINS,
                pair=pairs,
                actor=actor,
                note="the newer statement replaces the older (supersession detection)",
            ):
                self._add("superseded", 1)

    async def _summarise(self) -> None:
        services = self._rt.services
        summarised, superseded = await services.topics.summarise_due(
            self._ns,
            self._usage,
            dry_run=self._dry,
            pending=self._topic_pending,
            vectors=self._vectors,
        )
        self._add("summarised", summarised)
        for newer, older in superseded:
            await services.supersession.supersede(
                self._ns,
                newer,
                older,
                reason="superseded in the topic summary",
                actor=Actor.maintenance("topic-summary"),
                detector="topic-summary",
                confidence=0.8,
            )
            self._add("superseded", 1)
