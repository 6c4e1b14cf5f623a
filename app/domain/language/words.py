"""Words and clauses of short statements, for the rule judge: the tokenizer, the clause
splitter and the cue-phrase finder, each remembered per text. A scan judges each thought
against its nearest neighbours, so one text meets the judge once per pair it is in; the
results are immutable, so a remembered one is as good as a fresh one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from thoughtgraph.domain.language import lexicon as lx

# A word: letters/digits joined by . : / - + @ (hosts, versions, times, paths, ids), with an
# optional sigil (#channel, $20) and percent; or one punctuation mark that splits clauses.
_WORD = re.compile(r"[#$€£@]?\w[\w']*(?:[.:/\-+@]\w[\w']*)*%?|[,;.!?]")
_CURLY_APOSTROPHE = "\u2019"  # the typographic apostrophe phones and editors type
_DIGIT_GROUPS = re.compile(r"(?<=\d),(?=\d{3}\b)")
# Titles whose full stop ends no sentence or clause: "Dr. Okonkwo is on leave" is one.
_TITLES = "Dr|Mr|Mrs|Ms|Mx|Prof|St|Mt|Jr|Sr|Rev|Capt|Lt|Sgt"
_NOT_AFTER_TITLE = "".join(rf"(?<!\b{title})" for title in _TITLES.split("|"))
_CLAUSE_SPLIT = re.compile(
    rf"\s*(?:;|{_NOT_AFTER_TITLE}[.!?]\s+(?=[A-Z0-9])|,\s*(?:and|but|while|whereas|so)\s+"
    r"|\s+but\s+)\s*"
)


@dataclass(frozen=True)
class Word:
    raw: str  # as written, without a possessive 's
    lower: str
    possessive: bool = False
    punct: bool = False


TEXT_CACHE_SIZE = 1 << 14


def clauses(text: str) -> list[str]:
    return list(_clauses(text))


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _clauses(text: str) -> tuple[str, ...]:
    parts = [part.strip(" ,") for part in _CLAUSE_SPLIT.split(text.strip())]
    return tuple(part for part in parts if _WORD.search(part)) or (text,)


_TITLE_END = re.compile(rf"(?:^|\s)(?:{_TITLES})\.$")


def rejoin_titles(pieces: list[str]) -> list[str]:
    """Pieces of a text split at full stops, each one that ends on a title ("Dr.") joined
    to the next."""
    joined: list[str] = []
    for piece in pieces:
        if joined and _TITLE_END.search(joined[-1]):
            joined[-1] = f"{joined[-1]} {piece}"
        else:
            joined.append(piece)
    return joined


_PLAIN_WORD = re.compile(r"[a-z0-9][a-z0-9._'-]*[a-z0-9]|[a-z0-9]")


def plain_words(text: str) -> list[str]:
    """The text's words lowercased, without punctuation: for bag-of-words features."""
    return list(_plain_words(text))


# The update model reads each text of a pair a dozen times (every cue list, both features
# of word order): remembered like the other tokenizers here.
@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _plain_words(text: str) -> tuple[str, ...]:
    return tuple(_PLAIN_WORD.findall(text.lower()))


def split_words(text: str) -> list[Word]:
    return list(_split_words(text))


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _split_words(text: str) -> tuple[Word, ...]:
    words: list[Word] = []
    for raw in _WORD.findall(_DIGIT_GROUPS.sub("", text.replace(_CURLY_APOSTROPHE, "'"))):
        lower = raw.lower()
        if raw in ",;.!?":
            words.append(Word(raw, lower, punct=True))
        elif lower in lx.CONTRACTED_NOT:
            words.extend(Word(part, part) for part in lx.CONTRACTED_NOT[lower])
        elif lower.endswith("n't"):
            words.extend([Word(raw[:-3], lower[:-3]), Word("not", "not")])
        elif lower.endswith("'s") and len(lower) > 2:
            words.append(Word(raw[:-2], lower[:-2], possessive=True))
        else:
            words.append(Word(raw, lower))
    return tuple(words)


def stem(word: str) -> str:
    """Plural (and third-person) -s off, so "approvals" meets "approval"."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def capitalised_names(*texts: str) -> set[str]:
    """Words written capitalised somewhere other than at the start of a clause."""
    names: set[str] = set()
    for text in texts:
        names |= _capitalised_names(text)
    return names


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _capitalised_names(text: str) -> frozenset[str]:
    return frozenset(
        word.lower
        for clause in _clauses(text)
        for word in _split_words(clause)[1:]
        if word.raw[:1].isupper()
    )


def past_determiners(words: list[str]) -> list[str]:
    """The lowercased words of a noun phrase from its first word past determiners and
    pronouns ("the new one" -> "new one")."""
    start = 0
    while start < len(words) and (words[start] in lx.DETERMINERS or words[start] in lx.PRONOUNS):
        start += 1
    return words[start:]


def find_phrases(lowered: list[str], phrases: Iterable[str]) -> list[tuple[str, range]]:
    """Where each phrase occurs, longest first, never two over the same word."""
    return list(_find_phrases(tuple(lowered), tuple(phrases)))


# A scan judges each thought against its 20 nearest, so the same words meet the same cue
# lists over and over: remembered, the lookups stop dominating a consolidation run.
@functools.lru_cache(maxsize=1 << 16)
def _find_phrases(
    lowered: tuple[str, ...], phrases: tuple[str, ...]
) -> tuple[tuple[str, range], ...]:
    present = set(lowered)
    taken: set[int] = set()
    found: list[tuple[str, range]] = []
    for phrase, parts in _longest_first(phrases):
        if not all(part in present for part in parts):
            continue  # most cues share no word with a clause: skip them at once
        for start in range(len(lowered) - len(parts) + 1):
            span = range(start, start + len(parts))
            if lowered[start : start + len(parts)] == parts and not taken & set(span):
                taken |= set(span)
                found.append((phrase, span))
    return tuple(found)


@functools.lru_cache(maxsize=64)
def _longest_first(phrases: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The phrases split into words, longest first (ties in their given order)."""
    split = [(phrase, tuple(phrase.split())) for phrase in phrases]
    return tuple(sorted(split, key=lambda item: -len(item[1])))


def lasting_now(lowered: Sequence[str], index: int) -> bool:
    """Whether the "now" at ``index`` ends a duration that says how long something has
    lasted ("Seven years now, and ...", "I've been painting for two years now"), not that
    it changed ("the timeout is 60 seconds now", "booked for 3 hours now")."""
    if lowered[index] != "now" or not index or lowered[index - 1] not in lx.DURATIONS:
        return False
    before = lowered[max(0, index - 4) : index - 1]
    return index <= 3 or ("for" in before and "been" in lowered[:index])
