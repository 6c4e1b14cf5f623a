"""Temporal resolution (app/knowledge/temporal.py): relative expressions found in text and
resolved against the day the text was written, on a table of expressions x anchor days
(week, month and year boundaries, a leap day, a Sunday anchor), texts with none, and
properties over random anchors."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from thoughtgraph.domain.language.temporal import Granularity, find_expressions, resolve

D, WE, W, M, Y = (
    Granularity.DAY,
    Granularity.WEEKEND,
    Granularity.WEEK,
    Granularity.MONTH,
    Granularity.YEAR,
)


def at(day: str, hour: int = 15) -> int:
    """Epoch ms of ``day`` (YYYY-MM-DD) at ``hour`` UTC."""
    moment = datetime.fromisoformat(day).replace(hour=hour, tzinfo=UTC)
    return int(moment.timestamp() * 1000)


# (expression, anchor day, first day, last day, granularity). The expression is embedded
# in a sentence below, so offsets are checked too.
TABLE = [
    # A plain Wednesday (seed 003's example: said on 8 May, "yesterday" is 7 May).
    ("yesterday", "2023-05-08", "2023-05-07", "2023-05-07", D),
    ("today", "2023-05-08", "2023-05-08", "2023-05-08", D),
    ("this morning", "2023-05-08", "2023-05-08", "2023-05-08", D),
    ("last night", "2023-05-08", "2023-05-07", "2023-05-07", D),
    ("tomorrow", "2023-05-08", "2023-05-09", "2023-05-09", D),
    ("two days ago", "2023-05-08", "2023-05-06", "2023-05-06", D),
    ("the day before yesterday", "2023-05-08", "2023-05-06", "2023-05-06", D),
    ("a couple of days ago", "2023-05-08", "2023-05-06", "2023-05-06", D),
    ("in 3 days", "2023-05-08", "2023-05-11", "2023-05-11", D),
    ("next Friday", "2023-05-08", "2023-05-12", "2023-05-12", D),
    ("last week", "2023-05-08", "2023-05-01", "2023-05-07", W),
    ("last month", "2023-05-08", "2023-04-01", "2023-04-30", M),
    ("last year", "2023-05-08", "2022-01-01", "2022-12-31", Y),
    # A Sunday anchor: last week is the Monday-to-Sunday week before the anchor's week;
    # a bare weekday is the most recent one before the anchor's day.
    ("last week", "2024-03-03", "2024-02-19", "2024-02-25", W),
    ("on Tuesday", "2024-03-03", "2024-02-27", "2024-02-27", D),
    ("Sunday", "2024-03-03", "2024-02-25", "2024-02-25", D),
    ("this week", "2024-03-03", "2024-02-26", "2024-03-03", W),
    ("next week", "2024-03-03", "2024-03-04", "2024-03-10", W),
    ("last weekend", "2024-03-03", "2024-02-24", "2024-02-25", WE),
    ("three weeks ago", "2024-03-03", "2024-02-05", "2024-02-11", W),
    ("next Friday", "2024-03-03", "2024-03-08", "2024-03-08", D),
    # A Monday anchor: the week boundary is just behind it.
    ("yesterday", "2024-03-04", "2024-03-03", "2024-03-03", D),
    ("last week", "2024-03-04", "2024-02-26", "2024-03-03", W),
    ("on Tuesday", "2024-03-04", "2024-02-27", "2024-02-27", D),
    # Month boundary onto a leap day.
    ("yesterday", "2024-03-01", "2024-02-29", "2024-02-29", D),
    ("two days ago", "2024-03-01", "2024-02-28", "2024-02-28", D),
    ("last month", "2024-03-01", "2024-02-01", "2024-02-29", M),
    # The leap day itself, and the same boundary in a common year.
    ("tomorrow", "2024-02-29", "2024-03-01", "2024-03-01", D),
    ("in 3 days", "2024-02-29", "2024-03-03", "2024-03-03", D),
    ("yesterday", "2025-03-01", "2025-02-28", "2025-02-28", D),
    ("last month", "2025-03-01", "2025-02-01", "2025-02-28", M),
    # Year boundary.
    ("yesterday", "2024-01-01", "2023-12-31", "2023-12-31", D),
    ("last week", "2024-01-01", "2023-12-25", "2023-12-31", W),
    ("last month", "2024-01-01", "2023-12-01", "2023-12-31", M),
    ("2 months ago", "2024-01-15", "2023-11-01", "2023-11-30", M),
    ("in two weeks", "2024-01-01", "2024-01-15", "2024-01-21", W),
]


@pytest.mark.parametrize(("expression", "anchor", "first", "last", "granularity"), TABLE)
def test_an_expression_resolves_against_its_anchor_day(
    expression: str, anchor: str, first: str, last: str, granularity: Granularity
) -> None:
    text = f"Caroline said she went to the support group {expression}, it went well."
    (found,) = resolve(text, at(anchor))
    assert found.expression == expression
    assert text[found.start : found.end] == expression
    assert (found.range_start, found.range_end) == (
        date.fromisoformat(first),
        date.fromisoformat(last),
    )
    assert found.granularity is granularity
    assert found.range_start <= found.date <= found.range_end


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Nothing in this note refers to time.",
        "The API server listens on port 8080 behind 10.0.0.8.",
        "Release 2.0.1 was build 20240301 with 3 workers and 12 retries.",
        "We met the platform team and we agreed on the plan.",  # "We" is no Wednesday
        "Tuesdays are quiet; mondays are not.",
        "The weekend rota is posted on the wiki.",  # no "last" / "this" / "next"
        "A few days of work remain.",
    ],
)
def test_text_without_a_relative_expression_resolves_to_nothing(text: str) -> None:
    assert resolve(text, at("2024-03-03")) == []


def test_several_expressions_come_in_order_with_their_offsets() -> None:
    text = (
        "We deployed two days ago and rolled back on Tuesday; port 8080 has been closed "
        "since last week and the review is next Friday."
    )
    found = resolve(text, at("2024-03-03"))
    assert [(f.expression, f.date.isoformat()) for f in found] == [
        ("two days ago", "2024-03-01"),
        ("on Tuesday", "2024-02-27"),
        ("last week", "2024-02-25"),
        ("next Friday", "2024-03-08"),
    ]
    assert all(text[f.start : f.end] == f.expression for f in found)


def test_the_longest_expression_wins_where_two_overlap() -> None:
    (found,) = find_expressions("It shipped the day before yesterday.")
    assert found.phrase == "2 days ago"
    (weekend,) = resolve("See you next weekend", at("2024-03-06"))
    assert weekend.granularity is Granularity.WEEKEND
    assert (weekend.range_start, weekend.range_end) == (date(2024, 3, 16), date(2024, 3, 17))


def test_the_anchor_is_read_in_utc() -> None:
    # 23:30 in New York on 3 March is 04:30 UTC on 4 March: "yesterday" is 3 March.
    late = datetime(2024, 3, 3, 23, 30, tzinfo=UTC) + timedelta(hours=5)
    (found,) = resolve("yesterday", int(late.timestamp() * 1000))
    assert found.date == date(2024, 3, 3)


def test_expressions_are_found_whatever_their_case_and_spacing() -> None:
    found = resolve("YESTERDAY and  Last\tWeek and THREE weeks ago", at("2024-03-03"))
    assert [f.granularity for f in found] == [D, W, W]


days = st.dates(min_value=date(1990, 1, 1), max_value=date(2090, 12, 31))


@settings(max_examples=200, deadline=None)
@given(anchor=days, n=st.integers(min_value=1, max_value=30))
def test_day_offsets_and_weeks_hold_for_any_anchor(anchor: date, n: int) -> None:
    anchor_ms = at(anchor.isoformat(), hour=12)
    found = resolve(f"yesterday, {n} days ago, in {n} days, last week", anchor_ms)
    yesterday, ago, ahead, week = found
    assert yesterday.date == anchor - timedelta(days=1)
    assert ago.date == anchor - timedelta(days=n)
    assert ahead.date == anchor + timedelta(days=n)
    # Last week: a Monday-to-Sunday week ending the Sunday before the anchor's week.
    assert week.range_start.weekday() == 0 and week.range_end.weekday() == 6
    assert week.range_end == anchor - timedelta(days=anchor.weekday() + 1)
