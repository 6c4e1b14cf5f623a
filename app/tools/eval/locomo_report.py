"""Evidence recall tables for ``thoughtgraph eval locomo``: per category, "all" (every
evidence turn in the top k) and "any" (at least one), strategies side by side."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from thoughtgraph.tools.eval.locomo import CATEGORIES, HEADLINE_CATEGORIES
from thoughtgraph.tools.eval.locomo_run import EvalRun, QuestionResult

# Targets of issue 7 on the dev set (categories 1-4, all@10).
TARGET_MULTI_HOP_ALL10 = 25.0
TARGET_GAIN_ALL10 = 10.0
_CATEGORY_LABELS = {f"{c} {CATEGORIES[c]}" for c in HEADLINE_CATEGORIES}


@dataclass(frozen=True)
class Recall:
    questions: int
    all_hits: dict[int, int]  # k -> questions with every evidence turn in the top k
    any_hits: dict[int, int]

    def all_at(self, k: int) -> float:
        return 100.0 * self.all_hits[k] / self.questions if self.questions else 0.0

    def any_at(self, k: int) -> float:
        return 100.0 * self.any_hits[k] / self.questions if self.questions else 0.0


def recall(results: Sequence[QuestionResult], strategy: str, ks: Sequence[int]) -> Recall:
    all_hits = dict.fromkeys(ks, 0)
    any_hits = dict.fromkeys(ks, 0)
    for result in results:
        evidence = set(result.question.evidence)
        ranked = result.ranked[strategy]
        for k in ks:
            top = set(ranked[:k])
            all_hits[k] += evidence <= top
            any_hits[k] += bool(evidence & top)
    return Recall(questions=len(results), all_hits=all_hits, any_hits=any_hits)


def groups(run: EvalRun) -> list[tuple[str, list[QuestionResult]]]:
    by_category = {c: [r for r in run.results if r.question.category == c] for c in CATEGORIES}
    groups = [(f"{c} {CATEGORIES[c]}", by_category[c]) for c in HEADLINE_CATEGORIES]
    headline = [r for r in run.results if r.question.category in HEADLINE_CATEGORIES]
    groups.append(("1-4 together", headline))
    groups.append((f"5 {CATEGORIES[5]}", by_category[5]))
    other = [r for r in run.results if r.question.category not in CATEGORIES]
    if other:
        groups.append(("other categories", other))
    return groups


def render(run: EvalRun) -> str:
    """One table for "all", one for "any": a row per category, per strategy a column
    group of recall@k (percent)."""
    lines = [
        f"LoCoMo evidence recall: engine {run.engine}, {run.conversations} conversations, "
        f"{run.turns} turns, {len(run.results)} questions ({run.skipped_questions} without "
        f"evidence skipped, {run.dropped_evidence} evidence ids naming no turn dropped)",
        f"Ingestion {run.ingest_s:.1f} s"
        + ("; asking " if run.ask_s else "")
        + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in run.ask_s.items()),
    ]
    for mode in ("all", "any"):
        lines += ["", *_table(run, mode)]
    lines += ["", *_targets(run), "", f"Total {run.total_s:.1f} s"]
    return "\n".join(lines)


def _table(run: EvalRun, mode: str) -> list[str]:
    ks = run.ks
    width = max(6 * len(ks), len(max(run.strategies, key=len))) + 2
    header = f"{mode + '@k':<22}{'n':>5}  " + "".join(f"{s:>{width}}" for s in run.strategies)
    ks_row = f"{'':<22}{'':>5}  " + "".join(
        f"{''.join(f'{k:>6}' for k in ks):>{width}}" for _ in run.strategies
    )
    lines = [header, ks_row]
    for label, results in groups(run):
        cells = []
        for strategy in run.strategies:
            found = recall(results, strategy, ks)
            values = [found.all_at(k) if mode == "all" else found.any_at(k) for k in ks]
            cells.append(f"{''.join(f'{v:>6.1f}' for v in values):>{width}}")
        lines.append(f"{label:<22}{len(results):>5}  " + "".join(cells))
    return lines


def _targets(run: EvalRun) -> list[str]:
    """Issue 7's targets, checked for every strategy against plain vector search."""
    if "vector" not in run.strategies or 10 not in run.ks:
        return ["(targets need the vector strategy and k = 10)"]
    by_label = dict(groups(run))
    headline = by_label["1-4 together"]
    base = recall(headline, "vector", [10]).all_at(10)
    lines = [
        f"Targets (all@10): multi-hop >= {TARGET_MULTI_HOP_ALL10:.0f}; categories 1-4 "
        f">= vector + {TARGET_GAIN_ALL10:.0f} ({base:.1f} + {TARGET_GAIN_ALL10:.0f}); "
        "every category above vector"
    ]
    for strategy in run.strategies:
        if strategy == "vector":
            continue
        multi = recall(by_label[f"1 {CATEGORIES[1]}"], strategy, [10]).all_at(10)
        overall = recall(headline, strategy, [10]).all_at(10)
        beaten = [
            label
            for label, results in groups(run)
            if label in _CATEGORY_LABELS
            and results
            and recall(results, strategy, [10]).all_at(10)
            <= recall(results, "vector", [10]).all_at(10)
        ]
        ok = multi >= TARGET_MULTI_HOP_ALL10 and overall >= base + TARGET_GAIN_ALL10 and not beaten
        lines.append(
            f"  {strategy}: multi-hop {multi:.1f}, 1-4 {overall:.1f} ({overall - base:+.1f}), "
            f"not above vector in: {', '.join(beaten) or 'none'} -> {'met' if ok else 'MISSED'}"
        )
    return lines
