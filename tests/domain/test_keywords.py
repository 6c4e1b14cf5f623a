"""The keyword side of search (BM25 scored by the service) and how it is fused with the
cosine (app/domain/ranking/keywords.py, scoring.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from thoughtgraph.domain.ranking.keywords import (
    KeywordStatistics,
    bm25_scores,
    idf,
    normalised,
    query_words,
    words,
)
from thoughtgraph.domain.ranking.scoring import (
    MIN_COSINE_SPREAD,
    VECTOR_WEIGHT,
    closeness,
    relevance_of,
)


def stats(size: int, **matches: int) -> KeywordStatistics:
    return KeywordStatistics(namespace_size=size, matches=matches)


def test_words_are_stemmed_so_a_question_finds_other_forms() -> None:
    assert words("Painting paints; painted!") == ["paint", "paint", "paint"]
    assert query_words("What is Melanie painting?") == ["melanie", "painting"]


def test_a_rare_word_outweighs_a_common_one() -> None:
    docs = {"rare": "the zorblax rotation", "common": "the weekly meeting"}
    scores = bm25_scores("zorblax meeting", docs, stats(1000, zorblax=2, meeting=400))
    assert scores["rare"] > scores["common"] > 0
    assert idf(2, 1000) > idf(400, 1000) > 0


def test_a_word_the_namespace_lacks_and_stop_words_score_nothing() -> None:
    docs = {"a": "what is the plan", "b": "pasta recipes"}
    assert bm25_scores("what is the", docs, stats(10, what=5)) == {"a": 0.0, "b": 0.0}
    assert bm25_scores("plan", docs, stats(10)) == {"a": 0.0, "b": 0.0}


def test_a_shorter_document_with_the_word_scores_higher() -> None:
    docs = {
        "short": "deploys on friday",
        "long": "deploys happen at many times, and sometimes on a friday afternoon too",
    }
    scores = bm25_scores("friday deploys", docs, stats(100, friday=2, deploys=2))
    assert scores["short"] > scores["long"] > 0


def test_a_capped_count_weighs_a_word_as_common() -> None:
    # The engine counts matches up to a cap; a word counted past the namespace's own
    # (capped) size still gets a finite, small weight.
    assert 0 < idf(1001, 500) < idf(10, 500)
    assert math.isfinite(idf(0, 0))


def test_closeness_scales_to_the_candidates_spread() -> None:
    assert closeness([0.6, 0.4, 0.2]) == pytest.approx([1.0, 0.5, 0.0])
    assert closeness([]) == []
    # A spread below the floor is not stretched to 0..1: near-equal cosines stay near.
    tight = closeness([0.31, 0.30])
    assert tight == pytest.approx([1.0, 1.0 - 0.01 / MIN_COSINE_SPREAD])


def test_relevance_weighs_the_two_sides() -> None:
    assert relevance_of(1.0, 0.0) == VECTOR_WEIGHT
    assert relevance_of(0.0, 1.0) == 1.0 - VECTOR_WEIGHT
    assert relevance_of(1.0, 1.0) == 1.0


@given(st.lists(st.floats(min_value=-1, max_value=1), max_size=40))
def test_closeness_stays_on_zero_to_one(cosines: list[float]) -> None:
    assert all(0.0 <= c <= 1.0 + 1e-12 for c in closeness(cosines))


@given(st.lists(st.floats(min_value=0, max_value=50), max_size=40))
def test_normalised_keyword_scores_stay_on_zero_to_one(scores: list[float]) -> None:
    found = normalised(scores)
    assert all(0.0 <= s <= 1.0 for s in found)
    if any(s > 0 for s in scores):
        assert max(found) == 1.0
