"""The changed-facts set through the whole service: each pair is contributed as two plain
thoughts (older first), scanned as after a write, one consolidation run follows, and the
pair's query is searched. Reported: update pairs that became a contradiction (recall),
compatible pairs flagged (precision), and whether the newer fact ranks above the older.

Everything runs as in production: the configured engine (a fresh embedded one by
default), the configured embedder, the rules judge offline or the LLM when configured.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence

from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.knowledge import pair_fingerprint
from thoughtgraph.domain.models import SearchHit, _Frozen
from thoughtgraph.features.consolidation.jobs import run_consolidation
from thoughtgraph.features.contradictions.jobs import scan_thoughts
from thoughtgraph.features.thoughts.service import ThoughtInput
from thoughtgraph.runtime import Runtime
from thoughtgraph.tools.eval.updates import HELD_OUT, EvalPair

MIN_NEWER_FIRST = 0.95
EVAL_AGENT = Actor(id="eval", name="Evaluation")


class PairOutcome(_Frozen):
    pair: EvalPair
    flagged: bool  # a contradiction was recorded for the pair
    superseded: bool  # the older ended up superseded (by the newer or a merge)
    newer_rank: int | None  # 1-based rank in the query's results (None: not in the top 10)
    older_rank: int | None

    @property
    def newer_first(self) -> bool:
        if self.newer_rank is None:
            return False
        return self.older_rank is None or self.newer_rank < self.older_rank


class PipelineReport(_Frozen):
    engine: str
    judge: str
    outcomes: tuple[PairOutcome, ...]
    seconds: float
    llm_calls: int

    def _of(self, kind: str) -> list[PairOutcome]:
        return [o for o in self.outcomes if o.pair.kind == kind]

    @property
    def recall(self) -> float:
        updates = self._of("update")
        return sum(o.flagged for o in updates) / len(updates) if updates else 0.0

    @property
    def compatible_flagged(self) -> int:
        return sum(o.flagged for o in self._of("compatible"))

    @property
    def compatible_rate(self) -> float:
        compatible = self._of("compatible")
        return self.compatible_flagged / len(compatible) if compatible else 0.0

    @property
    def newer_first(self) -> float:
        queried = [o for o in self._of("update") if o.pair.query]
        return sum(o.newer_first for o in queried) / len(queried) if queried else 0.0


def _rank(hits: Sequence[SearchHit], thought_id: str) -> int | None:
    for position, hit in enumerate(hits, start=1):
        if hit.thought.id == thought_id or thought_id in hit.thought.source_ids:
            return position
    return None


async def evaluate_pipeline(runtime: Runtime, pairs: Sequence[EvalPair]) -> PipelineReport:
    """Each pair in a namespace of its own (the set reuses statements across pairs, which
    in one namespace would judge pairs against each other's copies)."""
    started = time.monotonic()
    prefix = f"eval-{uuid.uuid4().hex[:8]}"
    outcomes = []
    llm_calls = 0
    for pair in pairs:
        outcome, calls = await _run_pair(runtime, f"{prefix}-{pair.id}", pair)
        outcomes.append(outcome)
        llm_calls += calls
    return PipelineReport(
        engine=runtime.store.engine,
        judge=runtime.settings.llm_model or "rules",
        outcomes=tuple(outcomes),
        seconds=time.monotonic() - started,
        llm_calls=llm_calls,
    )


async def _run_pair(runtime: Runtime, namespace: str, pair: EvalPair) -> tuple[PairOutcome, int]:
    services = runtime.services
    written = []
    for text in (pair.older, pair.newer):
        data = ThoughtInput(
            content=text, agent_id=EVAL_AGENT.id, agent_name=EVAL_AGENT.name, namespace=namespace
        )
        written.append((await services.thoughts.contribute(data)).thought.id)
    older, newer = written
    scan = await scan_thoughts(runtime, namespace, [newer])
    run = await services.consolidation.request(namespace, dry_run=False, trigger="eval")
    finished = await run_consolidation(runtime, namespace, run.id, dry_run=False)
    flagged = await runtime.repos.contradictions.get_many(
        namespace, [pair_fingerprint(namespace, older, newer)]
    )
    stored = await runtime.repos.thoughts.get_many(namespace, [older])
    newer_rank = older_rank = None
    if pair.query:
        hits = await services.search.search(namespace, pair.query, k=10)
        newer_rank, older_rank = _rank(hits, newer), _rank(hits, older)
    outcome = PairOutcome(
        pair=pair,
        flagged=bool(flagged),
        superseded=older in stored and stored[older].superseded_by is not None,
        newer_rank=newer_rank,
        older_rank=older_rank,
    )
    return outcome, scan.llm_calls + finished.usage.llm_calls


def render_pipeline(report: PipelineReport) -> str:
    ok = {True: "ok", False: "MISSED"}
    updates = [o for o in report.outcomes if o.pair.kind == "update"]
    compatible = [o for o in report.outcomes if o.pair.kind == "compatible"]
    lines = [
        f"Through the service: engine {report.engine}, judge {report.judge}, "
        f"{len(report.outcomes)} pairs in {report.seconds:.1f} s, {report.llm_calls} LLM calls",
        "",
        f"{'':<40}{'count':>7}{'of':>6}{'rate':>9}  target",
        f"{'update detected (contradiction)':<40}{sum(o.flagged for o in updates):>7}"
        f"{len(updates):>6}{report.recall:>9.1%}  >= {HELD_OUT.min_recall:.0%}  "
        f"{ok[report.recall >= HELD_OUT.min_recall]}",
        f"{'  older superseded after the run':<40}{sum(o.superseded for o in updates):>7}",
        f"{'compatible pairs flagged':<40}{report.compatible_flagged:>7}{len(compatible):>6}"
        f"{report.compatible_rate:>9.1%}  <= {HELD_OUT.max_compatible_flagged:.0%}  "
        f"{ok[report.compatible_rate <= HELD_OUT.max_compatible_flagged]}",
        f"{'newer fact ranked first':<40}{sum(o.newer_first for o in updates):>7}"
        f"{len(updates):>6}{report.newer_first:>9.1%}  >= {MIN_NEWER_FIRST:.0%}  "
        f"{ok[report.newer_first >= MIN_NEWER_FIRST]}",
    ]
    misses = [o for o in updates if not o.newer_first]
    if misses:
        lines += ["", "Newer not first:"]
        lines += [
            f"  {o.pair.id}: newer #{o.newer_rank} older #{o.older_rank}  {o.pair.newer[:60]}"
            for o in misses
        ]
    wrong = [o for o in compatible if o.flagged]
    if wrong:
        lines += ["", "Compatible pairs flagged:"]
        lines += [f"  {o.pair.id}: {o.pair.older[:50]} | {o.pair.newer[:50]}" for o in wrong]
    return "\n".join(lines)
