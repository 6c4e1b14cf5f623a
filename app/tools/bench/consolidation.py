"""Consolidation of 1,000 and 10,000 realistic thoughts, offline, timed from request to
finish.

Each size gets a corpus of its own (``corpus.py``), embedded once with the local model
(cached, ``vectors.py``), bulk-loaded into a fresh namespace, then consolidated by one
real (not dry) run in this process: the rule judge, extractive summaries and the local
model for merged thoughts, exactly what a worker without an LLM does. Every statement the
run sends is timed, so the report can say where the time goes.
"""

from __future__ import annotations

import asyncio
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from thoughtgraph.domain.knowledge import ConsolidationRun, RunStatus
from thoughtgraph.features.consolidation.jobs import run_consolidation
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime, open_runtime
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.tools.bench.corpus import SPACING_MS, Corpus, CorpusStats
from thoughtgraph.tools.bench.profiling import (
    FunctionProfile,
    PhaseTimer,
    StatementStats,
    StatementTimer,
)
from thoughtgraph.tools.bench.report import Target, format_grid
from thoughtgraph.tools.bench.service import BenchSetupError
from thoughtgraph.tools.bench.vectors import Embedded, embed_cached

LOAD_BATCH = 1000
# Targets: 1,000 thoughts in under 5 minutes; the benchmark issue 10,000 in
# under a minute, on the embedded engine.
TARGET_SECONDS = {1_000: 300.0, 10_000: 60.0}
TOP_STATEMENTS = 8


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


@dataclass(frozen=True)
class ConsolidationResult:
    size: int
    corpus: CorpusStats
    embedded: Embedded
    load_s: float
    seconds: float  # request to finish
    run: ConsolidationRun
    topics: int
    statement_s: float
    statements: list[tuple[str, StatementStats]]
    phases: dict[str, float]  # judge, model: seconds outside statements

    @property
    def rate(self) -> float:
        return self.size / self.seconds if self.seconds > 0 else 0.0


class ConsolidationBench:
    def __init__(
        self,
        settings: Settings,
        sizes: Sequence[int],
        embedder: TextEmbedder,
        *,
        cache_dir: Path | None = None,
        profile_dir: Path | None = None,
    ) -> None:
        # Offline whatever the environment says: the rule judge and extractive summaries.
        self.settings = settings.model_copy(
            update={"embedder": EmbedderKind.LOCAL, "llm_model": None}
        )
        self.sizes = sorted(set(sizes))
        self.embedder = embedder
        self.cache_dir = cache_dir
        self.profile_dir = profile_dir
        self.results: list[ConsolidationResult] = []
        self.profiles: dict[int, str] = {}
        self._token = secrets.token_hex(4)

    def run(self) -> None:
        data_dir: Path | None = None
        settings = self.settings
        if not settings.neo4j_uri:
            data_dir = Path(tempfile.mkdtemp(prefix="tg-bench-consolidation-"))
            settings = settings.model_copy(update={"data_dir": data_dir})
        try:
            asyncio.run(self._run_all(settings))
        finally:
            if data_dir is not None:
                shutil.rmtree(data_dir, ignore_errors=True)

    async def _run_all(self, settings: Settings) -> None:
        async with open_runtime(settings, embedder=self.embedder) as runtime:
            timer = StatementTimer()
            timer.attach(runtime.store)
            phases = PhaseTimer()
            # The judge is the scanner's own (private) attribute: wrapped on the instance for
            # timing only, nothing else changes.
            phases.attach("judge", runtime.services.scanner._judge, "judge")
            phases.attach("model", self.embedder, "_aembed_batch")
            try:
                for size in self.sizes:
                    self.results.append(await self._one(runtime, timer, phases, size))
            finally:
                phases.detach()

    async def _one(
        self, runtime: Runtime, timer: StatementTimer, phases: PhaseTimer, size: int
    ) -> ConsolidationResult:
        corpus = Corpus(size)
        _progress(f"consolidation: embedding {size:,} sentences (cached after the first run)")
        embedded = await asyncio.to_thread(
            embed_cached, self.embedder, corpus.texts, self.cache_dir
        )
        namespace = f"bench-consolidation-{self._token}-{size}"
        start_ms = runtime.clock.now_ms() - (size + 60) * SPACING_MS
        thoughts = corpus.thoughts(embedded.vectors, start_ms=start_ms)
        _progress(f"consolidation: loading {size:,} thoughts into {namespace}")
        started = time.perf_counter()
        for first in range(0, size, LOAD_BATCH):
            batch = thoughts[first : first + LOAD_BATCH]
            created = await runtime.repos.thoughts.bulk_create_originals(namespace, batch)
            if created != len(batch):
                raise BenchSetupError(f"bulk load created {created} of {len(batch)} thoughts")
        load_s = time.perf_counter() - started

        _progress(f"consolidation: running over {size:,} thoughts")
        timer.reset()
        phases.reset()
        profile = (
            FunctionProfile(self.profile_dir / f"consolidation-{size}.prof")
            if self.profile_dir is not None
            else None
        )
        started = time.perf_counter()
        if profile is not None:
            with profile:
                run = await self._consolidate(runtime, namespace)
        else:
            run = await self._consolidate(runtime, namespace)
        seconds = time.perf_counter() - started
        if profile is not None:
            self.profiles[size] = profile.summary(25)
        if run.status is not RunStatus.SUCCEEDED:
            raise BenchSetupError(f"the consolidation run ended {run.status}: {run.error}")
        topics = len(await runtime.repos.topics.vectors(namespace))
        return ConsolidationResult(
            size=size,
            corpus=corpus.stats,
            embedded=embedded,
            load_s=load_s,
            seconds=seconds,
            run=run,
            topics=topics,
            statement_s=timer.total_seconds,
            statements=timer.top(TOP_STATEMENTS),
            phases=dict(phases.seconds),
        )

    @staticmethod
    async def _consolidate(runtime: Runtime, namespace: str) -> ConsolidationRun:
        requested = await runtime.services.consolidation.request(
            namespace, dry_run=False, trigger="bench"
        )
        return await run_consolidation(runtime, namespace, requested.id, dry_run=False)

    # --- output -----------------------------------------------------------------------
    def report_lines(self) -> list[str]:
        if not self.results:
            return []
        header = (
            "N", "seconds", "thoughts/s", "deduped", "assigned", "topics", "summarised",
            "superseded", "contradictions", "links", "pairs judged",
        )  # fmt: skip
        rows = []
        for r in self.results:
            c = r.run.counts
            counts = (
                c.deduped, c.assigned, r.topics, c.summarised, c.superseded,
                c.contradictions_found, c.links, c.pairs_judged,
            )  # fmt: skip
            numbers = [f"{n:,}" for n in counts]
            rows.append((f"{r.size:,}", f"{r.seconds:.2f}", f"{r.rate:,.0f}", *numbers))
        lines = [
            "consolidation (one real run, offline: rule judge, extractive summaries, local"
            " model for merged thoughts; seconds from request to finish)",
            "",
            *format_grid(header, rows),
            "",
        ]
        for r in self.results:
            s = r.corpus
            how = "read from the cache" if r.embedded.cached else "computed now"
            lines.append(
                f"  N={r.size:,}: corpus {s.facts:,} facts, {s.duplicates:,} near-duplicates,"
                f" {s.changes:,} changed facts ({s.changes_with_cue:,} with 'now');"
                f" embedding {r.embedded.seconds:.1f} s"
                f" ({r.size / max(r.embedded.seconds, 1e-9):,.0f} sentences/s, {how});"
                f" bulk load {r.load_s:.2f} s"
            )
        for r in self.results:
            lines += ["", *self._where_the_time_goes(r)]
            if r.size in self.profiles:
                lines += [f"  Python profile at N={r.size:,} (cProfile, slower than unprofiled):"]
                lines += ["    " + line for line in self.profiles[r.size].splitlines() if line]
        return lines

    @staticmethod
    def _where_the_time_goes(r: ConsolidationResult) -> list[str]:
        judge, model = r.phases.get("judge", 0.0), r.phases.get("model", 0.0)
        other = max(0.0, r.seconds - r.statement_s - judge - model)

        def part(seconds: float) -> str:
            return f"{seconds:.2f} s ({seconds / r.seconds:.0%})"

        lines = [
            f"  where the time goes at N={r.size:,}: statements {part(r.statement_s)},"
            f" rule judge {part(judge)} ({r.run.counts.pairs_judged:,} pairs),"
            f" model {part(model)}, other Python {part(other)}"
        ]
        header = ("statement", "calls", "seconds", "share", "ms/call", "rows")
        rows = [
            (
                name,
                f"{s.calls:,}",
                f"{s.seconds:.2f}",
                f"{s.seconds / r.seconds:.0%}",
                f"{1000 * s.seconds / s.calls:.2f}",
                f"{s.rows:,}",
            )
            for name, s in r.statements
        ]
        return lines + ["    " + line for line in format_grid(header, rows)]

    def targets(self, *, embedded: bool) -> list[Target]:
        by_size = {r.size: r for r in self.results}
        found = []
        for size, limit in sorted(TARGET_SECONDS.items()):
            got = by_size.get(size)
            description = f"consolidation of {size:,} thoughts < {limit:.0f} s"
            if got is None:
                found.append(Target(description, "not measured in this run", None))
                continue
            verdict = (got.seconds < limit) if embedded else None
            note = "" if embedded else "; not judged: the engine is Neo4j"
            measured = f"{got.seconds:.2f} s ({got.rate:,.0f} thoughts/s){note}"
            found.append(Target(description, measured, verdict))
        return found
