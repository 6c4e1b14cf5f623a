"""The retrieval expansion step on both engines: a hit's session neighbour, which the
base search did not return, is brought in through the graph; other sessions, far-off
turns and thoughts not yet valid in the view are not; the turns of the person a question
names that speak of its keyword, in different sessions, rank above the other speaker's
near-copies of the question. The pure ranking is checked on its own too."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from tests.conftest import CONTRACT_DIMENSION
from tests.support import LoopThread, field_changes, repos
from thoughtgraph.domain.models import SearchHit, Thought, ThoughtType, TimeView
from thoughtgraph.features.search.expansion import (
    ExpansionWeights,
    StoreExpansionReader,
    asks,
    best,
    candidates_of,
    expand,
    mentioned_agents,
    subqueries,
)
from thoughtgraph.features.search.expansion_repository import CandidateSimilarity, ContextThought
from thoughtgraph.features.thoughts.service import ThoughtInput, ThoughtService
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.llm.embedders.hashing import HashEmbedder
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.tools.eval.locomo_run import EvalClock

T0 = 1_700_000_000_000
MINUTE = 60_000


def _write(
    loop: LoopThread,
    thoughts: ThoughtService,
    clock: EvalClock,
    ns: str,
    content: str,
    *,
    at: int,
    session: str | None,
    agent: str,
) -> Thought:
    clock.at_ms = at
    written = loop.run(
        thoughts.contribute(
            ThoughtInput(
                content=content,
                agent_id=agent.lower(),
                agent_name=agent,
                namespace=ns,
                session_id=session,
                valid_from_ms=at,
            )
        )
    )
    return written.thought


def test_second_evidence_only_reachable_through_the_session(
    store: CypherGraphStore, loop: LoopThread, ns: str
) -> None:
    embedder = HashEmbedder(dimension=CONTRACT_DIMENSION)
    clock = EvalClock()
    thoughts = ThoughtService(
        repos(store), embedder, clock=clock, fields=field_changes(store, embedder, clock)
    )
    question = _write(
        loop,
        thoughts,
        clock,
        ns,
        "Ann: did you finish the painting?",
        at=T0,
        session="s1",
        agent="Ann",
    )
    answer = _write(
        loop,
        thoughts,
        clock,
        ns,
        "Bob: yes, a sunset over the lake",
        at=T0 + 1000,
        session="s1",
        agent="Bob",
    )
    far = _write(
        loop,
        thoughts,
        clock,
        ns,
        "Bob: the painting class is on Monday",
        at=T0 + 60 * MINUTE,
        session="s1",
        agent="Bob",
    )
    other = _write(
        loop, thoughts, clock, ns, "Bob: I went hiking", at=T0 + 500, session="s2", agent="Bob"
    )
    loose = _write(
        loop, thoughts, clock, ns, "Ann: no session here", at=T0 + 200, session=None, agent="Ann"
    )
    view = TimeView(now_ms=T0 + 2 * 3600_000)
    query = "what did Bob paint?"
    pool = [SearchHit(thought=question, similarity=0.9, score=0.9)]  # what the base found
    reader = StoreExpansionReader(repos(store))
    links_only = ExpansionWeights(subquery=0.0)  # the session link alone

    expanded = loop.run(expand(reader, embedder, ns, query, pool, 5, weights=links_only, view=view))

    ids = [hit.thought.id for hit in expanded]
    assert ids[0] == question.id
    assert answer.id in ids  # only reachable through the session
    assert far.id not in ids and other.id not in ids and loose.id not in ids
    assert len(ids) == 2  # the pool and its context: nothing invented
    # The neighbour is scored by its own stored vector's cosine to the query (computed
    # in the engine once the context is read).
    entered = next(hit for hit in expanded if hit.thought.id == answer.id)
    assert abs(entered.similarity - _cosine(embedder, query, answer.content)) < 1e-6
    assert entered.similarity != 0.0
    # Without the context weight the step reads nothing and adds nothing.
    plain = loop.run(
        expand(
            reader,
            embedder,
            ns,
            query,
            pool,
            5,
            weights=ExpansionWeights(context=0.0, subquery=0.0),
            view=view,
        )
    )
    assert [hit.thought.id for hit in plain] == [question.id]
    # A view before the answer was valid does not bring it back.
    early = loop.run(
        expand(
            reader, embedder, ns, query, pool, 5, weights=links_only, view=TimeView(now_ms=T0 + 500)
        )
    )
    assert answer.id not in [hit.thought.id for hit in early]


def test_a_batch_written_session_lends_each_turn_its_previous_and_next(
    store: CypherGraphStore, loop: LoopThread, ns: str
) -> None:
    """contributeMany writes a conversation's session in one batch: every turn has the
    same creation time. A turn's context is still the turn before and the turn after it
    (write order), not two of the session picked by id."""
    embedder = HashEmbedder(dimension=CONTRACT_DIMENSION)
    clock = EvalClock(at_ms=T0)
    thoughts = ThoughtService(
        repos(store), embedder, clock=clock, fields=field_changes(store, embedder, clock)
    )
    session = [
        ThoughtInput(
            content=f"{who}: turn number {i} of the talk",
            agent_id=who.lower(),
            agent_name=who,
            namespace=ns,
            session_id="s1",
        )
        for i, who in enumerate(["Ann", "Bob"] * 6)
    ]
    written = loop.run(thoughts.contribute_many(session)).contributions
    turns = [c.thought for c in written]
    assert len({t.created_at_ms for t in turns}) == 1
    reader = StoreExpansionReader(repos(store))
    view = TimeView(now_ms=T0 + MINUTE)
    for middle in (3, 6, 9):
        context = loop.run(
            reader.session_context(
                ns, [turns[middle]], window_ms=10 * MINUTE, per_anchor=2, view=view
            )
        )
        assert {c.thought.id for c in context} == {turns[middle - 1].id, turns[middle + 1].id}
    first = loop.run(
        reader.session_context(ns, [turns[0]], window_ms=10 * MINUTE, per_anchor=2, view=view)
    )
    assert {c.thought.id for c in first} == {turns[1].id, turns[2].id}


def test_named_persons_turns_from_two_sessions_both_reach_the_top(
    store: CypherGraphStore, loop: LoopThread, local_embedder: TextEmbedder, ns: str
) -> None:
    """ "What has Bob painted?": Bob's two painting turns (two sessions) against Ann's
    turns, which are worded more like the question (one is a question itself). The
    named person's keyword match and the question penalty together bring both of Bob's
    turns to the top 2; without them, a question of Ann's sits in the top 2."""
    clock = EvalClock()
    thoughts = ThoughtService(
        repos(store),
        local_embedder,
        clock=clock,
        fields=field_changes(store, local_embedder, clock),
    )
    said = [
        ("Ann", "Ann: What have you been painting lately, Bob?"),
        ("Bob", "Bob: I painted a sunset over the lake on Sunday."),
        ("Ann", "Ann: Bob, your paintings are always so lovely!"),
        ("Bob", "Bob: I painted my horse last month, it took ages."),
        ("Ann", "Ann: I love how Bob paints, I wish I had painted more this year."),
        ("Ann", "Ann: Has Bob shown you what he painted?"),
    ]
    written = [  # a session each, hours apart: no session context, only the ranking
        _write(loop, thoughts, clock, ns, text, at=T0 + i * 60 * MINUTE, session=f"s{i}", agent=who)
        for i, (who, text) in enumerate(said)
    ]
    bobs = {t.id for t in written if t.agent_name == "Bob"}
    query = "What has Bob painted?"
    view = TimeView(now_ms=T0 + 24 * 60 * MINUTE)
    found = loop.run(
        repos(store).thoughts.nearest(ns, local_embedder.embed_query(query), 50, -1.0, view)
    )
    pool = [
        SearchHit(thought=h.thought, similarity=h.similarity, score=h.similarity) for h in found
    ]
    reader = StoreExpansionReader(repos(store))

    def top(weights: ExpansionWeights) -> list[str]:
        ranked = loop.run(
            expand(reader, local_embedder, ns, query, pool, 2, weights=weights, view=view)
        )
        return [hit.thought.id for hit in ranked]

    assert set(top(ExpansionWeights())) == bobs
    before = top(ExpansionWeights(named_match=0.0, question=0.0))
    assert set(before) != bobs and any(asks(t.content) for t in written if t.id in before)


def _cosine(embedder: HashEmbedder, query: str, content: str) -> float:
    return _cos(embedder.embed_query(query), embedder.embed_documents([content])[0])


def _hit(tid: str, agent: str, score: float) -> SearchHit:
    thought = Thought(
        id=tid,
        namespace="n",
        type=ThoughtType.ORIGINAL,
        content=f"{agent}: text {tid}",
        agent_id=agent.lower(),
        agent_name=agent,
        pheromone_weight=1.0,
        created_at_ms=T0,
    )
    return SearchHit(thought=thought, similarity=score, score=score)


def rerank(
    query: str,
    query_embedding: Sequence[float],
    subquery_embeddings: Sequence[Sequence[float]],
    hits: Sequence[SearchHit],
    extra: Sequence[Thought],
    embeddings: Mapping[str, Sequence[float]],
    context: Sequence[ContextThought],
    k: int,
    weights: ExpansionWeights,
) -> list[SearchHit]:
    """The pure ranking: the candidates' features (their cosines, which the engine
    computes, from ``embeddings`` here), then the best k."""
    similarities = {
        tid: CandidateSimilarity(
            query=_cos(query_embedding, vector),
            words=tuple(_cos(word, vector) for word in subquery_embeddings),
        )
        for tid, vector in embeddings.items()
    }
    found = candidates_of(query, hits, extra, similarities, context)
    return best(found, k, weights)


def _cos(a: Sequence[float], b: Sequence[float]) -> float:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        return 0.0
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


def test_rerank_boosts_the_named_agent_and_keeps_k() -> None:
    hits = [_hit("a1", "Ann", 0.50), _hit("b1", "Bob", 0.45), _hit("b2", "Bob", 0.30)]
    weights = ExpansionWeights(context=0.3, agent=0.1)
    ranked = rerank("What does Bob like?", [1.0], [], hits, [], {}, [], 2, weights)
    assert [h.thought.id for h in ranked] == ["b1", "a1"]
    assert ranked[0].score == 0.45 + 0.1
    # Both named: the same bonus for everyone, the base order stays.
    both = rerank("Did Ann and Bob meet?", [1.0], [], hits, [], {}, [], 3, weights)
    assert [h.thought.id for h in both] == ["a1", "b1", "b2"]


def test_rerank_lifts_the_named_agents_keyword_match_above_the_floor() -> None:
    """Two of Bob's turns, equal but for their keyword cosine (0.1 and 0.8): only the one
    above the floor gains, by named_match x (cosine - floor); Ann's turn never does."""
    hits = [_hit("a1", "Ann", 0.5), _hit("b1", "Bob", 0.5), _hit("b2", "Bob", 0.5)]
    word = [0.0, 1.0, 0.0]
    embeddings = {
        "a1": [0.6, 0.8, 0.0],
        "b1": [0.0, 0.1, (1 - 0.01) ** 0.5],
        "b2": [0.6, 0.8, 0.0],
    }
    weights = ExpansionWeights(subquery=0.0, agent=0.0, context=0.0, question=0.0)
    ranked = rerank(
        "What did Bob paint?", [1.0, 0.0, 0.0], [word], hits, [], embeddings, [], 3, weights
    )
    scores = {h.thought.id: h.score for h in ranked}
    assert ranked[0].thought.id == "b2"
    assert (
        abs(scores["b2"] - (0.5 + weights.named_match * (0.8 - weights.named_match_floor))) < 1e-9
    )
    assert scores["b1"] == scores["a1"] == 0.5


def test_rerank_ranks_a_question_below_a_statement_but_keeps_its_support() -> None:
    """A question and the answer after it score alike; the question loses ``question``
    for itself, while its neighbour still gains from the question's full score."""
    question = _hit("q", "Ann", 0.6).thought.model_copy(update={"content": "Ann: did you paint?"})
    hits = [
        SearchHit(thought=question, similarity=0.6, score=0.6),
        _hit("s", "Bob", 0.58),
        _hit("x", "Cy", 0.58),
    ]
    context = [ContextThought(anchor_id="q", thought=hits[1].thought)]
    weights = ExpansionWeights(subquery=0.0, agent=0.0, context=0.3, question=0.1)
    ranked = rerank("what got painted", [1.0], [], hits, [], {}, context, 3, weights)
    scores = {h.thought.id: h.score for h in ranked}
    assert [h.thought.id for h in ranked] == ["s", "q", "x"]
    assert abs(scores["q"] - (0.6 + 0.3 * 0.58 - 0.1)) < 1e-9
    assert abs(scores["s"] - (0.58 + 0.3 * 0.6)) < 1e-9


def test_asks_reads_the_text_before_a_trailing_note() -> None:
    assert asks("Ann: did you paint it?")
    assert asks("Ann: did you paint it? [shared a photo: a lake at dawn]")
    assert not asks("Bob: yes, last weekend. [shared a photo: is this a lake?]")
    assert not asks("Bob: why? Because I love it.")


def test_mentioned_agents_are_whole_words() -> None:
    assert mentioned_agents("What did Jon say to Gina?", {"Jon", "Gina", "Jo"}) == {"Jon", "Gina"}
    assert mentioned_agents("Jonathan's plans", {"Jon"}) == set()


def test_keyword_subqueries_lift_a_turn_the_whole_question_misses() -> None:
    """The pool ranks a1 first; the sub-query word points at b2 (a thought the base
    search did not return), which then outranks it."""
    hits = [_hit("a1", "Ann", 0.50)]
    extra = [_hit("b2", "Bob", 0.0).thought]
    embeddings = {"a1": [1.0, 0.0, 0.0], "b2": [0.6, 0.8, 0.0]}
    weights = ExpansionWeights(subquery=0.6, agent=0.0, context=0.0)
    ranked = rerank(
        "pottery?", [1.0, 0.0, 0.0], [[0.0, 1.0, 0.0]], hits, extra, embeddings, [], 2, weights
    )
    assert [h.thought.id for h in ranked] == ["b2", "a1"]
    assert abs(ranked[0].score - (0.6 + 0.6 * 0.8)) < 1e-9


def test_subqueries_are_content_words() -> None:
    assert subqueries(
        "What activities does Melanie partake in with Melanie's kids?", {"Melanie"}, 6
    ) == ["activities", "partake", "kids"]
    assert subqueries("What is it?", {"Ann"}, 6) == []
    assert subqueries("pottery camping swimming painting", set(), 2) == ["pottery", "camping"]
