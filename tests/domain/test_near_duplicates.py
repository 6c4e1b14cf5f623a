"""Newer first among near-duplicates, and a superseded hit below its successor
(app/domain/ranking/near_duplicates.py). Through the real engines:
tests/features/contradictions/test_update_model.py."""

from __future__ import annotations

from tests.near_duplicate_support import close_pairs
from thoughtgraph.domain.models import SearchHit, Thought, ThoughtType
from thoughtgraph.domain.ranking.near_duplicates import near_duplicates, newer_first


def hit(tid: str, content: str, created: int, score: float, **fields: object) -> SearchHit:
    thought = Thought(
        id=tid,
        namespace="ns",
        type=ThoughtType.ORIGINAL,
        content=content,
        agent_id="a",
        agent_name="A",
        pheromone_weight=1.0,
        created_at_ms=created,
        **fields,
    )
    return SearchHit(thought=thought, similarity=score, score=score)


def test_a_restatement_with_a_new_value_and_a_reason_is_a_near_duplicate() -> None:
    # The shorter statement's words are nearly all in the longer one (Jaccard: 0.4).
    assert near_duplicates(
        "The search cluster has 6 data nodes.",
        "The search cluster now has 9 data nodes, following the November capacity review.",
    )
    assert near_duplicates(
        "Our frontend tests run with Jest.", "Frontend tests now run with Vitest."
    )


def test_a_shared_name_alone_is_not() -> None:
    assert not near_duplicates("Jon: thanks!", "Jon: I went hiking by the lake")
    assert not near_duplicates("The shed key hangs by the door.", "Tea is at four.")


def test_the_newer_takes_the_better_place_and_others_keep_theirs() -> None:
    older = hit("old", "The search cluster has 6 data nodes.", created=1, score=0.9)
    other = hit("x", "Lunch is at noon.", created=3, score=0.8)
    newer = hit("new", "The search cluster now has 9 data nodes.", created=2, score=0.7)
    assert [h.thought.id for h in newer_first([older, other, newer])] == ["new", "x", "old"]


def test_a_superseded_hit_goes_below_its_successor_whatever_the_words() -> None:
    older = hit("old", "Kwame runs the checkout squad's standups.", 1, 0.9, superseded_by="new")
    newer = hit("new", "Since January, Beatriz is the scrum master.", 2, 0.5)
    assert [h.thought.id for h in newer_first([older, newer])] == ["new", "old"]
    # Superseded by something else: decided, so the ranking's order stays.
    elsewhere = hit("old", "The search cluster has 6 data nodes.", 1, 0.9, superseded_by="z")
    later = hit("new", "The search cluster now has 9 data nodes.", 2, 0.5)
    assert [h.thought.id for h in newer_first([elsewhere, later])] == ["old", "new"]


def test_the_same_meaning_in_other_words_is_a_near_duplicate_given_the_vectors() -> None:
    older = hit("old", "I live in Lisbon.", created=1, score=0.9)
    other = hit("x", "Lunch is at noon.", created=3, score=0.8)
    newer = hit("new", "My home is a flat in Porto these days.", created=2, score=0.7)
    hits = [older, other, newer]
    assert [h.thought.id for h in newer_first(hits)] == ["old", "x", "new"]  # few shared words
    close = {"old": [1.0, 0.0], "new": [0.8, 0.6], "x": [0.0, 1.0]}  # cosine 0.8
    assert [h.thought.id for h in newer_first(hits, close=close_pairs(close))] == [
        "new",
        "x",
        "old",
    ]
    apart = {"old": [1.0, 0.0], "new": [0.6, 0.8], "x": [0.0, 1.0]}  # cosine 0.6
    assert [h.thought.id for h in newer_first(hits, close=close_pairs(apart))] == [
        "old",
        "x",
        "new",
    ]
    # A hit without a vector (not current, or past the window) is compared by its words.
    assert [h.thought.id for h in newer_first(hits, close=close_pairs({"old": [1.0, 0.0]}))] == [
        "old",
        "x",
        "new",
    ]
