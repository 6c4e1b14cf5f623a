"""How well a contradiction judge finds changed facts without flagging look-alikes.

The set (``sets/updates.jsonl``) holds pairs of statements: ``update`` pairs, where the
newer replaces the older (a new port, owner, date, tool, decision...), and ``compatible``
pairs that read alike but can both be true (another subject, an addition). Each pair is
embedded; as in the service, a pair less similar than ``contradiction_min_similarity`` is
never shown to the judge and counts as not flagged. Targets: at least 80% of the update
pairs flagged (update or conflict), at most 1 compatible pair in 50.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Literal

import numpy as np

from thoughtgraph.domain.judgement import LLMUsage, PairRelation, PairToJudge, UsageMeter, Verdict
from thoughtgraph.domain.models import _Frozen
from thoughtgraph.features.contradictions.judge import ContradictionJudge
from thoughtgraph.llm.embedders.base import TextEmbedder

DATA_FILE = "updates.jsonl"  # the small set: extra training data only
DOMAIN_FILE = "updates_domains.jsonl"  # folds by domain
# Targets on the small set (the rules judge's own test) and, stricter, on the domain set's
# left-out domains (what ``thoughtgraph eval updates`` prints and exits non-zero on).
MIN_RECALL = 0.8
MAX_COMPATIBLE_FLAGGED = 1 / 50


@dataclass(frozen=True)
class Targets:
    min_recall: float
    max_compatible_flagged: float


SMALL_SET = Targets(MIN_RECALL, MAX_COMPATIBLE_FLAGGED)
HELD_OUT = Targets(min_recall=0.9, max_compatible_flagged=1 / 100)
DEFAULT_MIN_SIMILARITY = 0.55
# Fixed times, a day apart: the judge sees the same input on every run.
OLDER_AT_MS = 1_735_689_600_000  # 2025-01-01
NEWER_AT_MS = OLDER_AT_MS + 86_400_000


class EvalPair(_Frozen):
    id: str
    kind: Literal["update", "compatible"]
    older: str
    newer: str
    query: str | None = None  # what a user would search to find the fact (update pairs)
    domain: str | None = None  # the domain set's fold
    shape: str | None = None


class PairResult(_Frozen):
    pair: EvalPair
    similarity: float
    verdict: Verdict | None  # None: below the similarity floor, never judged

    @property
    def flagged(self) -> bool:
        return self.verdict is not None and self.verdict.contradicts

    @property
    def correct(self) -> bool:
        return self.flagged == (self.pair.kind == "update")


class JudgeReport(_Frozen):
    judge: str
    min_similarity: float
    results: tuple[PairResult, ...]
    usage: LLMUsage

    def _of(self, kind: str) -> list[PairResult]:
        return [r for r in self.results if r.pair.kind == kind]

    @property
    def updates(self) -> int:
        return len(self._of("update"))

    @property
    def updates_flagged(self) -> int:
        return sum(r.flagged for r in self._of("update"))

    def updates_judged(self, relation: PairRelation) -> int:
        judged = [r.verdict for r in self._of("update") if r.verdict is not None]
        return sum(verdict.relation is relation for verdict in judged)

    @property
    def updates_below_similarity(self) -> int:
        return sum(r.verdict is None for r in self._of("update"))

    @property
    def recall(self) -> float:
        return self.updates_flagged / self.updates if self.updates else 0.0

    @property
    def compatible(self) -> int:
        return len(self._of("compatible"))

    @property
    def compatible_flagged(self) -> int:
        return sum(r.flagged for r in self._of("compatible"))

    @property
    def compatible_flag_rate(self) -> float:
        return self.compatible_flagged / self.compatible if self.compatible else 0.0

    @property
    def failures(self) -> list[PairResult]:
        return [r for r in self.results if not r.correct]

    @property
    def meets_targets(self) -> bool:
        return self.meets(SMALL_SET)

    def meets(self, targets: Targets) -> bool:
        return (
            self.recall >= targets.min_recall
            and self.compatible_flag_rate <= targets.max_compatible_flagged
        )


def load_pairs(data_file: str = DATA_FILE) -> list[EvalPair]:
    """An evaluation set shipped with the package (default: the small set)."""
    text = (
        resources.files("thoughtgraph.tools.eval")
        .joinpath("sets", data_file)
        .read_text(encoding="utf-8")
    )
    return [EvalPair.model_validate(json.loads(line)) for line in text.splitlines() if line.strip()]


async def evaluate_judge(
    judge: ContradictionJudge,
    embedder: TextEmbedder,
    *,
    min_similarity: float = DEFAULT_MIN_SIMILARITY,
    pairs: Sequence[EvalPair] | None = None,
    usage: UsageMeter | None = None,
) -> JudgeReport:
    """Judge every pair similar enough to reach a judge in the service; report recall on
    the update pairs and how many compatible pairs were flagged."""
    chosen = list(pairs) if pairs is not None else load_pairs()
    meter = usage if usage is not None else UsageMeter()
    cosines = await similarities(embedder, chosen)
    to_judge = [
        PairToJudge(
            pair_id=pair.id,
            older_id=f"{pair.id}-older",
            older_text=pair.older,
            older_at_ms=OLDER_AT_MS,
            newer_id=f"{pair.id}-newer",
            newer_text=pair.newer,
            newer_at_ms=NEWER_AT_MS,
            similarity=similarity,
        )
        for pair, similarity in zip(chosen, cosines, strict=True)
        if similarity >= min_similarity
    ]
    verdicts = await judge.judge(to_judge, meter) if to_judge else []
    if len(verdicts) != len(to_judge):
        raise RuntimeError(f"{judge.name} gave {len(verdicts)} verdicts for {len(to_judge)} pairs")
    by_id = {verdict.pair_id: verdict for verdict in verdicts}
    results = tuple(
        PairResult(pair=pair, similarity=similarity, verdict=by_id.get(pair.id))
        for pair, similarity in zip(chosen, cosines, strict=True)
    )
    return JudgeReport(
        judge=judge.name, min_similarity=min_similarity, results=results, usage=meter.usage
    )


async def similarities(embedder: TextEmbedder, pairs: list[EvalPair]) -> list[float]:
    if not pairs:
        return []
    vectors = await embedder.async_embed_documents(
        [p.older for p in pairs] + [p.newer for p in pairs]
    )
    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1)
    matrix = matrix / np.where(norms == 0.0, 1.0, norms)[:, None]
    older, newer = matrix[: len(pairs)], matrix[len(pairs) :]
    cosines: list[float] = np.sum(older * newer, axis=1).tolist()
    return cosines


def render_table(
    report: JudgeReport,
    *,
    text_width: int = 48,
    targets: Targets = SMALL_SET,
) -> str:
    """The report as plain text: the two rates against their targets, then every failure."""
    usage = report.usage
    lines = [
        f"Contradiction judge: {report.judge} (pairs below similarity "
        f"{report.min_similarity:.2f} are not judged)",
        "",
        f"{'':<34}{'flagged':>9}{'of':>6}{'rate':>9}  target",
        f"{'update pairs (update or conflict)':<34}{report.updates_flagged:>9}"
        f"{report.updates:>6}{report.recall:>9.1%}  >= {targets.min_recall:.0%}"
        f"  {'ok' if report.recall >= targets.min_recall else 'MISSED'}",
        f"{'  judged update':<34}{report.updates_judged(PairRelation.UPDATE):>9}",
        f"{'  judged conflict':<34}{report.updates_judged(PairRelation.CONFLICT):>9}",
        f"{'  below similarity, not judged':<34}{report.updates_below_similarity:>9}",
        f"{'compatible pairs':<34}{report.compatible_flagged:>9}{report.compatible:>6}"
        f"{report.compatible_flag_rate:>9.1%}  <= {targets.max_compatible_flagged:.0%}"
        f"  {'ok' if report.compatible_flag_rate <= targets.max_compatible_flagged else 'MISSED'}",
        "",
        f"LLM: {usage.calls} calls, {usage.prompt_tokens} prompt + {usage.completion_tokens} "
        f"completion tokens, ${usage.cost_usd:.4f}, {usage.cached_answers} cached answers",
    ]
    failures = report.failures
    lines += ["", f"Failures: {len(failures)}"]
    if failures:
        lines.append(
            f"{'id':<6}{'kind':<12}{'sim':>5}  {'verdict':<11}{'older':<{text_width}}  newer"
        )
    for result in failures:
        verdict = result.verdict.relation.value if result.verdict else "not judged"
        lines.append(
            f"{result.pair.id:<6}{result.pair.kind:<12}{result.similarity:>5.2f}  {verdict:<11}"
            f"{_cut(result.pair.older, text_width):<{text_width}}  "
            f"{_cut(result.pair.newer, text_width)}"
        )
        if result.verdict is not None:
            lines.append(f"{'':<36}why: {result.verdict.explanation}")
    return "\n".join(lines)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
