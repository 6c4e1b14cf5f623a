"""``thoughtgraph eval fusion``: the hybrid search's fusion weight chosen on training folds
and reported on the conversation left out.

Per conversation every turn is embedded once (the configured embedder) and every
question scored the way the service scores a search's candidates: the vector side's 30
nearest turns and the keyword side's 100 best BM25 matches (``domain.ranking.keywords``,
with the conversation's exact word counts and size) form the pool; each candidate's
relevance is ``w x closeness + (1 - w) x keyword`` (``domain.ranking.scoring``). The
weight ``w`` is chosen, per fold, on the other conversations (all@10, categories 1-4) and
the left-out conversation's figures are printed beside BM25 alone (``bm25s``), vector
alone and the service's keyword side alone, with the weight each fold chose and the
shipped default. In-process and without the priors (no usage, salience or lineage): the
figure isolates the fusion; ``eval locomo`` measures the whole search over GraphQL.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from thoughtgraph.domain.ranking import keywords, scoring
from thoughtgraph.tools.eval.fold_report import Outcome, render_folds
from thoughtgraph.tools.eval.folds import choose_on_train, folds_by, spread
from thoughtgraph.tools.eval.locomo import (
    HEADLINE_CATEGORIES,
    Conversation,
    load_conversations,
)
from thoughtgraph.tools.eval.references import Bm25Reference

VECTOR_POOL = 30  # the service's pool for k = 10 (features/search/ranking.py)
KEYWORD_POOL = 100  # its MIN_TEXT_POOL
WEIGHTS = tuple(round(0.05 * i, 2) for i in range(21))
K = 10


@dataclass(frozen=True)
class Scored:
    """One question's per-turn scores, with what is needed to rank them any way."""

    sample_id: str
    category: int
    evidence: frozenset[int]  # turn positions
    cosine: np.ndarray
    bm25: np.ndarray
    bm25s_ranked: tuple[int, ...]  # the reference's ranking, best first


def fused_ranking(q: Scored, weight: float) -> list[int]:
    vector = [int(i) for i in np.argsort(-q.cosine, kind="stable")[:VECTOR_POOL]]
    keyword = [int(i) for i in np.argsort(-q.bm25, kind="stable")[:KEYWORD_POOL] if q.bm25[i] > 0]
    pool = list(dict.fromkeys(vector + keyword))
    near = scoring.closeness([max(0.0, float(q.cosine[i])) for i in pool])
    words = keywords.normalised([float(q.bm25[i]) for i in pool])
    relevance = {
        i: scoring.relevance_of(n, w, weight) for i, n, w in zip(pool, near, words, strict=True)
    }
    return sorted(pool, key=lambda i: -relevance[i])  # stable: vector order on ties


def answered(q: Scored, ranked: Sequence[int]) -> bool:
    return q.evidence <= set(ranked[:K])


def all_at_k(weight: float, items: Sequence[Scored]) -> float:
    if not items:
        return 0.0
    return 100.0 * sum(answered(q, fused_ranking(q, weight)) for q in items) / len(items)


def outcomes(items: Sequence[Scored], rank: Callable[[Scored], Sequence[int]]) -> list[Outcome]:
    return [Outcome(q.sample_id, q.category, answered(q, rank(q))) for q in items]


def scored_questions(
    conversation: Conversation, turn_vectors: np.ndarray, question_vectors: np.ndarray
) -> list[Scored]:
    turns = conversation.turns
    position = {turn.dia_id: i for i, turn in enumerate(turns)}
    counted = [Counter(keywords.words(turn.content)) for turn in turns]
    reference = Bm25Reference(turns)
    found: list[Scored] = []
    for question, vector in zip(conversation.questions, question_vectors, strict=True):
        matches = {
            word: sum(1 for c in counted if c[keywords.stem(word)])
            for word in keywords.query_words(question.text)
        }
        statistics = keywords.KeywordStatistics(namespace_size=len(turns), matches=matches)
        bm25 = keywords.bm25_scores(
            question.text, {str(i): turn.content for i, turn in enumerate(turns)}, statistics
        )
        found.append(
            Scored(
                sample_id=conversation.sample_id,
                category=question.category,
                evidence=frozenset(position[e] for e in question.evidence),
                cosine=turn_vectors @ vector,
                bm25=np.asarray([bm25[str(i)] for i in range(len(turns))]),
                bm25s_ranked=tuple(position[d] for d in reference.rank(question.text, K)),
            )
        )
    return found


def fold_choices(items: Sequence[Scored]) -> list[tuple[str, float, float, float]]:
    """Per left-out conversation: the weight chosen on the others (categories 1-4), its
    training figure and its left-out figure."""
    headline = [q for q in items if q.category in HEADLINE_CATEGORIES]
    chosen = []
    for fold in folds_by(lambda q: q.sample_id, headline):
        choice = choose_on_train(WEIGHTS, all_at_k, fold)
        chosen.append((str(fold.held_out), choice.value, choice.train_score, choice.test_score))
    return chosen


def render(items: Sequence[Scored]) -> str:
    choices = fold_choices(items)
    weight_of = {held_out: weight for held_out, weight, _, _ in choices}
    rows = [
        ("BM25 alone (bm25s)", outcomes(items, lambda q: q.bm25s_ranked)),
        ("vector alone", outcomes(items, lambda q: _best_first(q.cosine))),
        ("keyword side alone", outcomes(items, lambda q: _best_first(q.bm25))),
        (
            "fused, weight from training",
            outcomes(items, lambda q: fused_ranking(q, weight_of.get(q.sample_id, 0.5))),
        ),
        (
            f"fused, shipped w={scoring.VECTOR_WEIGHT}",
            outcomes(items, lambda q: fused_ranking(q, scoring.VECTOR_WEIGHT)),
        ),
    ]
    lines = [
        render_folds("Evidence all@10 per left-out conversation (in-process, no priors)", rows)
    ]
    lines.append("")
    lines.append("Vector weight chosen on the training folds (categories 1-4, all@10):")
    lines.append(f"{'left out':<14}{'weight':>8}{'train':>8}{'left-out':>10}")
    for held_out, weight, train, test in choices:
        lines.append(f"{held_out:<14}{weight:>8.2f}{train:>8.1f}{test:>10.1f}")
    lines.append(f"{'left-out mean [min-max]':<30}{spread([c[3] for c in choices])}")
    return "\n".join(lines)


async def run_fusion_command(settings: object, args: argparse.Namespace) -> int:
    from thoughtgraph.llm.embedders import build_embedder
    from thoughtgraph.settings import Settings

    assert isinstance(settings, Settings)
    conversations = load_conversations(args.path)
    embedder = await build_embedder(settings)
    items: list[Scored] = []
    for conversation in conversations:
        turns = await embedder.async_embed_documents([t.content for t in conversation.turns])
        questions = await embedder.async_embed_documents([q.text for q in conversation.questions])
        items.extend(
            scored_questions(
                conversation,
                _unit_rows(np.asarray(turns, dtype=np.float64)),
                _unit_rows(np.asarray(questions, dtype=np.float64)),
            )
        )
    print(
        f"LoCoMo fusion: embedder {settings.embedder.value}, {len(conversations)} conversations,"
        f" {len(items)} questions; pool: {VECTOR_POOL} nearest + {KEYWORD_POOL} best BM25"
    )
    print(render(items))
    return 0


def _best_first(scores: np.ndarray) -> list[int]:
    return [int(i) for i in np.argsort(-scores, kind="stable")[:K]]


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    if matrix.size == 0:
        return matrix
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: np.ndarray = matrix / np.maximum(norms, 1e-12)
    return unit
