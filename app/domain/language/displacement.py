"""The older statement's value, named in the newer one as what was left behind.

"switched from Booking.com to Expedia", "SQLAlchemy 1.4 ... was replaced by 2.0", "in the
lido instead of the indoor pool", "Keith stepped down and Ravi was voted captain", "curated
by Paul Brenner after Ines Araujo left", "I sold the Yamaha", "Kampala was withdrawn". A
bag of words counts the older's value as kept, because the newer repeats it; English
marks it as the thing replaced with a small closed set of frames: a transition ("from X
to Y", "instead of X", "X was replaced by Y") or a verb of leaving or removing next to
it (its subject: "X left", "X retired"; or its object: "sold X", "took down X"). The test
is that one of those frames holds a word of the older statement, and that the older did
not already use the frame.

A pure function over text; a feature of :mod:`update_model`, weighed by its fit.
"""

from __future__ import annotations

import re

from thoughtgraph.domain.language import lexicon as lx
from thoughtgraph.domain.language.words import find_phrases, past_determiners, plain_words

# Verbs of leaving said of the one who leaves, which stands before them: "Ines left".
LEAVES_AFTER_HOLDER = (
    "left",
    "leaves",
    "retired",
    "resigned",
    "quit",
    "stepped down",
    "stepped back",
    "moved on",
    "became",
    "is on leave",
    "went on leave",
    "handed",
    "passed",
    "was withdrawn",
    "was dropped",
    "was removed",
    "was retired",
    "was discontinued",
    "ended",
    "cut its",
)
# Verbs of removing or giving up, whose object is what goes: "sold the Yamaha".
REMOVES_BEFORE_VALUE = (
    "sold",
    "scrap",
    "scrapped",
    "cut",
    "dropped",
    "removed",
    "took down",
    "pulled out of",
    "out of",
    "ended the contract with",
    "superseded",
    "replaced",
    "retired",
    "left",
    "quit",
    "gave up",
    "got rid of",
)
_PIECE_BREAK = re.compile(r"[,;:!?()]|\.(?:\s|$)|\s[-\u2013\u2014]\s")
_HOLDER_REACH = 3  # words before a leaving verb that may name who leaves
_VALUE_REACH = 3  # words after a removing verb (past determiners) that may name what goes


def displaces_older_value(older: str, newer: str) -> bool:
    """Does ``newer`` name a word of ``older`` as the value it replaces or removes?"""
    old_words, new_words = _words(older), _words(newer)
    said = {w for w in old_words if w not in lx.STOP_WORDS}
    brings = {w for w in new_words if w not in lx.STOP_WORDS} - said
    if not said or not brings:
        return False
    if _names_old_value(newer, said):
        return True
    # Frames the older itself uses say nothing new.
    leaving = {phrase for phrase, _ in find_phrases(old_words, LEAVES_AFTER_HOLDER)}
    removing = {phrase for phrase, _ in find_phrases(old_words, REMOVES_BEFORE_VALUE)}
    return any(_leaves_or_removes(piece, said, leaving, removing) for piece in _pieces(newer))


def _leaves_or_removes(
    words: list[str], said: set[str], leaving: set[str], removing: set[str]
) -> bool:
    """Within one piece of the newer statement: a word of the older before a verb of
    leaving, or after a verb of removing, other than those the older uses."""
    for phrase, span in find_phrases(words, LEAVES_AFTER_HOLDER):
        holder = words[max(0, span.start - _HOLDER_REACH) : span.start]
        if phrase not in leaving and not _negated(words, span.start) and said & set(holder):
            return True
    for phrase, span in find_phrases(words, REMOVES_BEFORE_VALUE):
        if phrase in removing or _negated(words, span.start):
            continue
        if said & _object(words[span.stop :]):
            return True
    return False


def _negated(words: list[str], start: int) -> bool:
    """A verb under negation says nothing left: "I won't quit", "we never dropped it"."""
    before = words[start - 1] if start else ""
    return before in lx.NEGATIONS or before.endswith("n't")


def _pieces(text: str) -> list[list[str]]:
    """The text's words, split where punctuation ends a phrase: "Thanks, Gina! I won't
    quit" does not make Gina the one who quits."""
    return [words for part in _PIECE_BREAK.split(text) if (words := _words(part))]


def _names_old_value(newer: str, said: set[str]) -> bool:
    """A transition frame ("from X to", "instead of X", "X was replaced") around a word of
    the older statement."""
    lowered = newer.lower()
    for pattern in lx.OLD_VALUE_PATTERNS:
        match = pattern.search(lowered)
        if match is not None and said & set(_words(match.group("old"))):
            return True
    return False


def _words(text: str) -> list[str]:
    """Plain words without a possessive 's ("Green Bowl's contract" names Green Bowl)."""
    return [w.removesuffix("'s") for w in plain_words(text)]


def _object(words: list[str]) -> set[str]:
    return set(past_determiners(words)[:_VALUE_REACH])
