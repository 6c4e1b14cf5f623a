"""A role or slot that passed to another holder or value, as the rules read it: the newer
restates the older's role whole with a new name or value first in that clause. Every pair
here was written for these tests, none taken from the update sets."""

from __future__ import annotations

import pytest

from tests.domain.reading import reads
from thoughtgraph.domain.judgement import PairRelation, PairToJudge
from thoughtgraph.domain.language.holders import role_refilled
from thoughtgraph.features.contradictions.judge import ModelJudge

PASSED_ON = [
    # The older holder named again, after the new one, with why.
    (
        "The choir is conducted by Ms. Abara.",
        "The choir is conducted by Mr. Ivanov while Ms. Abara recovers from surgery.",
        "abara",
        "ivanov",
    ),
    # The older holder in a clause of their own, before the clause that restates the role.
    (
        "Our accountant is Pieter de Wit.",
        "Pieter de Wit retired, so our accountant is Sanne Bakker now.",
        "de pieter wit",
        "bakker sanne",
    ),
    # A name with a particle, the older holder not named again.
    (
        "Our notary is Anouk van Dijk.",
        "Our notary is now Bram Peeters.",
        "anouk dijk van",
        "bram peeter",
    ),
    # A fronted clause first, the older holder after a displacing phrase.
    (
        "Tomasz is the release captain for the mobile app.",
        "Since the reorg, Ilse has been the mobile app's release captain in place of Tomasz.",
        "tomasz",
        "ilse",
    ),
    # A date and a number: values with digits.
    ("The lease on the studio ends on 31 May.", "The lease on the studio ends on 30 June.", "", ""),
    (
        "The shuttle leaves the depot at 07:40.",
        "The shuttle now leaves the depot at 08:10.",
        "",
        "",
    ),
    # An initialism for the role's words.
    (
        "Dr. Moreau is the chief medical officer of the clinic.",
        "Dr. Moreau stepped down, and Dr. Haddad is now CMO of the clinic.",
        "moreau",
        "haddad",
    ),
]


@pytest.mark.parametrize(("older", "newer", "was", "now"), PASSED_ON)
def test_a_role_restated_with_another_holder_first_is_an_update(
    older: str, newer: str, was: str, now: str
) -> None:
    refill = role_refilled(older, newer)
    assert refill is not None
    if was:
        assert (refill.older, refill.newer) == (was, now)
    finding = reads(older, newer, PairRelation.UPDATE)
    assert finding.different_subjects is False


BOTH_HOLD = [
    # Another holder beside the first.
    ("The grant is managed by Ruth Okoye.", "Ruth Okoye and Sam Lee now jointly manage the grant."),
    (
        "The newsletter is edited by Farah.",
        "Leon joined Farah as a second editor of the newsletter.",
    ),
    ("Our mentor is Dana Whitfield.", "Our mentor is also Jonas Berg, for the design track."),
    # The role narrowed to someone or something else.
    ("The office manager is Carla.", "The deputy office manager is Bruno."),
    ("My cousin lives in Ghent.", "My cousin's husband lives in Bruges."),
    # Another slot: a preposition the older did not have, or a scope.
    ("The printers run Firmware 4.1.", "The printers run on PoE switches."),
    ("Anika is the on-call lead for week 12.", "Anika is the on-call lead for week 13."),
    ("Tickets cost 12 euros per person.", "Tickets cost 9 euros per person for students."),
    # Another item with its own version.
    ("The app is built with Flutter 3.10.", "The app is built with Kotlin 2.0."),
    # A negated restatement, and a verb that holds for several values.
    ("I need a permit to fish in Lake Vran.", "I don't need a permit to fish in Lake Orla."),
    ("Priya enjoys Kafka.", "Priya enjoys Tolstoy."),
]


@pytest.mark.parametrize(("older", "newer"), BOTH_HOLD)
def test_look_alikes_of_a_passed_role_are_not_read_as_one(older: str, newer: str) -> None:
    assert role_refilled(older, newer) is None
    assert "The role passed on" not in reads(older, newer, PairRelation.COMPATIBLE).explanation


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Thanks Maria, the cake was great!", "Thanks John, the cake was great!"),
        ("The cake was great, Maria!", "The cake was great, John!"),
        ("Maria, you should see the lake at dawn.", "John, you should see the lake at dawn."),
    ],
)
def test_a_person_addressed_by_name_holds_no_role(older: str, newer: str) -> None:
    # (Such turns are opinions and advice, never judged in a conversation: the claim gate.)
    assert role_refilled(older, newer) is None


def test_the_offline_judge_flags_a_holder_change_the_subject_veto_used_to_stop() -> None:
    """The older holder is the older statement's subject and the newer's other clause's:
    read clause by clause the two look like statements about two people, which the judge's
    subject veto kept from the model."""
    older = "Ingrid Solberg is the treasurer of the rowing club."
    newer = "Ingrid Solberg moved abroad, and the rowing club's treasurer is now Marek Nowak."
    assert role_refilled(older, newer) is not None
    pair = PairToJudge("p", "o", older, 0, "n", newer, 1, 0.8)
    verdict = ModelJudge().judge_pair(pair)
    assert verdict.relation is PairRelation.UPDATE, verdict.explanation
