"""Short statements taken apart for the rule judge: words typed as values, verbs or content,
where the subject ends, negations, and the cue phrases a newer statement uses.

No parser, no model: a tokenizer, the word lists of
:mod:`thoughtgraph.domain.language.lexicon` and a few positional rules. Good enough for the
one-or-two-sentence thoughts agents write.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace

from thoughtgraph.domain.language import lexicon as lx
from thoughtgraph.domain.language.subject_bounds import (
    NUMBER,
    name_description,
    predicate_start,
    subject_start,
)
from thoughtgraph.domain.language.words import (
    TEXT_CACHE_SIZE,
    Word,
    find_phrases,
    lasting_now,
    split_words,
    stem,
)

_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
_TIME = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$")
_CAMEL = re.compile(r"[a-z][A-Z]")

CONTENT, VERB, VALUE = "content", "verb", "value"


@dataclass(frozen=True)
class Token:
    """A word that says something: a value, a verb or a content word."""

    raw: str
    norm: str  # what equality is judged on: stem, verb base, normalised number
    position: int  # index among the clause's words
    kind: str  # CONTENT | VERB | VALUE
    value_type: str | None  # number, time, ident, name, state, label (VALUE only)
    in_subject: bool  # from the subject's start to the first verb: what the statement is about
    capitalised: bool
    scope: bool = False  # in a "for ..." phrase after the verb: whom or what it applies to
    describes_name: bool = False  # "daughter" in "my daughter Mia": says who Mia is

    @property
    def names_the_subject(self) -> bool:
        """A subject word that names what the statement is about: not a verb, not a number
        or a time ("Employees get 25 days": '25' is the value that changes)."""
        return self.in_subject and self.kind != VERB and self.value_type not in ("number", "time")


@dataclass(frozen=True)
class Statement:
    text: str
    words: tuple[Word, ...]
    tokens: tuple[Token, ...]
    boundary: int  # index of the first verb (len(words) when none was found)
    negations: int
    definite: bool  # "the X", "our X", "Jane's X": one thing, one value
    change_cues: tuple[str, ...]
    additive_cues: tuple[str, ...]
    negating_cue: bool
    # Positions of the words naming the older value ("switched from X to ..."), and their norms.
    mention_positions: frozenset[int]
    old_mention: frozenset[str]
    subject_start: int = 0  # index of the subject's first word, after a fronted phrase

    @functools.cached_property
    def norms(self) -> frozenset[str]:  # read many times per judgement: computed once
        return frozenset(token.norm for token in self.tokens)

    @functools.cached_property
    def adjunct_start(self) -> int:
        """Index of a trailing clause that says when or why ("is Riverside Stadium after the
        move"): it dates or explains the statement and is no detail of what it says."""
        lowered = [w.lower for w in self.words]
        novel = {span[0] for _, span in find_phrases(lowered, lx.NOVELTY_CUES)}
        after = range(self.boundary + 1, len(self.words))
        return next((i for i in after if lowered[i] in lx.ADJUNCTS or i in novel), len(lowered))

    @property
    def boundary_word(self) -> str | None:
        return self.words[self.boundary].lower if self.boundary < len(self.words) else None

    @property
    def verb_base(self) -> str | None:
        """The base form of the word where the predicate starts ("used" -> "use")."""
        word = self.boundary_word
        return lx.VERB_FORM_BASE.get(word, word) if word is not None else None

    @property
    def polarity(self) -> int:
        return (self.negations + (1 if self.negating_cue else 0)) % 2


def parse(text: str, *, names: set[str], older: Statement | None = None) -> Statement:
    """Take one clause apart; ``older`` given means this is the newer statement of a pair,
    whose change and additive cues count only when the older one does not use them too."""
    # A clause reads the same in every pair but for whether its first word is a name
    # elsewhere and, as the newer of two, which of its cues the older one shares: a scan
    # parses each thought a few times, not once a pair.
    layout = _layout(text)
    first_is_name = bool(layout.words) and layout.words[0].lower in names
    if older is None:
        return _parse_cached(text, first_is_name, as_newer=False)
    lowered = [w.lower for w in layout.words]
    fronted_change = layout.subject_start and lowered[0] in lx.CHANGE_FRONTING
    cues = find_phrases(lowered, lx.CHANGE_CUES) or find_phrases(lowered, lx.ADDITIVE_CUES)
    if not cues and not fronted_change:
        return _parse_cached(text, first_is_name, as_newer=True)  # the older cannot matter
    return _parse(text, names=names, older=older, as_newer=True)


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _parse_cached(text: str, first_is_name: bool, *, as_newer: bool) -> Statement:
    first = _layout(text).words[0].lower if first_is_name else None
    names = {first} if first is not None else set()
    return _parse(text, names=names, older=None, as_newer=as_newer)


def _parse(text: str, *, names: set[str], older: Statement | None, as_newer: bool) -> Statement:
    """``as_newer`` without ``older``: a newer statement with no cue phrases at all."""
    layout = _layout(text)
    words, start, boundary = list(layout.words), layout.subject_start, layout.boundary

    def token_at(index: int) -> Token | None:
        # Only the first word's reading depends on the pair (is it a name elsewhere?).
        return layout.tokens[index] if index else _token(words, 0, (start, boundary), names)

    lowered = [w.lower for w in words]
    skip: set[int] = set()
    change: list[str] = []
    additive: list[str] = []
    negating = False
    if older is not None:  # the newer of two, with cue phrases
        older_text = " ".join(w.lower for w in older.words)
        for phrase, span in find_phrases(lowered, lx.CHANGE_CUES):
            if lasting_now(lowered, span.start):
                continue
            if not re.search(rf"\b{re.escape(phrase)}\b", older_text):
                change.append(phrase)
                negating = negating or phrase in lx.NEGATING_CUES
                skip |= set(span)
        for phrase, span in find_phrases(lowered, lx.ADDITIVE_CUES):
            if not re.search(rf"\b{re.escape(phrase)}\b", older_text):
                additive.append(phrase)
                skip |= set(span)
        fronted = words[0].lower if start else None
        older_first = older.words[0].lower if older.words else None
        if fronted in lx.CHANGE_FRONTING and older_first != fronted:
            change.append(fronted)
            skip |= set(range(start))
    elif not as_newer:
        # Cue words in an older statement are no change between the two: drop "now" & co.
        skip |= {i for _, span in find_phrases(lowered, ("now", "currently")) for i in span}
    mention = _old_value_words(words, older) if older is not None and change else set()
    tokens: list[Token] = []
    negations = 0
    for index, word in enumerate(words):
        if word.punct or index in skip:
            continue
        if word.lower in lx.NEGATIONS:
            negations += 1
            continue
        token = token_at(index)
        if token is not None:
            tokens.append(token)
    first = words[start] if start < len(words) else None
    definite = first is not None and (first.lower in lx.DETERMINERS or first.possessive)
    definite = definite or any(w.possessive for w in words[start:boundary])
    mentioned = {token_at(i) for i in mention}
    return Statement(
        text=text,
        words=tuple(words),
        tokens=tuple(tokens),
        boundary=boundary,
        negations=negations,
        definite=definite,
        change_cues=tuple(change),
        additive_cues=tuple(additive),
        negating_cue=negating,
        mention_positions=frozenset(mention),
        old_mention=frozenset(t.norm for t in mentioned if t is not None),
        subject_start=start,
    )


@dataclass(frozen=True)
class _Layout:
    """What parsing a clause needs that depends on its text alone."""

    words: tuple[Word, ...]
    subject_start: int
    boundary: int
    tokens: tuple[Token | None, ...]  # by word index; index 0 is read per pair (None here)


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)
def _layout(text: str) -> _Layout:
    words = split_words(text)
    start = subject_start(words)
    boundary = start + predicate_start(words[start:])
    subject = (start, boundary)
    described = name_description(words[start:])
    describing = [] if described is None else [start + i for i in described[0]]
    tokens = tuple(
        _describing(_token(words, i, subject, set()), i in describing) if i else None
        for i in range(len(words))
    )
    return _Layout(tuple(words), start, boundary, tokens)


def said(tokens: list[Token]) -> str:
    """Tokens as an explanation quotes them, in text order ("nothing" for none)."""
    if not tokens:
        return "nothing"
    return "'" + " ".join(t.raw for t in sorted(tokens, key=lambda t: t.position)) + "'"


def _describing(token: Token | None, describes: bool) -> Token | None:
    return replace(token, describes_name=True) if token is not None and describes else token


def _old_value_words(words: list[Word], older: Statement) -> set[int]:
    """Indexes of the words that name the older statement's value ("switched from Jenkins
    to ..."): only when every word there that says something is in the older statement."""
    joined, starts = "", []
    for word in words:
        starts.append(len(joined) + (1 if joined else 0))
        joined = f"{joined} {word.lower}" if joined else word.lower
    older_norms = older.norms
    for pattern in lx.OLD_VALUE_PATTERNS:
        match = pattern.search(joined)
        if match is None:
            continue
        start, end = match.span("old")
        indexes = [i for i, at in enumerate(starts) if start <= at < end]
        said = [
            i
            for i in indexes
            if not words[i].punct and words[i].lower not in lx.FUNCTION_WORDS | lx.NEGATIONS
        ]
        if said and all(_norm_of(words, i) in older_norms for i in said):
            return set(indexes)
    return set()


def _norm_of(words: list[Word], index: int) -> str:
    token = _token(words, index, (0, 0), set())
    return token.norm if token is not None else words[index].lower


def _token(
    words: list[Word], index: int, subject: tuple[int, int], names: set[str]
) -> Token | None:
    """The token of ``words[index]``; ``subject`` is (start, end) of the subject's words."""
    start, boundary = subject
    in_subject = start <= index < boundary
    word = words[index]
    lower = word.lower
    if word.punct or lower in lx.NEGATIONS:
        return None
    particle = (
        lower in lx.PARTICLES
        and index > 0
        and (
            words[index - 1].lower in lx.VERB_FORM_BASE
            or words[index - 1].lower in lx.IRREGULAR_VERBS
        )
    )
    if particle:
        return Token(word.raw, lower, index, VALUE, "state", in_subject, False)
    if lower in lx.FUNCTION_WORDS and not (lower == "may" and word.raw[0].isupper()):
        return None
    value_type, norm = _value(words, index, names)
    kind = VALUE if value_type is not None else CONTENT
    # A verb form before the verb or in -ing is a noun or a modifier ("the deploy window",
    # "the billing service"), compared like any other word.
    verb = lower in lx.VERB_FORM_BASE or lower in lx.IRREGULAR_VERBS
    if kind is CONTENT and verb and index >= boundary and not lower.endswith("ing"):
        kind, norm = VERB, lx.VERB_FORM_BASE.get(lower, lower)
    return Token(
        raw=word.raw,
        norm=norm,
        position=index,
        kind=kind,
        value_type=value_type,
        in_subject=in_subject,
        capitalised=word.raw[:1].isupper(),
        scope=_after_for(words, index, boundary),
    )


def _after_for(words: list[Word], index: int, boundary: int) -> bool:
    """Whether the word sits in a "for ..." phrase of the predicate ("is enabled for the API
    tier"; not "the Slack channel for incidents is ..."; "for 15 days" is a measure)."""
    for previous in range(index, boundary, -1):
        lower = words[previous].lower
        if NUMBER.match(lower):
            return False
        if previous < index and lower == "for":
            return True
        if words[previous].punct or lower in lx.PREPOSITIONS or lower in lx.VERB_FORM_BASE:
            return False
    return False


def _value(words: list[Word], index: int, names: set[str]) -> tuple[str | None, str]:
    """(value type, normalised form) of a word, or (None, stem) for a plain word."""
    word = words[index]
    raw, lower = word.raw, word.lower
    previous = words[index - 1].lower if index > 0 else ""
    time = _TIME.match(lower)
    if time and (time.group(2) or time.group(3)):
        hour = int(time.group(1)) % 12 + (12 if time.group(3) == "pm" else 0)
        hour = hour if time.group(3) else int(time.group(1))
        return "time", f"{hour}:{time.group(2) or '00'}"
    if NUMBER.match(lower):
        return "number", lower
    ordinal = _ORDINAL.match(lower)
    if ordinal:
        return "number", f"{int(ordinal.group(1))}th"
    if lower in lx.NUMBER_WORDS:
        return "number", lx.NUMBER_WORDS[lower]
    stemmed = stem(lower)
    if lower == "second" and NUMBER.match(previous):
        return "label", "second"
    if lower in lx.ORDINAL_WORDS:
        return "number", lx.ORDINAL_WORDS[lower]
    if stemmed in lx.TIME_WORDS or lower in lx.TIME_WORDS:
        return "time", stemmed if stemmed in lx.TIME_WORDS else lower
    has_digit = any(c.isdigit() for c in lower)
    if (
        (has_digit and any(c.isalpha() for c in lower))
        or raw[:1] in "#@$"
        or re.search(r"\w[./_@]\w", raw)
        or _CAMEL.search(raw)
        or raw.count("-") >= 2  # acme-backups-old
    ):
        return "ident", lower
    if lower in lx.STATE_WORDS:
        return "state", lower
    if stemmed in lx.LABELS:
        return "label", stemmed
    if len(raw) >= 2 and raw.isupper() and raw.isalpha():
        return "name", lower  # DEBUG, WARN, SLA
    if raw[:1].isupper() and (index > 0 or lower in names):
        return "name", lower
    return None, stemmed
