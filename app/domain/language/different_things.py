"""Whom or what claims are about, as far as a text alone can tell: the subject veto
(whether two texts' claims are about different things), first-person talk and subjects
that point elsewhere. The update model weighs wording; these say when no weighing can make
one text replace the other."""

from __future__ import annotations

from thoughtgraph.domain.language import lexicon as lx
from thoughtgraph.domain.language.claims import (
    claim_sentences,
    claims_without_openers,
    subject_word,
)
from thoughtgraph.domain.language.rules_judge import judge_texts


def about_different_things(older: str, newer: str) -> bool:
    """Whether the claims of two texts are about different things, as the rules read the
    claim sentences alone: a greeting or an aside around a claim ("long time no talk!")
    names no subject of the claim's. Nor can the rules tell when a claim's subject points
    elsewhere ("this is a reminder", "you have one"): precision first, those are apart."""
    if points_outside(older) or points_outside(newer):
        return True
    old_claims, new_claims = claims_without_openers(older), claims_without_openers(newer)
    if not old_claims or not new_claims:
        return judge_texts(older, newer).different_subjects
    return judge_texts(" ".join(old_claims), " ".join(new_claims)).different_subjects


def about_the_speaker(text: str) -> bool:
    """Every claim of the text has a first-person subject ("I moved", "my sister is",
    "we adopted"): what it says is about whoever wrote it, so two such texts by two
    different authors are about two different people and cannot contradict."""
    found = claim_sentences(text)
    return bool(found) and all(subject_word(s) in _FIRST_PERSON for s in found)


def points_outside(text: str) -> bool:
    """Every claim of the text has a subject that points outside it ("this is a reminder",
    "you have a reminder", "it's so calming"): what it is about was named elsewhere in the
    conversation, so the text alone cannot say that something changed."""
    found = claim_sentences(text)
    return bool(found) and all(subject_word(s) in _POINTING for s in found)


_FIRST_PERSON = lx.words("i i'm i've i'd i'll my me we we're we've we'd we'll our us myself")
# Subjects that point outside the sentence: what they stand for was said elsewhere.
_POINTING = lx.words(
    "this that it it's that's these those you you're you've they they're he he's she she's"
)
