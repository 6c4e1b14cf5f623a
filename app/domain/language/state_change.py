"""A state the older statement puts its subject in, which the newer says is over.

"in maintenance mode" -> "out of maintenance mode", "on academic probation" -> "off
academic probation", "frozen" -> "unfrozen", "a broken wrist in a cast" -> "the cast is
off". A bag of words sees only the shared words; English marks leaving a state with a
small closed set of particles and verbs (and the un- of a participle), so the test is
that one of them stands next to a word of the older statement, and that the older did not
already speak of leaving. Names are not states ("the ferry back from Hydra").

A pure function over text; a feature of :mod:`update_model`, weighed by its fit.
"""

from __future__ import annotations

import re

from thoughtgraph.domain.language import lexicon as lx

_WORD = re.compile(r"[a-z0-9][a-z0-9.'-]*[a-z0-9]|[a-z0-9]")
_NUMBER = re.compile(r"^\d[\d.,]*$")
_STOP = lx.FUNCTION_WORDS | lx.DETERMINERS | lx.PRONOUNS | lx.AUXILIARIES | lx.COPULAS

# Phrases that say a state is left, as word tuples; the state's words stand after them
# ("out of maintenance mode") or, for the copula-final ones, before ("the cast is off").
EXIT_BEFORE_STATE: tuple[tuple[str, ...], ...] = (
    ("out", "of"),
    ("off",),
    ("back", "from"),
    ("finished",),
    ("ended",),
    ("done", "with"),
    ("recovered", "from"),
)
EXIT_AFTER_STATE: tuple[tuple[str, ...], ...] = (
    ("is", "off"),
    ("is", "over"),
    ("is", "done"),
    ("was", "settled"),
    ("was", "lifted"),
    ("was", "resolved"),
    ("cleared",),
    ("healed",),
    ("reopened",),
    ("was", "repaired"),
    ("was", "fixed"),
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


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _content(words: list[str]) -> set[str]:
    return {w for w in words if w not in _STOP and not _NUMBER.match(w)}


def _find(words: list[str], phrase: tuple[str, ...]) -> list[int]:
    size = len(phrase)
    return [i for i in range(len(words) - size + 1) if tuple(words[i : i + size]) == phrase]


def _says(words: list[str], phrase: tuple[str, ...]) -> bool:
    return bool(_find(words, phrase))


def _named(text: str) -> set[str]:
    """Words written capitalised, names and a sentence's first word: a state is neither
    ("back from Hydra")."""
    return {w.lower() for w in re.findall(r"\b[A-Z][\w'-]*", text)}


def ends_older_state(older: str, newer: str) -> bool:
    """Does ``newer`` say that a state ``older`` describes is over?"""
    old_words, new_words = _words(older), _words(newer)
    names = _named(older) | _named(newer)
    state = _content(old_words) - names
    if any(f"un{word}" in new_words and word not in new_words for word in state):
        return True  # frozen -> unfrozen, locked -> unlocked
    for phrase in EXIT_BEFORE_STATE:
        if _says(old_words, phrase):
            continue  # the older already speaks of leaving: not a new ending
        for at in _find(new_words, phrase):
            if phrase == ("off",) and (at == 0 or new_words[at - 1] not in _OFF_AFTER):
                continue  # "show off your studio": off as a particle, not a place left
            if state & _object(new_words[at + len(phrase) :], names):
                return True
    for phrase in EXIT_AFTER_STATE:
        if _says(old_words, phrase):
            continue
        for at in _find(new_words, phrase):
            before = new_words[max(0, at - _REACH) : at]
            if state & set(before):
                return True
    return False


def _object(words: list[str], names: set[str]) -> set[str]:
    """The first words of the noun phrase ``words`` open with, past its determiners; none
    when it opens with a name (a place left, "back from Hydra", is not a state)."""
    while words and (words[0] in lx.DETERMINERS or words[0] in lx.PRONOUNS):
        words = words[1:]
    if not words or words[0] in names:
        return set()
    return set(words[:_OBJECT_WORDS])
