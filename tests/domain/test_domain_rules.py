"""Pure lineage rules of seed 000: pheromone inheritance, ranking, input checks."""

from __future__ import annotations

import pytest

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.errors import InvalidInputError, MinConsolidationError
from thoughtgraph.domain.models import ScoredThought, Thought, ThoughtType
from thoughtgraph.domain.rules import inherited_pheromone, rank_with_lineage


@pytest.mark.parametrize(
    ("kind", "weights", "expected"),
    [
        (ThoughtType.ORIGINAL, [], 1.0),
        (ThoughtType.REFINEMENT, [1.0], 1.0),
        (ThoughtType.REFINEMENT, [1.6], 1.0),
        (ThoughtType.REFINEMENT, [6.0], 3.0),
        (ThoughtType.CONSOLIDATION, [6.0, 2.0], 2.0),
        (ThoughtType.CONSOLIDATION, [1.0, 1.0, 1.0], 1.0),
        (ThoughtType.CONSOLIDATION, [10.0, 4.0, 7.0], 3.5),
    ],
)
def test_inherited_pheromone(kind: ThoughtType, weights: list[float], expected: float) -> None:
    assert inherited_pheromone(kind, weights) == pytest.approx(expected)


def _thought(tid: str, sources: tuple[str, ...] = ()) -> Thought:
    return Thought(
        id=tid,
        namespace="n",
        type=ThoughtType.REFINEMENT if sources else ThoughtType.ORIGINAL,
        content=tid,
        agent_id="a",
        agent_name="A",
        pheromone_weight=1.0,
        created_at_ms=0,
        source_ids=sources,
    )


def test_ranking_penalises_superseded_and_boosts_their_refinements() -> None:
    hits = [
        ScoredThought(thought=_thought("old"), similarity=0.9),
        ScoredThought(thought=_thought("new", ("old",)), similarity=0.8),
        ScoredThought(thought=_thought("other"), similarity=0.7),
        ScoredThought(thought=_thought("newer-of-absent", ("not-in-results",)), similarity=0.6),
    ]
    ranked = rank_with_lineage(hits, {"old": "new", "not-in-results": "newer-of-absent"})
    assert [h.thought.id for h in ranked] == ["new", "other", "old", "newer-of-absent"]
    by_id = {h.thought.id: h for h in ranked}
    assert by_id["old"].score == pytest.approx(0.63)
    assert by_id["old"].superseded and by_id["old"].refined_by == "new"
    assert by_id["new"].score == pytest.approx(0.96)
    assert not by_id["new"].superseded
    assert by_id["other"].score == pytest.approx(0.7)
    # Only refinements of a superseded hit *in the result set* are boosted.
    assert by_id["newer-of-absent"].score == pytest.approx(0.6)


def test_refinement_boost_is_capped_at_one() -> None:
    hits = [
        ScoredThought(thought=_thought("old"), similarity=0.95),
        ScoredThought(thought=_thought("new", ("old",)), similarity=0.9),
    ]
    ranked = rank_with_lineage(hits, {"old": "new"})
    assert ranked[0].thought.id == "new"
    assert ranked[0].score == 1.0


def test_a_superseded_refinement_is_penalised_not_boosted() -> None:
    hits = [
        ScoredThought(thought=_thought("v1"), similarity=0.9),
        ScoredThought(thought=_thought("v2", ("v1",)), similarity=0.9),
        ScoredThought(thought=_thought("v3", ("v2",)), similarity=0.9),
    ]
    ranked = rank_with_lineage(hits, {"v1": "v2", "v2": "v3"})
    assert [h.thought.id for h in ranked] == ["v3", "v1", "v2"]
    assert ranked[0].score == pytest.approx(1.0)
    assert ranked[1].score == pytest.approx(0.63)


@pytest.mark.parametrize(
    ("ids", "minimum", "error"),
    [
        ([], 1, InvalidInputError),
        (["00000000-0000-4000-8000-000000000001"], 2, MinConsolidationError),
        (["nope"], 1, InvalidInputError),
        (["00000000-0000-4000-8000-000000000001"] * 2, 2, InvalidInputError),
        ([f"00000000-0000-4000-8000-{i:012d}" for i in range(51)], 2, InvalidInputError),
    ],
)
def test_source_id_checks(ids: list[str], minimum: int, error: type[Exception]) -> None:
    with pytest.raises(error):
        check.require_source_ids(ids, minimum=minimum)


def test_source_ids_are_normalised() -> None:
    upper = "AAAAAAAA-0000-4000-8000-000000000001"
    assert check.require_source_ids([upper], minimum=1) == (upper.lower(),)


@pytest.mark.parametrize("namespace", ["nl\n", "a b", "", "-lead", "x" * 65, "tab\t"])
def test_namespace_is_checked_whole(namespace: str) -> None:
    # A namespace names a FalkorDB graph and a Neo4j label: no trailing newline slips by.
    with pytest.raises(InvalidInputError):
        check.require_namespace(namespace)


def test_namespace_pattern_accepts_the_documented_characters() -> None:
    assert check.require_namespace("team-a.prod:v2_x") == "team-a.prod:v2_x"


def test_a_page_size_left_out_is_the_default_and_a_given_one_is_bounded() -> None:
    assert check.page_size("first", None, check.DEFAULT_PAGE_SIZE, check.MAX_PAGE_SIZE) == 20
    assert check.page_size("first", 7, check.DEFAULT_PAGE_SIZE, check.MAX_PAGE_SIZE) == 7
    for wrong in (0, check.MAX_PAGE_SIZE + 1):
        with pytest.raises(InvalidInputError) as raised:
            check.page_size("first", wrong, check.DEFAULT_PAGE_SIZE, check.MAX_PAGE_SIZE)
        assert raised.value.details["field"] == "first"
