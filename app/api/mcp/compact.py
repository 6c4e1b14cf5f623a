"""The text a model reads from a tool's answer: a few short lines, one per item, beside
the structured content (the full shape, validated against the tool's output schema) that
programs read.

A thought is one line: its id (whole: the one to pass back to a tool), kind, date
(YYYY-MM-DD, when it became true), markers ([superseded], [forgotten], [until ...]) and
its content on one line, cut at a word near ``PREVIEW_CHARS``. A shape that has no
``as_text`` is shown as compact JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

from pydantic import BaseModel

PREVIEW_CHARS = 200
ELLIPSIS = "…"


@runtime_checkable
class Compact(Protocol):
    """A tool's answer that says itself in a few lines for a model."""

    def as_text(self) -> str: ...


def text_of(answer: BaseModel) -> str:
    """What the model reads: the answer's own lines, or its JSON without indentation."""
    if isinstance(answer, Compact):
        return answer.as_text()
    return answer.model_dump_json(by_alias=True, exclude_none=True)


def one_line(text: str, limit: int = PREVIEW_CHARS) -> str:
    """``text`` on one line (runs of whitespace as one space), cut at the last word
    boundary before ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.") + ELLIPSIS


def day(iso_time: str | None) -> str:
    """The date of an ISO 8601 time, or '-' without one."""
    return iso_time[:10] if iso_time else "-"


def markers(*, superseded: bool, forgotten: bool, valid_to: str | None) -> str:
    """The bracketed markers of what no longer holds, each followed by a space."""
    found = []
    if superseded:
        found.append("[superseded]")
    if forgotten:
        found.append("[forgotten]")
    if valid_to:
        found.append(f"[until {day(valid_to)}]")
    return "".join(f"{marker} " for marker in found)


def thought_line(
    thought_id: str,
    kind: str,
    date: str | None,
    content: str,
    *,
    superseded: bool = False,
    forgotten: bool = False,
    valid_to: str | None = None,
    suffix: str = "",
) -> str:
    """One thought: ``<id> <kind> <date> [markers] <content>`` and an optional suffix."""
    flags = markers(superseded=superseded, forgotten=forgotten, valid_to=valid_to)
    tail = f" ({suffix})" if suffix else ""
    return f"{thought_id} {kind} {day(date)} {flags}{one_line(content)}{tail}"


def listing(header: str, lines: Iterable[str], empty: str = "none") -> str:
    """A header with its count, then the lines; ``empty`` when there are none."""
    items = list(lines)
    if not items:
        return f"{header}: {empty}"
    return "\n".join([f"{header} ({len(items)}):", *items])


def procedure_body(
    trigger: str,
    steps: Iterable[tuple[str, str | None]],
    template: Iterable[tuple[str, str]],
    files: Sequence[str],
) -> list[str]:
    """A workflow's or code pattern's lines below its own: ``when: <trigger>``, then the
    numbered steps (``1. <text> (<detail>)``) or the template (``<slot>: <value>``) and
    ``seen in: <files>``."""
    lines = [f"when: {one_line(trigger)}"]
    for number, (text, detail) in enumerate(steps, start=1):
        lines.append(f"{number}. {one_line(text)}" + (f" ({one_line(detail)})" if detail else ""))
    lines.extend(f"{slot}: {one_line(value)}" for slot, value in template)
    if files:
        lines.append("seen in: " + ", ".join(files))
    return lines
