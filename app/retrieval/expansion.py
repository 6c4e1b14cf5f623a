"""Graph expansion of search hits: conversational context and the people a query names.

A search over a conversation's turns finds each turn on its own; a question's evidence
is often the turn next to the one that matched ("Did you paint it?" / "Yes, last
weekend") or any turn of the person the question is about. This step re-ranks a base
search's candidate pool (ask the base search for ``pool`` hits, more than ``k``) with two
cues read from the graph, then returns the top ``k``:

- session context: each candidate's neighbours in its session (the thoughts of the same
  ``sessionId`` written nearest in time to it, read through
  :class:`~app.store.repositories.expansion.ExpansionRepository`) lend it
  ``context`` x the best of their own scores, and a neighbour outside the pool can enter
  it the same way (its own score is its cosine similarity to the query);
- agent mention: a thought whose agent (who said it) is named in the query gains
  ``agent`` (a bonus that is the same for every candidate changes nothing).

The ranking (:func:`rerank`) is pure and separate from the store read (:func:`expand`),
so it plugs after any base search (vector or hybrid) that returns :class:`SearchHit`\\ s.
The weights were tuned on the LoCoMo dev set (``thoughtgraph eval locomo``); the figures
per category are in the command's output. RELATED_TO neighbours (similarity links) were
tried in that tuning and left out: they bring back what the vector search already ranks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from app.domain.models import SearchHit, Thought, TimeView
from app.store.repositories.expansion import ContextThought


@dataclass(frozen=True)
class ExpansionWeights:
    context: float = 0.3  # share of the best session neighbour's score a candidate gains
    agent: float = 0.1  # bonus for a thought whose agent the query names
    window_ms: int = 10 * 60 * 1000  # how far in time a session neighbour may be
    per_anchor: int = 2  # neighbours read per candidate (its previous and next turns)


class ContextReader(Protocol):
    async def session_context(
        self,
        namespace: str,
        anchors: Sequence[Thought],
        *,
        window_ms: int,
        per_anchor: int,
        view: TimeView | None = None,
    ) -> list[ContextThought]: ...


async def expand(
    reader: ContextReader,
    namespace: str,
    query: str,
    query_embedding: Sequence[float],
    hits: Sequence[SearchHit],
    k: int,
    *,
    weights: ExpansionWeights | None = None,
    view: TimeView | None = None,
) -> list[SearchHit]:
    """The top ``k`` of ``hits`` (a base search's pool) and their session neighbours,
    re-ranked by :func:`rerank`. One store read for the whole pool."""
    chosen = weights or ExpansionWeights()
    context: list[ContextThought] = []
    if chosen.context > 0 and hits:
        context = await reader.session_context(
            namespace,
            [hit.thought for hit in hits],
            window_ms=chosen.window_ms,
            per_anchor=chosen.per_anchor,
            view=view,
        )
    return rerank(query, query_embedding, hits, context, k, chosen)


def rerank(
    query: str,
    query_embedding: Sequence[float],
    hits: Sequence[SearchHit],
    context: Iterable[ContextThought],
    k: int,
    weights: ExpansionWeights,
) -> list[SearchHit]:
    """Candidates (the hits, then context thoughts not among them) scored
    ``own + context x best neighbour's own + agent x named``; best first, ``k`` of them.
    Ties keep the base order."""
    candidates: dict[str, SearchHit] = {hit.thought.id: hit for hit in hits}
    own = {tid: hit.score for tid, hit in candidates.items()}
    neighbours: dict[str, set[str]] = {}
    newcomers = _newcomers(query_embedding, context, candidates)
    for item in context:
        a, b = item.anchor_id, item.thought.id
        neighbours.setdefault(a, set()).add(b)
        neighbours.setdefault(b, set()).add(a)
    for hit in newcomers:
        candidates[hit.thought.id] = hit
        own[hit.thought.id] = hit.score
    named = mentioned_agents(query, {hit.thought.agent_name for hit in candidates.values()})
    scored = []
    for position, (tid, hit) in enumerate(candidates.items()):
        support = max((own[n] for n in neighbours.get(tid, ()) if n in own), default=0.0)
        score = own[tid] + weights.context * max(support, 0.0)
        if hit.thought.agent_name in named:
            score += weights.agent
        scored.append((-score, position, hit.model_copy(update={"score": score})))
    scored.sort(key=lambda item: (item[0], item[1]))
    return [hit for _, _, hit in scored[:k]]


def _newcomers(
    query_embedding: Sequence[float],
    context: Iterable[ContextThought],
    known: dict[str, SearchHit],
) -> list[SearchHit]:
    """Context thoughts outside the pool as hits scored by their cosine to the query."""
    fresh: dict[str, SearchHit] = {}
    query = _unit(query_embedding)
    for item in context:
        tid = item.thought.id
        if tid in known or tid in fresh or not item.embedding:
            continue
        similarity = float(np.dot(query, _unit(item.embedding)))
        fresh[tid] = SearchHit(thought=item.thought, similarity=similarity, score=similarity)
    return list(fresh.values())


def mentioned_agents(query: str, names: Iterable[str]) -> set[str]:
    """The agent names the query mentions as whole words (case-insensitive)."""
    found = set()
    for name in names:
        if name.strip() and re.search(rf"(?<!\w){re.escape(name.strip())}(?!\w)", query, re.I):
            found.add(name)
    return found


def _unit(vector: Sequence[float]) -> np.ndarray:
    array = np.asarray(vector, dtype=np.float64)
    norm = float(np.linalg.norm(array))
    return array / norm if norm > 0 else array
