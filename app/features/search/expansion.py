"""Graph expansion of search hits: keyword sub-queries, conversational context and the
people a query names.

A search over a conversation's turns finds each turn on its own. A question's evidence
is often the turn next to the one that matched ("Did you paint it?" / "Yes, last
weekend"), or turns of the person the question is about that share one of its words but
not its whole meaning ("What activities does Melanie partake in?": pottery, camping,
swimming, each in another session). This step re-ranks a base search's candidate pool
(ask the base search for ``pool`` hits, more than ``k``) and returns the top ``k``:

- keyword sub-queries (offline, deterministic): the query's content words, each searched
  on its own; their hits join the candidates, and every candidate gains ``subquery`` x
  its best cosine to one of the words;
- agent mention: a thought whose agent (who said it) is named in the query gains
  ``agent`` (a bonus that is the same for every candidate changes nothing);
- session context: each candidate's neighbours in its session (the thoughts of the same
  ``sessionId`` written next to it, by the namespace's write order, within ``window_ms``)
  lend it ``context`` x the best of their scores, and a neighbour outside the pool can
  enter it the same way.

- named person's match: a thought of an agent the query names gains ``named_match`` x
  how far its best keyword cosine rises above ``named_match_floor``: turns by the person
  the question is about that also speak of one of its words ("What has Melanie painted?":
  each of her painting turns, in whichever session), not everything that person said;
- questions: a thought that asks (its text ends in "?") loses ``question``. It tells
  nothing itself, and a question is worded like the query, so "What instruments do you
  play?" would otherwise crowd out the answer it prompted; it still lends its score to
  its session neighbours (the answer usually follows it).

Scores: ``own + subquery x best word + agent x named + named_match x max(0, best word -
named_match_floor) x named`` (own: the base search's score for its hits, the cosine to the
query for the others; named: 1 for a thought of an agent the query names), then
``+ context x best neighbour - question x asks``.
The ranking is pure (:func:`candidates_of` collects each candidate's features,
:func:`scores` weighs them, :func:`best` ranks); the store reads (:func:`gather`) go through a
:class:`StoreExpansionReader` (the sub-queries all in one statement through
:class:`~thoughtgraph.features.search.neighbours_repository.NeighbourRepository`, the
session context through
:class:`~thoughtgraph.features.search.expansion_repository.ExpansionRepository`).
The weights, what was tried and left out, and their figures per category are in
docs/design/search.md (measured by ``thoughtgraph eval locomo``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from thoughtgraph.domain.models import ScoredThought, SearchHit, Thought, TimeView, now_ms
from thoughtgraph.domain.ranking.stopwords import STOPWORDS
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.search.expansion_repository import (
    CandidateSimilarity,
    ContextThought,
)
from thoughtgraph.ports.services import Embeddings

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[A-Za-z]")
_TRAILING_NOTE = re.compile(r"\s*\[[^\]]*\]\s*$")  # "... [shared a photo: ...]"


@dataclass(frozen=True)
class ExpansionWeights:
    context: float = 0.3  # share of the best session neighbour's score a candidate gains
    agent: float = 0.15  # bonus for a thought whose agent the query names
    subquery: float = 0.6  # share of the best keyword cosine a candidate gains
    subquery_k: int = 20  # hits read per keyword sub-query
    max_subqueries: int = 6
    window_ms: int = 10 * 60 * 1000  # how far in time a session neighbour may be
    per_anchor: int = 2  # neighbours read per candidate (its previous and next turns)
    named_match: float = 0.5  # share of a named agent's keyword cosine above the floor
    named_match_floor: float = 0.15  # keyword cosine that is no match at all
    question: float = 0.1  # penalty for a thought that asks rather than tells


class StoreExpansionReader:
    """The reads of the step, over one store."""

    def __init__(self, repos: Repositories) -> None:
        self._repos = repos
        self._nearest = repos.neighbours
        self._context = repos.expansion

    async def nearest(
        self,
        namespace: str,
        embeddings: Sequence[Sequence[float]],
        k: int,
        view: TimeView | None,
    ) -> list[list[ScoredThought]]:
        """What ``vector_search(embedding, k)`` finds for each embedding (no floor), all
        of them in one statement."""
        if not embeddings or not await self._repos.executor.searchable(namespace):
            return [[] for _ in embeddings]
        subjects = [(f"subquery:{i}", e) for i, e in enumerate(embeddings)]  # never a thought id
        found = await self._nearest.nearest(
            namespace, subjects, k, -1.0, view or TimeView(now_ms=now_ms())
        )
        return [found[sid] for sid, _ in subjects]

    async def similarities(
        self,
        namespace: str,
        ids: Sequence[str],
        query: Sequence[float],
        words: Sequence[Sequence[float]],
    ) -> dict[str, CandidateSimilarity]:
        return await self._context.similarities(namespace, ids, query, words)

    async def session_context(
        self,
        namespace: str,
        anchors: Sequence[Thought],
        *,
        window_ms: int,
        per_anchor: int,
        view: TimeView | None = None,
    ) -> list[ContextThought]:
        return await self._context.session_context(
            namespace, anchors, window_ms=window_ms, per_anchor=per_anchor, view=view
        )


async def gather(
    reader: StoreExpansionReader,
    embedder: Embeddings,
    namespace: str,
    query: str,
    hits: Sequence[SearchHit],
    *,
    weights: ExpansionWeights | None = None,
    view: TimeView | None = None,
    query_embedding: Sequence[float] | None = None,
) -> Candidates:
    """``hits`` (a base search's pool), the keyword sub-queries' hits and their session
    neighbours, each with what :func:`scores` weighs. ``query_embedding``: the base
    search's, when it has one (only the keywords are embedded then)."""
    w = weights or ExpansionWeights()
    names = {hit.thought.agent_name for hit in hits}
    words = subqueries(query, names, w.max_subqueries) if w.subquery > 0 else []
    if query_embedding is None:
        vectors = await embedder.async_embed_documents([query, *words])
    else:
        words_only = await embedder.async_embed_documents(words) if words else []
        vectors = [list(query_embedding), *words_only]
    found: dict[str, Thought] = {}
    for hits_of_word in await reader.nearest(namespace, vectors[1:], w.subquery_k, view):
        for scored in hits_of_word:
            found.setdefault(scored.thought.id, scored.thought)
    pool = {hit.thought.id: hit.thought for hit in hits}
    extra = [t for tid, t in found.items() if tid not in pool]
    anchors = [*pool.values(), *extra]
    context: list[ContextThought] = []
    if w.context > 0 and anchors:
        context = await reader.session_context(
            namespace, anchors, window_ms=w.window_ms, per_anchor=w.per_anchor, view=view
        )
    ids = dict.fromkeys([*(t.id for t in anchors), *(c.thought.id for c in context)])
    similar = await reader.similarities(namespace, list(ids), vectors[0], vectors[1:])
    return candidates_of(query, hits, extra, similar, context)


async def expand(
    reader: StoreExpansionReader,
    embedder: Embeddings,
    namespace: str,
    query: str,
    hits: Sequence[SearchHit],
    k: int,
    *,
    weights: ExpansionWeights | None = None,
    view: TimeView | None = None,
    query_embedding: Sequence[float] | None = None,
) -> list[SearchHit]:
    """The top ``k`` of ``hits`` (a base search's pool), the keyword sub-queries' hits and
    their session neighbours, re-ranked (:func:`gather`, then :func:`best`)."""
    w = weights or ExpansionWeights()
    found = await gather(
        reader,
        embedder,
        namespace,
        query,
        hits,
        weights=w,
        view=view,
        query_embedding=query_embedding,
    )
    return best(found, k, w)


@dataclass(frozen=True)
class Candidates:
    """The candidates of one expanded search in order of arrival (the base hits first),
    with the features the weights apply to, one entry per candidate."""

    hits: list[SearchHit]
    own: npt.NDArray[np.float64]  # the base search's score, or the cosine to the query
    best_word: npt.NDArray[np.float64]  # the best cosine to one of the keywords
    named: npt.NDArray[np.float64]  # 1 for a thought of an agent the query names
    asks: npt.NDArray[np.float64]  # 1 for a thought that asks
    neighbours: npt.NDArray[np.int64]  # session neighbours' positions, padded with len(hits)


def candidates_of(
    query: str,
    hits: Sequence[SearchHit],
    extra: Sequence[Thought],
    similarities: Mapping[str, CandidateSimilarity],
    context: Iterable[ContextThought],
) -> Candidates:
    """The candidates (``hits``, then ``extra`` and the ``context`` neighbours not among
    them, scored by their cosine to the query) with their features."""
    candidates: dict[str, SearchHit] = {hit.thought.id: hit for hit in hits}
    links: dict[str, set[str]] = {}
    newcomers = list(extra)
    for item in context:
        newcomers.append(item.thought)
        links.setdefault(item.anchor_id, set()).add(item.thought.id)
        links.setdefault(item.thought.id, set()).add(item.anchor_id)
    for thought in newcomers:
        if thought.id in candidates:
            continue
        found = similarities.get(thought.id)
        similarity = found.query if found else 0.0
        candidates[thought.id] = SearchHit(thought=thought, similarity=similarity, score=similarity)
    listed = list(candidates.values())
    named = mentioned_agents(query, {hit.thought.agent_name for hit in listed})
    best_word = np.zeros(len(listed))
    for i, hit in enumerate(listed):
        found = similarities.get(hit.thought.id)
        if found is not None and found.words:
            best_word[i] = max(found.words)
    position = {hit.thought.id: i for i, hit in enumerate(listed)}
    rows = [
        sorted(position[n] for n in links.get(h.thought.id, ()) if n in position) for h in listed
    ]
    width = max((len(row) for row in rows), default=0) or 1
    padded = np.full((len(listed), width), len(listed), dtype=np.int64)
    for i, row in enumerate(rows):
        padded[i, : len(row)] = row
    return Candidates(
        hits=listed,
        own=np.array([hit.score for hit in listed], dtype=np.float64),
        best_word=best_word,
        named=np.array([1.0 if h.thought.agent_name in named else 0.0 for h in listed]),
        asks=np.array([1.0 if asks(h.thought.content) else 0.0 for h in listed]),
        neighbours=padded,
    )


def scores(found: Candidates, weights: ExpansionWeights) -> npt.NDArray[np.float64]:
    """Each candidate's expanded score (the formula in the module's docstring). The best
    neighbour's score counts from 0: the padding position reads 0."""
    base = found.own + weights.subquery * found.best_word
    base = base + weights.agent * found.named
    lift = np.maximum(0.0, found.best_word - weights.named_match_floor)
    base = base + weights.named_match * lift * found.named
    support = np.append(base, 0.0)[found.neighbours].max(axis=1)
    result: npt.NDArray[np.float64] = (
        base + weights.context * support - weights.question * found.asks
    )
    return result


def best(found: Candidates, k: int, weights: ExpansionWeights) -> list[SearchHit]:
    """The best ``k`` candidates, each carrying its expanded score; ties keep the order
    of arrival."""
    values = scores(found, weights)
    return [
        found.hits[int(i)].model_copy(update={"score": float(values[i])})
        for i in np.argsort(-values, kind="stable")[:k]
    ]


def subqueries(query: str, agent_names: Iterable[str], limit: int) -> list[str]:
    """The query's content words, in order, once each: no stopwords, no agent names
    (the agent cue covers them), no possessives of names, at least three letters."""
    names = {name.lower() for name in agent_names}
    words: list[str] = []
    for match in _WORD.finditer(query):
        word = match.group(0)
        lower = word.lower()
        bare = lower[:-2] if lower.endswith("'s") else lower
        if len(bare) < 3 or bare in STOPWORDS or bare in names or word in words:
            continue
        words.append(word)
    return words[:limit]


def asks(content: str) -> bool:
    """Whether a thought is a question: its text, less a trailing bracketed note (a
    shared photo's caption), ends in a question mark."""
    return _TRAILING_NOTE.sub("", content).rstrip().endswith("?")


def mentioned_agents(query: str, names: Iterable[str]) -> set[str]:
    """The agent names the query mentions as whole words (case-insensitive)."""
    found = set()
    for name in names:
        if name.strip() and re.search(rf"(?<!\w){re.escape(name.strip())}(?!\w)", query, re.I):
            found.add(name)
    return found
