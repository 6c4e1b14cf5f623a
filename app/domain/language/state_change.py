"""A state the older statement puts its subject in, which the newer says is over.

"in maintenance mode" -> "out of maintenance mode", "on academic probation" -> "off
academic probation", "frozen" -> "unfrozen", "a broken wrist in a cast" -> "the cast is
off". A bag of words sees only the shared words; English marks leaving a state with a
small closed set of particles and verbs (and the un- of a participle), so the test is
that one of them stands next to a word of the older statement, and that the older did not
already speak of leaving. Names (capitalised words) are not states ("the ferry back
from Hydra").

A pure function over text; a feature of :mod:`update_model`, weighed by its fit.
"""

from __future__ import annotations

import re

from thoughtgraph.domain.language import lexicon as lx
from thoughtgraph.domain.language.words import (
    capitalised_names,
    find_phrases,
    past_determiners,
    plain_words,
)

_NUMBER = re.compile(r"^\d[\d.,]*$")

# Phrases that say a state is left: the state's words stand after them ("out of
# maintenance mode") or, for the copula-final ones, before ("the cast is off").
EXIT_BEFORE_STATE = (
    "out of",
    "off",
    "back from",
    "finished",
    "ended",
    "done with",
    "recovered from",
)
EXIT_AFTER_STATE = (
    "is off",
    "is over",
    "is done",
    "was settled",
    "was lifted",
    "was resolved",
    "cleared",
    "healed",
    "reopened",
    "was repaired",
    "was fixed",
)
# "off" leaves a state after be, come, go, get or a verb of moving ("I'm off probation",
# "Tom was taken off the list"); after other verbs it is a particle ("show off").
_OFF_AFTER = lx.COPULAS | lx.words(
    "i'm it's he's she's we're they're you're be being "
    "get got gets come came comes go went goes step stepped steps take took taken "
    "move moved moves fall fell falls"
)
_REACH = 4  # words before a copula-final exit phrase that may name the state
_OBJECT_WORDS = 2  # words of the phrase after an exit phrase that may name the state


def ends_older_state(older: str, newer: str) -> bool:
    """Does ``newer`` say that a state ``older`` describes is over?"""
    old_words, new_words = plain_words(older), plain_words(newer)
    names = capitalised_names(older, newer)
    state = {w for w in old_words if w not in lx.STOP_WORDS and not _NUMBER.match(w)} - names
    if any(f"un{word}" in new_words and word not in new_words for word in state):
        return True  # frozen -> unfrozen, locked -> unlocked
    # A phrase the older already says is no new ending.
    said = {phrase for phrase, _ in find_phrases(old_words, EXIT_BEFORE_STATE)}
    for phrase, span in find_phrases(new_words, EXIT_BEFORE_STATE):
        if phrase in said:
            continue
        if phrase == "off" and (span.start == 0 or new_words[span.start - 1] not in _OFF_AFTER):
            continue  # "show off your studio": off as a particle, not a place left
        if state & _object(new_words[span.stop :], names):
            return True
    said = {phrase for phrase, _ in find_phrases(old_words, EXIT_AFTER_STATE)}
    for phrase, span in find_phrases(new_words, EXIT_AFTER_STATE):
        if phrase not in said and state & set(new_words[max(0, span.start - _REACH) : span.start]):
            return True
    return False


def _object(words: list[str], names: set[str]) -> set[str]:
    """The first words of the noun phrase ``words`` open with, past its determiners; none
    when it opens with a name (a place left, "back from Hydra", is not a state)."""
    words = past_determiners(words)
    if not words or words[0] in names:
        return set()
    return set(words[:_OBJECT_WORDS])
