"""The older value named as what was replaced or removed. Pairs written for this test, not
taken from the evaluation sets."""

from __future__ import annotations

import pytest

from thoughtgraph.domain.language.displacement import displaces_older_value


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # transitions
        ("Invoices are sent with Mailchimp.", "We moved invoice mail from Mailchimp to Postmark."),
        ("The night bus is the N29.", "The N29 was replaced by the N279 on the night route."),
        ("We meet in room 4B.", "We meet in the library instead of room 4B from now on."),
        # the one who leaves stands before the verb
        ("Tomas coaches the under-12s.", "Lena coaches the under-12s since Tomas retired."),
        ("The choir is led by Ada Brill.", "Ada Brill stepped down; Joe Marr leads the choir."),
        ("Orla runs the food bank rota.", "Orla handed the food bank rota to Sam."),
        # what goes stands after a verb of removing
        ("I drive a Fiat Panda.", "I sold the Panda and take the train to work."),
        ("The tour visits Ghent and Bruges.", "They dropped Ghent, so the tour is Bruges only."),
    ],
)
def test_an_older_value_named_as_left_behind(older: str, newer: str) -> None:
    assert displaces_older_value(older, newer)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # a range, not a transition away from the older value
        ("The clinic opens at 9.", "The clinic is busy from Monday to Wednesday."),
        # someone leaves, but not the older's value
        ("Tomas coaches the under-12s.", "Tomas coaches the under-12s; Ivo left the club."),
        # the older already used the frame
        ("Ada Brill stepped down as chair.", "Ada Brill stepped down as chair in 2021."),
        # a greeting before the verb does not make the name its subject
        ("Thanks, Gina, for the tip.", "Thanks, Gina! I won't quit now."),
        # nothing new in the newer
        ("Orla sold the bike.", "Orla sold the bike."),
        # a verb of leaving under negation: nobody left, nothing went
        ("I won't sell the piano.", "I won't quit the choir, and I never sold the piano."),
    ],
)
def test_no_displacement_without_the_older_value(older: str, newer: str) -> None:
    assert not displaces_older_value(older, newer)
