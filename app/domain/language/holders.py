"""A role or slot that passed to another holder or value: the newer statement restates the
older's role in full, with another name or value first in the clause that says it.

"Helena Voss is the CFO" / "... the CFO is now Arjun Mehta"; "The module is taught by Dr.
Okonkwo" / "The module is taught by Dr. Lindqvist this term because Dr. Okonkwo is on
leave"; "The thesis deadline is 30 April" / "... is now 15 June after the extension". The
older holder may still be named, after the new one or in a clause of its own (where they
went, why): what decides is the clause that restates the role. Read as values: runs of
capitalised words (titles left out; a clause's first word only when it is written
capitalised elsewhere or a capitalised word follows it) and words with digits.

Not a change of holder: a role that can have several ("Keiko joined Dmitri as a second
maintainer", "also", a verb like "likes"), a role narrowed to another thing (the newer
adds words before the value: "the user's sister lives in Porto"), a value in another slot
(a preposition the older did not have: "run on c6i.xlarge" after "run Envoy 1.26"), a
scope ("the release manager for 4.3", "35 euros for the spring term"), another item
with its own version ("Django 5.0" after "Python 3.12"), and a negated restatement
("don't need a visa to visit ...").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from thoughtgraph.domain.language import lexicon as lx
from thoughtgraph.domain.language.claims import body
from thoughtgraph.domain.language.words import (
    TEXT_CACHE_SIZE,
    Word,
    capitalised_names,
    clauses,
    find_phrases,
    plain_words,
    split_words,
    stem,
)

# Within a clause, a comma or a subordinating word starts or ends an aside about the
# holders ("..., at least until Hiro returns", "... because Dr. Okonkwo is on leave").
_ASIDE = re.compile(r",|\b(?:because|since|until|while|after|before|when|as of)\b", re.I)
_TITLE_WORDS = lx.words("dr mr mrs ms mx prof")
_NAME_PARTICLES = lx.words("de van von der den da di du del la le bin ibn al dos das")
_NOT_VALUES = lx.STOP_WORDS
_NOT_ROLE = _NOT_VALUES | _TITLE_WORDS
_DIGIT = re.compile(r"\d")
_INITIALISM = re.compile(r"[A-Z]{2,5}")
_SCOPES = lx.words("for per")
_CUE_WORDS = frozenset(word for cue in lx.CHANGE_CUES for word in cue.split())
_ADDING = lx.words("second third another joined added alongside together")

Group = frozenset[str]


@dataclass(frozen=True)
class Refill:
    """The older holder or value and the one that took its place (stemmed), and the
    newer's change cues."""

    older: str
    newer: str
    cues: tuple[str, ...]

    @property
    def confidence(self) -> float:
        return 0.85 if self.cues else 0.75

    @property
    def explanation(self) -> str:
        listed = ", ".join(f"'{cue}'" for cue in self.cues)
        said = f"The role passed on: '{self.older}' -> '{self.newer}'"
        return f"{said} ({listed})" if self.cues else said


def role_refilled(older: str, newer: str) -> Refill | None:
    """How ``newer`` gives the role or slot ``older`` fills with one value to another (a
    "Speaker: " prefix is no part of either statement)."""
    return _role_refilled(body(older), body(newer))


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _role_refilled(older: str, newer: str) -> Refill | None:
    if not _plain_core(older) <= _text_words(newer) and not _has_initialism(newer):
        return None  # the role's plain words are not all in the newer: no part restates it
    names = frozenset(capitalised_names(older, newer))
    values = _value_groups(older, names)
    if not values or _adds(newer):
        return None
    old_words = _ordered_words(older)
    said, named = set(old_words), {word for group in values for word in group}
    for holder in values:
        if _opened_by(old_words, holder, _SCOPES):
            continue  # "the release manager for 4.2": what the role is for, not its holder
        role_in_order = [w for w in old_words if w not in holder and w not in _NOT_ROLE]
        role = set(role_in_order)
        if not role - named:  # the role must be said in plain words, not in names alone
            continue
        if role & lx.MULTI_VALUED_VERBS and not _cues(newer):
            continue  # "Alice likes Python" / "Alice likes Rust": both can hold
        for part, part_words in _parts(newer):
            missing = role - part_words
            if missing and not missing <= _initialisms(part, role_in_order):
                continue
            taker = _first_new_value(part, role, said, names)
            if taker is not None and not _two_items(holder, taker):
                return Refill(" ".join(sorted(holder)), " ".join(sorted(taker)), _cues(newer))
    return None


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _plain_core(text: str) -> frozenset[str]:
    """The text's words that can be part of no value (never capitalised, no digit, no name
    particle), read as the roles are: in every role the text names, whatever its holder."""
    plain = (
        stem(word.lower)
        for word in split_words(text)
        if not word.punct
        and not word.raw[:1].isupper()
        and not _DIGIT.search(word.raw)
        and word.lower not in _NAME_PARTICLES
    )
    return frozenset(plain) - _NOT_ROLE


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _text_words(text: str) -> frozenset[str]:
    return frozenset(_ordered_words(text))


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _has_initialism(text: str) -> bool:
    return any(_INITIALISM.fullmatch(word.raw) for word in split_words(text))


def _first_new_value(
    part: str, role: set[str], said: set[str], names: frozenset[str]
) -> Group | None:
    """The value the part names first, when it is new and stands where the older's stood:
    right after the older's own words (function words and change cues aside), in the same
    polarity."""
    if _negated(part) and not said & lx.NEGATIONS:
        return None
    words = _ordered_words(part)
    for group in _value_groups(part.strip(), names):
        if group <= role:
            continue  # a name that is part of the role ("CEO", "Quarry Systems")
        if group <= said:
            return None  # the older holder, or another older value, comes first
        if _opened_by(words, group, _SCOPES):
            return None
        start = min(i for i, word in enumerate(words) if word in group)
        if _added(words[:start], said) or _narrowed(words[start:], said):
            return None
        return group
    return None


def _narrowed(after: Sequence[str], said: set[str]) -> bool:
    """A scope the older did not name follows the value ("35 euros a month for the spring
    term"): said for something else, both can hold."""
    return any(word in _SCOPES and word not in said for word in after)


def _added(before: Sequence[str], said: set[str]) -> list[str]:
    """Words before the new value that the older did not say: function words and change
    cues aside, bar a preposition that opens another slot ("run on c6i.xlarge" after "run
    Envoy"); one right after a cue word belongs to the cue ("moved to", "swapped for")."""
    added = []
    for index, word in enumerate(before):
        if word in said or word in _TITLE_WORDS:
            continue
        after_cue = index > 0 and before[index - 1] in _CUE_WORDS
        opens_a_slot = word in lx.PREPOSITIONS and not after_cue
        if opens_a_slot or (word not in _NOT_VALUES and word not in _CUE_WORDS):
            added.append(word)
    return added


def _opened_by(words: Sequence[str], group: Group, openers: frozenset[str]) -> bool:
    """Whether the phrase holding the group opens with one of ``openers``: the nearest
    preposition before it, within three words ("for week 12", "per person")."""
    start = min(i for i, word in enumerate(words) if word in group)
    for word in reversed(words[max(0, start - 3) : start]):
        if word in openers:
            return True
        if word in lx.PREPOSITIONS or word in lx.COPULAS:
            return False
    return False


def _two_items(old: Group, new: Group) -> bool:
    """Both the name and the number differ ("Python 3.12" / "Django 5.0"): another item
    with its own version, not one value changed twice."""
    old_numbers, new_numbers = _numbers(old), _numbers(new)
    old_names, new_names = old - old_numbers, new - new_numbers
    return bool(old_numbers and old_names and new_numbers and new_names) and not (
        old_names & new_names or old_numbers & new_numbers
    )


def _numbers(group: Group) -> set[str]:
    return {word for word in group if any(ch.isdigit() for ch in word)}


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)  # a scan reads each newer text many times
def _parts(text: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """The text's clauses, cut at their asides ("Since the January rotation, Beatriz has
    been ..." holds two parts), each with its words."""
    pieces = [piece for clause in clauses(text) for piece in _ASIDE.split(clause)]
    return tuple((piece, frozenset(_ordered_words(piece))) for piece in pieces if piece.strip())


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _ordered_words(text: str) -> tuple[str, ...]:
    return tuple(stem(word.lower) for word in split_words(text) if not word.punct)


def _value_groups(text: str, names: frozenset[str] = frozenset()) -> list[Group]:
    """Runs of capitalised words and of words with digits (titles left out, name particles
    such as "de" or "van" kept inside a run), in order: the names, numbers and dates a
    text says. A clause's first word counts when it is among ``names``, the words written
    capitalised elsewhere ("Kwame is ..." / "... of Kwame"), or when a capitalised word
    follows it ("Ingrid Solberg is ...")."""
    return list(_groups(text, names & _first_words(text)))


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _first_words(text: str) -> frozenset[str]:
    return frozenset(words[0].lower for clause in clauses(text) if (words := _named_words(clause)))


def _named_words(clause: str) -> list[Word]:
    """The clause's words without titles ("Dr. Haddad" reads as "Haddad")."""
    return [w for w in split_words(clause) if w.lower not in _TITLE_WORDS and w.raw != "."]


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _groups(text: str, names: frozenset[str]) -> tuple[Group, ...]:
    groups: list[Group] = []
    for clause in clauses(text):
        words = _named_words(clause)
        valued = [_is_value(words, index, names) for index in range(len(words))]
        run: list[str] = []
        for index, word in enumerate(words):
            inside = run and word.lower in _NAME_PARTICLES and index + 1 < len(words)
            if valued[index] or (inside and valued[index + 1]):
                run.append(stem(word.lower))
            elif run:
                groups.append(frozenset(run))
                run = []
        if run:
            groups.append(frozenset(run))
    return tuple(groups)


def _is_value(words: list[Word], index: int, names: frozenset[str]) -> bool:
    word = words[index]
    if _DIGIT.search(word.raw):
        return True
    if not word.raw[:1].isupper() or word.lower in _NOT_VALUES:
        return False
    if index > 0 or word.lower in names:
        return True
    following = words[1] if len(words) > 1 else None
    return (
        following is not None and following.raw[:1].isupper() and following.lower not in _NOT_VALUES
    )


def _initialisms(text: str, role: list[str]) -> set[str]:
    """The role's words an initialism of the text stands for ("PI": principal
    investigator): two to five capitals that are the initials of role words in a row."""
    found: set[str] = set()
    for word in split_words(text):
        if _INITIALISM.fullmatch(word.raw):
            found |= _spelled(word.raw.lower(), role)
    return found


def _spelled(initials: str, words: list[str]) -> set[str]:
    for start in range(len(words) - len(initials) + 1):
        span = words[start : start + len(initials)]
        if "".join(word[0] for word in span) == initials:
            return set(span)
    return set()


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _cues(text: str) -> tuple[str, ...]:
    return tuple(cue for cue, _ in find_phrases(plain_words(text), lx.CHANGE_CUES))


def _negated(text: str) -> bool:
    return bool({word.lower for word in split_words(text)} & lx.NEGATIONS)


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _adds(text: str) -> bool:
    lowered = [word.lower for word in split_words(text)]
    return bool(set(lowered) & _ADDING) or bool(find_phrases(lowered, lx.ADDITIVE_CUES))
