"""Which slot a differing value fills (`domain/language/slots.py`), through the rules judge.

Every pair is written for these tests.
"""

from __future__ import annotations

from tests.domain.reading import reads
from thoughtgraph.domain.judgement import PairRelation
from thoughtgraph.domain.language.rules_judge import judge_texts


def test_values_in_two_slots_replace_nothing() -> None:
    # Written for this test: how long against where, where against what; two places
    # ("in room 12" / "at the church hall") are one slot.
    for older, newer in (
        (
            "The review call is booked for 30 minutes.",
            "The review call is booked in the Cedar room.",
        ),
        ("The printer is in the basement.", "The printer is a Brother HL-L2350."),
    ):
        finding = judge_texts(older, newer)
        assert finding.relation is PairRelation.COMPATIBLE, finding
        assert "two slots" in finding.explanation, finding
    reads(
        "The choir rehearses in room 12.",
        "The choir rehearses at the church hall.",
        PairRelation.UPDATE,
    )


def test_a_setting_verb_restates_a_value_in_the_same_unit() -> None:
    # "is set to 21 degrees" / "was turned down to 19 degrees": the verb differs, the slot
    # (degrees) does not. A verb that adds ("hired 2 engineers") is no new total.
    reads(
        "The thermostat is set to 21 degrees.",
        "The thermostat was turned down to 19 degrees.",
        PairRelation.UPDATE,
        "'21' -> '19'",
    )
    reads("The review is on 7 March.", "The review was pushed to 14 March.", PairRelation.UPDATE)
    reads("The team has 8 engineers.", "The team hired 2 engineers.", PairRelation.COMPATIBLE)
    reads(
        "The thermostat is set to 21 degrees.",
        "The thermostat was set to 2 hours.",
        PairRelation.COMPATIBLE,
    )


def test_a_count_is_not_replaced_by_plain_words_without_a_cue() -> None:
    # "is 20 requests per second per client" / "are counted per API key": how much, and
    # how it is counted. A change cue still lets the newer say the count changed shape.
    older = "The search API rate limit is 20 requests per second per client."
    reads(
        older,
        "Search API rate limits are counted per API key.",
        PairRelation.COMPATIBLE,
        "A count and plain words",
    )
    reads(older, "Search API rate limits are counted per API key now.", PairRelation.UPDATE)
