"""Newer first among near-duplicates: when two hits say almost the same thing about the
same subject, the one the service learned later takes the better of their two places,
before any judge has decided that it replaces the other; and a hit that another hit of
the same result supersedes always ranks below it.

Near-duplicate is measured two ways, either enough:
- on the texts, the same on every engine and without embeddings: the shorter statement
  shares at least NEAR_DUPLICATE_OVERLAP of its content words (stemmed, stop words left
  out) with the other, and at least two. An update usually restates the old statement and
  adds a value, a reason or a qualifier ("now has 9 data nodes, following the capacity
  review"), which a share of the shorter text catches and a share of both texts (Jaccard)
  does not;
- on the meaning, when the caller gives the pairs of hits whose vectors' cosine is at
  least NEAR_DUPLICATE_COSINE (a search has the engine find them, statement
  ``thought.close_pairs``, so no vector crosses the wire). This catches the update said
  in other words ("I live in Lisbon" then "I live in Porto now, in a flat near the
  river": one shared content word).
Only hits already in the result move, and only with each other: every other hit keeps its
place, and scores stay as they were.

Both were chosen per fold on the update set (leave one domain out, ``thoughtgraph eval
updates``): the share of changed facts caught minus the share of compatible look-alikes
reordered; every fold chose the overlap 0.6, and 12 of 15 folds the cosine 0.75 (3 chose
0.8), docs/evaluation.md.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from functools import partial
from typing import TypeVar

from thoughtgraph.domain.models import SearchHit, Thought, ThoughtKind
from thoughtgraph.domain.ranking.keywords import query_words, stem

NEAR_DUPLICATE_OVERLAP = 0.6  # shared content words / content words of the shorter text
NEAR_DUPLICATE_COSINE = 0.75  # cosine of the two statements' vectors
MIN_SHARED_WORDS = 2

H = TypeVar("H", bound=SearchHit)


def content_words(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in query_words(text))


def overlap_of(left: frozenset[str], right: frozenset[str]) -> float:
    shared = len(left & right)
    if shared < MIN_SHARED_WORDS:
        return 0.0
    return shared / min(len(left), len(right))


def near_duplicates(a: str, b: str, *, overlap: float = NEAR_DUPLICATE_OVERLAP) -> bool:
    return overlap_of(content_words(a), content_words(b)) >= overlap


def newer_first(
    hits: Sequence[H],
    *,
    overlap: float = NEAR_DUPLICATE_OVERLAP,
    close: Collection[frozenset[str]] = frozenset(),
) -> list[H]:
    """``hits`` with a superseded hit below its successor, and each group of undecided
    near-duplicates newest first, in the places the group held. ``close``: the pairs of
    thought ids that mean the same (``thought.close_pairs``); any other pair is compared
    by its words alone."""
    ordered = list(hits)
    words = [content_words(hit.thought.content) for hit in ordered]

    def same_subject(i: int, j: int) -> bool:
        if overlap_of(words[i], words[j]) >= overlap:
            return True
        return frozenset((ordered[i].thought.id, ordered[j].thought.id)) in close

    for i in range(len(ordered)):
        for j in range(i + 1, len(ordered)):
            if _later_first(ordered[i].thought, ordered[j].thought, partial(same_subject, i, j)):
                ordered[i], ordered[j] = ordered[j], ordered[i]
                words[i], words[j] = words[j], words[i]
    return ordered


def _later_first(first: Thought, second: Thought, same_subject: Callable[[], bool]) -> bool:
    """Whether ``second`` (ranked below) takes ``first``'s place."""
    if first.superseded_by == second.id:
        return True  # decided: the successor first
    if first.superseded_by is not None or second.superseded_by is not None:
        return False  # decided otherwise (by a judge or a person): the ranking says so
    if second.kind is ThoughtKind.INSIGHT and first.kind is not ThoughtKind.INSIGHT:
        return False  # an inference about a person never takes the place of what was said
    return second.created_at_ms > first.created_at_ms and same_subject()
