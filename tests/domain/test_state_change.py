"""Leaving a state, read from word order. Pairs written for this test, not taken from the
evaluation sets."""

from __future__ import annotations

import pytest

from thoughtgraph.domain.language.state_change import ends_older_state


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The north gate is in lockdown.", "The north gate is out of lockdown since noon."),
        ("Priya is on sick leave.", "Priya is back from sick leave and taking calls."),
        ("The repository is archived.", "The repository is unarchived and open to patches."),
        ("The lift is broken.", "The lift was repaired this morning."),
        ("I'm on a gluten-free diet.", "I finished the gluten-free diet in March."),
        ("The site is under a hosepipe ban.", "The hosepipe ban was lifted on Friday."),
    ],
)
def test_a_state_said_to_be_over_is_an_ending(older: str, newer: str) -> None:
    assert ends_older_state(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # a place left is not a state
        ("The ferry to Paros leaves at 8:00.", "The ferry back from Paros leaves at 18:00."),
        # the older already spoke of the ending
        ("The build server is out of disk space.", "The build server is still out of disk space."),
        ("The lawsuit was settled.", "The dispute went on for years before it was settled."),
        # a past state told in passing, the present one unchanged
        ("The gym is open.", "The gym was shut for a week in May, and it is open again."),
        # an ending of something the older does not mention
        ("Priya is on sick leave.", "The roadworks outside are over."),
        # the participle kept, un- only of another word
        ("The shared drive is locked.", "The shared drive is locked and the wiki unlocked."),
    ],
)
def test_no_ending_without_the_older_state(older: str, newer: str) -> None:
    assert not ends_older_state(older, newer)
