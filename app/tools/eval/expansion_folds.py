"""``thoughtgraph eval expansion``: the graph expansion's weights chosen on training folds
and reported on the conversation left out.

Each conversation is ingested through the services (as ``eval locomo`` does); for every
question the search service's hybrid pool (50 hits, the expansion's ``EXPANSION_POOL``)
is expanded once (``expansion.gather``: keyword sub-queries, session neighbours, with the
shipped read settings), and the expansion's score weights (``context``, ``agent``,
``subquery``, ``named_match``, ``question``) are then chosen on the other conversations
from a grid (all@10, categories 1-4) and applied to the left-out one
(``expansion.scores``: the service's own formula). The re-rank runs in-process without
the search's admission step (nothing is filtered or superseded in these conversations),
so its shipped-weights row should match the service's full search row beside it.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from thoughtgraph.domain.models import SearchHit, TimeView
from thoughtgraph.features.search.expanded import EXPANSION_POOL
from thoughtgraph.features.search.expansion import (
    Candidates,
    ExpansionWeights,
    StoreExpansionReader,
    gather,
    scores,
)
from thoughtgraph.features.search.service import SearchService
from thoughtgraph.features.services import Services
from thoughtgraph.ports.services import Embeddings
from thoughtgraph.settings import Settings
from thoughtgraph.tools.eval.fold_report import Outcome, render_folds
from thoughtgraph.tools.eval.folds import choose_on_train, folds_by, spread
from thoughtgraph.tools.eval.locomo import HEADLINE_CATEGORIES, Conversation
from thoughtgraph.tools.eval.locomo_command import load_for_command, run_on_conversations
from thoughtgraph.tools.eval.locomo_run import EvalClock, PrecomputedEmbeddings, asking_view
from thoughtgraph.tools.eval.locomo_strategies import (
    FULL,
    HYBRID,
    NO_THRESHOLD,
    Retriever,
    ServiceRetriever,
    VectorRetriever,
)
from thoughtgraph.tools.eval.references import Bm25Reference

K = 10
SHIPPED = ExpansionWeights()
GRID: dict[str, tuple[float, ...]] = {
    "context": (0.15, 0.3, 0.45, 0.6),
    "agent": (0.0, 0.15, 0.3),
    "subquery": (0.3, 0.6, 0.9),
    "named_match": (0.0, 0.25, 0.5, 1.0),
    "question": (0.0, 0.1, 0.2),
}
CAPTURE = "expansion-capture"


def grid() -> list[ExpansionWeights]:
    """Every combination of the grid's values; the shipped weights first, so a tie keeps
    them."""
    combos = [
        dataclasses.replace(SHIPPED, context=c, agent=a, subquery=s, named_match=n, question=q)
        for c, a, s, n, q in itertools.product(*GRID.values())
    ]
    return [SHIPPED, *(w for w in combos if w != SHIPPED)]


@dataclass(frozen=True)
class Asked:
    """One question's expansion candidates, with their turn ids."""

    sample_id: str
    category: int
    evidence: frozenset[str]
    turns: tuple[str, ...]  # per candidate position
    found: Candidates


def top_turns(item: Asked, weights: ExpansionWeights) -> list[str]:
    order = np.argsort(-scores(item.found, weights), kind="stable")[:K]
    return [item.turns[int(i)] for i in order]


def answered(item: Asked, weights: ExpansionWeights) -> bool:
    return item.evidence <= set(top_turns(item, weights))


def all_at_k(weights: ExpansionWeights, items: Sequence[Asked]) -> float:
    if not items:
        return 0.0
    return 100.0 * sum(answered(q, weights) for q in items) / len(items)


class CapturingRetriever:
    """The hybrid pool expanded once per question; returns every candidate in order of
    arrival and keeps their features for the weight search."""

    name = CAPTURE

    def __init__(
        self,
        search: SearchService,
        reader: StoreExpansionReader,
        embedder: Embeddings,
        view: Callable[[], TimeView],
    ) -> None:
        self._search, self._reader, self._embedder, self._view = search, reader, embedder, view
        self.captured: list[Candidates] = []

    async def search(self, namespace: str, query: str, k: int) -> list[SearchHit]:
        view = self._view()
        pool = await self._search.search(
            namespace, query, k=EXPANSION_POOL, threshold=NO_THRESHOLD, view=view, options=HYBRID
        )
        found = await gather(self._reader, self._embedder, namespace, query, pool, view=view)
        self.captured.append(found)
        return found.hits


@dataclass
class Strategies:
    capture: CapturingRetriever | None = None

    def __call__(
        self, services: Services, embedder: PrecomputedEmbeddings, clock: EvalClock
    ) -> list[Retriever]:
        view = asking_view(clock)
        reader = StoreExpansionReader(services.repos)
        self.capture = CapturingRetriever(services.search, reader, embedder, view)
        return [
            VectorRetriever(services.repos, embedder, view),
            ServiceRetriever("hybrid", services.search, view, HYBRID),
            ServiceRetriever("full", services.search, view, FULL),
            self.capture,
        ]


def fold_choices(items: Sequence[Asked]) -> list[tuple[str, ExpansionWeights, float, float]]:
    headline = [q for q in items if q.category in HEADLINE_CATEGORIES]
    candidates = grid()
    chosen = []
    for fold in folds_by(lambda q: q.sample_id, headline):
        choice = choose_on_train(candidates, all_at_k, fold)
        chosen.append((str(fold.held_out), choice.value, choice.train_score, choice.test_score))
    return chosen


def render(
    items: Sequence[Asked], baselines: Sequence[tuple[str, Sequence[Outcome]]], folds: int
) -> str:
    choices = fold_choices(items)
    weights_of = {held_out: w for held_out, w, _, _ in choices}
    rows = [
        *baselines,
        (
            "expansion, shipped weights",
            [Outcome(q.sample_id, q.category, answered(q, SHIPPED)) for q in items],
        ),
        (
            "expansion, from training",
            [Outcome(q.sample_id, q.category, answered(q, weights_of[q.sample_id])) for q in items],
        ),
    ]
    lines = [render_folds(f"Evidence all@{K} per left-out conversation ({folds} folds)", rows)]
    lines += ["", "Weights chosen on the training folds (categories 1-4, all@10):"]
    lines.append(
        f"{'left out':<12}{'context':>8}{'agent':>7}{'subq':>6}{'named':>7}{'quest':>7}"
        f"{'train':>8}{'left-out':>10}{'shipped':>9}"
    )
    for held_out, w, train, test in choices:
        shipped = all_at_k(
            SHIPPED,
            [q for q in items if q.sample_id == held_out and q.category in HEADLINE_CATEGORIES],
        )
        lines.append(
            f"{held_out:<12}{w.context:>8.2f}{w.agent:>7.2f}{w.subquery:>6.2f}"
            f"{w.named_match:>7.2f}{w.question:>7.2f}{train:>8.1f}{test:>10.1f}{shipped:>9.1f}"
        )
    lines.append(f"{'left-out mean [min-max]':<30}{spread([c[3] for c in choices])}")
    return "\n".join(lines)


def bm25_outcomes(conversations: Sequence[Conversation]) -> list[Outcome]:
    found = []
    for conversation in conversations:
        reference = Bm25Reference(conversation.turns)
        for question in conversation.questions:
            top = set(reference.rank(question.text, K))
            found.append(
                Outcome(conversation.sample_id, question.category, set(question.evidence) <= top)
            )
    return found


async def run_expansion_command(settings: Settings, args: argparse.Namespace) -> int:
    conversations = load_for_command(args, "expansion")
    if conversations is None:
        return 2
    built = Strategies()
    run = await run_on_conversations(settings, args, built, (K,), "expansion")
    if run is None or built.capture is None:
        return 2
    items: list[Asked] = []
    rows: dict[str, list[Outcome]] = {"vector": [], "hybrid": [], "full": []}
    for result, found in zip(run.results, built.capture.captured, strict=True):
        turns = result.ranked[CAPTURE]
        if len(turns) != len(found.hits):
            raise RuntimeError("every expansion candidate must be a conversation turn")
        question = result.question
        evidence = frozenset(question.evidence)
        items.append(Asked(result.sample_id, question.category, evidence, tuple(turns), found))
        for name, outcomes in rows.items():
            top = set(result.ranked[name][:K])
            outcomes.append(Outcome(result.sample_id, question.category, evidence <= top))
    print(
        f"LoCoMo expansion weights: {len(conversations)} conversations, {len(items)} questions,"
        f" {len(grid())} weight combinations; engine {run.engine}"
    )
    table: list[tuple[str, Sequence[Outcome]]] = [
        ("BM25 alone (bm25s)", bm25_outcomes(conversations)),
        ("vector alone", rows["vector"]),
        ("hybrid (service)", rows["hybrid"]),
        ("full search (service)", rows["full"]),
    ]
    print(render(items, table, run.conversations))
    return 0
