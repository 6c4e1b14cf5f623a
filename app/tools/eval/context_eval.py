"""``thoughtgraph eval context PATH``: for the LoCoMo questions, the share whose evidence
turns all appear in ``assembleContext(budget)`` (the query signal is the question), per
category and budget, with the mean tokens the context used.

It runs on the same ingestion as ``eval locomo`` (app/tools/eval/locomo_run.py): each budget is
a strategy whose "ranking" is every thought the assembled context shows, in any tier and
at any compression level (its ``ids``), so "all evidence in the top k" with k above any
context's size is "all evidence in the context".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from thoughtgraph.domain.context.model import Signals
from thoughtgraph.domain.models import SearchHit
from thoughtgraph.features.services import Services
from thoughtgraph.tools.eval.locomo import CATEGORIES
from thoughtgraph.tools.eval.locomo_report import groups, recall
from thoughtgraph.tools.eval.locomo_run import EvalClock, EvalRun, PrecomputedEmbeddings
from thoughtgraph.tools.eval.locomo_strategies import Retriever

BUDGETS = (2000, 4000, 8000)
EVERYTHING = 1_000_000  # a k above any context's size: the whole context counts


class ContextRetriever:
    """One budget: the thoughts ``services.context.assemble`` puts in the context."""

    def __init__(self, services: Services, budget: int) -> None:
        self.services, self.budget = services, budget
        self.name = f"budget {budget}"
        self.tokens: list[int] = []

    async def search(self, namespace: str, query: str, k: int) -> list[SearchHit]:
        del k  # the context decides how much it holds
        assembled = await self.services.context.assemble(
            namespace, budget=self.budget, signals=Signals(query=query)
        )
        self.tokens.append(assembled.packing.token_count)
        ids = assembled.packing.ids
        found = await self.services.repos.thoughts.get_many(namespace, ids)
        return [
            SearchHit(thought=found[tid], similarity=0.0, score=0.0) for tid in ids if tid in found
        ]


@dataclass
class ContextStrategies:
    """A ``build_strategies`` for :func:`~thoughtgraph.tools.eval.locomo_run.run_locomo`:
    one strategy per budget, kept for the table (their token counts)."""

    budgets: Sequence[int]
    built: list[ContextRetriever] = field(default_factory=list)

    def __call__(
        self, services: Services, embedder: PrecomputedEmbeddings, clock: EvalClock
    ) -> list[Retriever]:
        del embedder, clock  # the services were built over them already
        self.built = [ContextRetriever(services, budget) for budget in self.budgets]
        return list(self.built)


def render_context(run: EvalRun, retrievers: Sequence[ContextRetriever]) -> str:
    """One row per budget: the share of questions (percent) with all their evidence turns
    in the context, per category, and the mean tokens used."""
    labelled = groups(run)
    width = max(len(label) for label, _ in labelled) + 2
    lines = [
        f"LoCoMo evidence in assembleContext: engine {run.engine}, {run.conversations} "
        f"conversations, {run.turns} turns, {len(run.results)} questions",
        f"Ingestion {run.ingest_s:.1f} s; assembling "
        + ", ".join(f"{name} {seconds:.1f} s" for name, seconds in run.ask_s.items()),
        "",
        f"{'budget':<8}" + "".join(f"{label:>{width}}" for label, _ in labelled) + "  mean tokens",
        f"{'':<8}" + "".join(f"{f'n={len(results)}':>{width}}" for _, results in labelled),
    ]
    for retriever in retrievers:
        shares = [
            recall(results, retriever.name, [EVERYTHING]).all_at(EVERYTHING)
            for _, results in labelled
        ]
        mean = sum(retriever.tokens) / len(retriever.tokens) if retriever.tokens else 0.0
        lines.append(
            f"{retriever.budget:<8}"
            + "".join(f"{share:>{width}.1f}" for share in shares)
            + f"  {mean:>11.0f}"
        )
    lines.append("")
    lines.append(
        "A question counts when every evidence turn is among the thoughts the context shows "
        f"(any tier, any compression level); categories: {', '.join(CATEGORIES.values())}."
    )
    lines.append(f"Total {run.total_s:.1f} s")
    return "\n".join(lines)
