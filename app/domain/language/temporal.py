"""Relative time expressions in stored text ("yesterday", "last week", "on Tuesday", "two
days ago", "in 3 days", ...) found and resolved against the moment the text was written.

Pure: text and an anchor in, resolutions out. The anchor is a thought's ``validFrom`` (its
creation unless given), in epoch milliseconds, read as UTC.

Why our own span finding: ``dateparser.search.search_dates`` reads "We" as Wednesday, a
port such as "8080" as a year and swallows trailing words ("two days ago and"), and it is
slow. Spans are found here with patterns that only match relative expressions; each span,
normalised (number words to digits, "on Tuesday" to "Tuesday", "this past" to "last"), is
then parsed by ``dateparser`` with ``RELATIVE_BASE`` set to the anchor's day. The point it
returns is widened to the range the expression names: a day, a weekend, a calendar week
(Monday to Sunday, ISO), a month or a year.

Conventions (dateparser's, with past preferred, as notes mostly tell what happened): a
bare weekday ("on Tuesday", "Tuesday") is the most recent one before the anchor's day;
"next Tuesday" is the first one after it, "this Tuesday" the coming one.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from functools import lru_cache

MAX_RESOLUTIONS = 50  # per text: bounds the work on a long, date-heavy note


class Granularity(StrEnum):
    DAY = "day"
    WEEKEND = "weekend"
    WEEK = "week"
    MONTH = "month"
    YEAR = "year"


@dataclass(frozen=True)
class TemporalResolution:
    """One relative expression and the dates it stands for."""

    expression: str  # as written in the text
    start: int  # character offsets of the expression in the text: text[start:end]
    end: int
    date: dt.date  # the day the expression points at
    range_start: dt.date  # the whole span it names (one day for a day)
    range_end: dt.date  # inclusive
    granularity: Granularity

    def describe(self) -> str:
        """The resolution in words, for answers and prompts: "2024-03-02" or a range."""
        if self.range_start == self.range_end:
            return self.range_start.isoformat()
        return f"{self.range_start.isoformat()} to {self.range_end.isoformat()}"


# --- span patterns ------------------------------------------------------------------------

_NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "a couple": 2,
}
_NUMBER = (
    r"(?P<n>\d{1,3}|a\s+couple(?:\s+of)?|"
    + "|".join(sorted((w for w in _NUMBER_WORDS if " " not in w), key=len, reverse=True))
    + ")"
)
_UNIT = r"(?P<unit>day|week|month|year)s?"
_WEEKDAY = r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_PERIOD_OF_DAY = r"(?:morning|afternoon|evening|night)"
_UNIT_GRANULARITY = {
    "day": Granularity.DAY,
    "week": Granularity.WEEK,
    "month": Granularity.MONTH,
    "year": Granularity.YEAR,
}


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    phrase: str  # what dateparser is asked to parse
    granularity: Granularity


_Reader = Callable[["re.Match[str]"], tuple[str, Granularity]]


def _count(match: re.Match[str]) -> int:
    word = " ".join(match.group("n").lower().split())
    return int(word) if word.isdigit() else _NUMBER_WORDS[word]


def _ago(match: re.Match[str]) -> tuple[str, Granularity]:
    unit = match.group("unit").lower()
    return f"{_count(match)} {unit}s ago", _UNIT_GRANULARITY[unit]


def _ahead(match: re.Match[str]) -> tuple[str, Granularity]:
    unit = match.group("unit").lower()
    return f"in {_count(match)} {unit}s", _UNIT_GRANULARITY[unit]


def _relative_word(match: re.Match[str]) -> str:
    word = " ".join(match.group("rel").lower().split())
    if word in ("previous", "past", "this past"):
        return "last"
    if word in ("coming", "this coming"):
        return "next"
    return word


def _period(match: re.Match[str]) -> tuple[str, Granularity]:
    unit = match.group("unit").lower()
    return f"{_relative_word(match)} {unit}", _UNIT_GRANULARITY[unit]


def _weekend(match: re.Match[str]) -> tuple[str, Granularity]:
    # Parsed as the week it belongs to; widened to that week's Saturday and Sunday.
    return f"{_relative_word(match)} week", Granularity.WEEKEND


def _weekday(match: re.Match[str]) -> tuple[str, Granularity]:
    day = match.group("weekday").lower()
    rel = match.group("rel")
    if rel is None or rel.lower() == "on":
        return day, Granularity.DAY  # past preferred: the most recent one
    return f"{_relative_word(match)} {day}", Granularity.DAY


def _fixed(phrase: str) -> _Reader:
    return lambda match: (phrase, Granularity.DAY)


def _day_word(match: re.Match[str]) -> tuple[str, Granularity]:
    word = match.group("word").lower()
    return ("today" if word == "tonight" else word), Granularity.DAY


# Longest forms first where one pattern's match could start another's.
_PATTERNS: tuple[tuple[re.Pattern[str], _Reader], ...] = tuple(
    (re.compile(rf"\b{pattern}\b", re.IGNORECASE), reader)
    for pattern, reader in (
        (r"the\s+day\s+before\s+yesterday", _fixed("2 days ago")),
        (r"the\s+day\s+after\s+tomorrow", _fixed("in 2 days")),
        (rf"(?P<word>yesterday|today|tonight|tomorrow)(?:\s+{_PERIOD_OF_DAY})?", _day_word),
        (r"this\s+(?:morning|afternoon|evening)", _fixed("today")),
        (r"last\s+night", _fixed("yesterday")),
        (rf"{_NUMBER}\s+{_UNIT}\s+ago", _ago),
        (rf"in\s+{_NUMBER}\s+{_UNIT}", _ahead),
        (rf"{_NUMBER}\s+{_UNIT}\s+from\s+now", _ahead),
        (
            r"(?P<rel>this\s+past|this\s+coming|last|next|this|previous|past|coming)"
            r"\s+weekend",
            _weekend,
        ),
        (
            r"(?P<rel>this\s+past|this\s+coming|last|next|this|previous|past|coming)"
            r"\s+(?P<unit>week|month|year)",
            _period,
        ),
        (
            rf"(?:(?P<rel>this\s+past|this\s+coming|last|next|this|coming|on)\s+)?{_WEEKDAY}",
            _weekday,
        ),
    )
)


def find_expressions(text: str) -> list[_Span]:
    """Every relative expression in ``text``, in order, none overlapping another (at one
    place the longest wins)."""
    found: list[_Span] = []
    for pattern, reader in _PATTERNS:
        for match in pattern.finditer(text):
            phrase, granularity = reader(match)
            found.append(_Span(match.start(), match.end(), phrase, granularity))
    found.sort(key=lambda span: (span.start, -(span.end - span.start)))
    kept: list[_Span] = []
    for span in found:
        if kept and span.start < kept[-1].end:
            continue
        kept.append(span)
    return kept


# --- resolution ---------------------------------------------------------------------------


def anchor_day(anchor_ms: int) -> dt.date:
    return datetime.fromtimestamp(anchor_ms / 1000, tz=UTC).date()


@lru_cache(maxsize=4096)
def _parse(phrase: str, anchor: dt.date) -> dt.date | None:
    """The day dateparser makes of ``phrase`` said on ``anchor``; cached, as the same few
    phrases and days come back for every thought of a conversation."""
    import dateparser  # loads its language data on first use: only where it is needed

    base = datetime(anchor.year, anchor.month, anchor.day, 12, 0)
    parsed = dateparser.parse(
        phrase,
        languages=["en"],
        settings={
            "RELATIVE_BASE": base,
            "PREFER_DATES_FROM": "past",
            "RETURN_AS_TIMEZONE_AWARE": False,
            "STRICT_PARSING": False,
        },
    )
    return parsed.date() if parsed is not None else None


def _widen(day: dt.date, granularity: Granularity) -> tuple[dt.date, dt.date]:
    if granularity is Granularity.DAY:
        return day, day
    monday = day - timedelta(days=day.weekday())
    if granularity is Granularity.WEEK:
        return monday, monday + timedelta(days=6)
    if granularity is Granularity.WEEKEND:
        return monday + timedelta(days=5), monday + timedelta(days=6)
    if granularity is Granularity.MONTH:
        last = calendar.monthrange(day.year, day.month)[1]
        return day.replace(day=1), day.replace(day=last)
    return dt.date(day.year, 1, 1), dt.date(day.year, 12, 31)


def _resolve(text: str, anchor: dt.date) -> Iterator[TemporalResolution]:
    for span in find_expressions(text)[:MAX_RESOLUTIONS]:
        day = _parse(span.phrase, anchor)
        if day is None:  # a form dateparser does not take: left unresolved, not guessed
            continue
        first, last = _widen(day, span.granularity)
        if span.granularity is Granularity.WEEKEND:
            day = first
        yield TemporalResolution(
            expression=text[span.start : span.end],
            start=span.start,
            end=span.end,
            date=day,
            range_start=first,
            range_end=last,
            granularity=span.granularity,
        )


def resolve(text: str, anchor_ms: int) -> list[TemporalResolution]:
    """The relative expressions in ``text`` resolved against ``anchor_ms`` (epoch ms, UTC),
    in the order they appear."""
    return list(_resolve(text, anchor_day(anchor_ms)))
