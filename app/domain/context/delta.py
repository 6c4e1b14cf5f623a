"""The delta header: what changed in the namespace since the caller's revision,
as a title with counts and at most three bullets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from thoughtgraph.domain.changes import ChangeEvent, ChangeKind
from thoughtgraph.domain.context.compression import one_line
from thoughtgraph.domain.context.model import DeltaHeader
from thoughtgraph.domain.language.extractive import truncate_chars

MAX_BULLETS = 3
PREVIEW_CHARS = 80

# The categories an agent is told about, by change kind; maintenance bookkeeping (links,
# topic assignment, summaries, contradictions, which tier 1 shows) is not news here.
CATEGORY: Mapping[ChangeKind, str] = {
    ChangeKind.CREATED: "created",
    ChangeKind.EPISODE_INGESTED: "created",
    ChangeKind.REFINED: "updated",
    ChangeKind.PINNED: "updated",
    ChangeKind.UNPINNED: "updated",
    ChangeKind.CONSOLIDATED: "merged",
    ChangeKind.MERGED: "merged",
    ChangeKind.SUPERSEDED: "superseded",
    ChangeKind.SOFT_DELETED: "forgotten",
    ChangeKind.PURGED: "forgotten",
    ChangeKind.RESTORED: "restored",
    ChangeKind.UNMERGED: "restored",
}
# Bullets go to what most changes what an agent believes: retired knowledge first.
PRIORITY = ("superseded", "forgotten", "merged", "updated", "restored", "created")
SYMBOL: Mapping[str, str] = {
    "created": "+",
    "updated": "↑",
    "merged": "↔",
    "superseded": "↓",
    "forgotten": "⊘",
    "restored": "↺",
}


def categorise(events: Sequence[ChangeEvent]) -> dict[str, list[ChangeEvent]]:
    """Events by category, in PRIORITY order, oldest first within each."""
    grouped: dict[str, list[ChangeEvent]] = {category: [] for category in PRIORITY}
    for event in events:
        category = CATEGORY.get(event.kind)
        if category is not None:
            grouped[category].append(event)
    return {category: found for category, found in grouped.items() if found}


def subject_ids(events: Sequence[ChangeEvent]) -> list[str]:
    """The ids whose content the bullets quote: each category's newest subject."""
    return [found[-1].subject_id for found in categorise(events).values()][:MAX_BULLETS]


def delta_header(
    since_revision: int,
    revision: int,
    events: Sequence[ChangeEvent],
    previews: Mapping[str, str],
    *,
    more: bool = False,
) -> DeltaHeader | None:
    """None when nothing an agent is told about changed. ``previews`` maps subject ids to
    their text; ``more``: the events were cut at a limit, so counts are lower bounds."""
    grouped = categorise(events)
    if revision <= since_revision or not grouped:
        return None
    counts = {category: len(found) for category, found in grouped.items()}
    bullets = tuple(
        _bullet(category, found, previews)
        for category, found in list(grouped.items())[:MAX_BULLETS]
    )
    return DeltaHeader(
        since_revision=since_revision,
        revision=revision,
        counts=counts,
        bullets=bullets,
        truncated=more,
    )


def _bullet(category: str, events: Sequence[ChangeEvent], previews: Mapping[str, str]) -> str:
    newest = events[-1]
    text = previews.get(newest.subject_id) or f"{newest.subject_kind.value} {newest.subject_id}"
    others = len(events) - 1
    tail = f" (+{others} more)" if others else ""
    return f"- {SYMBOL[category]}{category}: {truncate_chars(one_line(text), PREVIEW_CHARS)}{tail}"
