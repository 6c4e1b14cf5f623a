"""``thoughtgraph import --text FILE``: one thought per line, or JSON Lines records
(``content`` and optionally ``kind``, ``tags``, ``category``, ``agent``, ``agentName``),
embedded and written in batches through ThoughtService.contribute_many.

Each thought's id comes from its namespace, agent and content, so importing the same file
again (or again after a failure half-way) writes nothing twice. A batch is checked whole
before it is written: a bad line stops the import with its line number, after the
batches before it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.models import ThoughtKind
from thoughtgraph.features.thoughts.service import MAX_BATCH, ThoughtInput, ThoughtService
from thoughtgraph.progress import Progress

DEFAULT_AGENT = "import"
_IDS = uuid.UUID("8d0f4b1e-6a52-4c55-9d36-0b7f1f3c2a10")  # the namespace of import ids


@dataclass
class TextImportCounts:
    lines: int = 0
    written: int = 0  # the rest were stored before (same namespace, agent and content)

    def summary(self) -> str:
        return f"{self.lines} thought(s) read, {self.written} new"


def text_thought_id(item: ThoughtInput) -> str:
    return str(uuid.uuid5(_IDS, f"{item.namespace}\n{item.agent_id}\n{item.content}"))


def parse_line(line: str, number: int, namespace: str) -> ThoughtInput | None:
    """A plain line is a thought; a line starting with ``{`` is a JSON record."""
    text = line.strip()
    if not text:
        return None
    if not text.startswith("{"):
        return ThoughtInput(
            content=text, agent_id=DEFAULT_AGENT, agent_name=DEFAULT_AGENT, namespace=namespace
        )
    try:
        record: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"line {number} is not JSON: {exc.msg}", field="file") from exc
    if not isinstance(record, dict) or not isinstance(record.get("content"), str):
        raise InvalidInputError(f"line {number} has no content", field="file")
    agent = str(record.get("agent") or DEFAULT_AGENT)
    kind = str(record.get("kind") or ThoughtKind.FACT.value).lower()
    if kind not in {k.value for k in ThoughtKind}:
        raise InvalidInputError(f"line {number}: unknown kind {kind!r}", field="kind")
    tags = record.get("tags") or []
    if not isinstance(tags, list):
        raise InvalidInputError(f"line {number}: tags must be a list", field="tags")
    return ThoughtInput(
        content=record["content"],
        agent_id=agent,
        agent_name=str(record.get("agentName") or agent),
        namespace=namespace,
        tags=tuple(str(tag) for tag in tags),
        kind=ThoughtKind(kind),
        category=str(record["category"]) if record.get("category") is not None else None,
    )


def _batches(lines: Iterable[str], namespace: str, size: int) -> Iterator[list[ThoughtInput]]:
    batch: list[ThoughtInput] = []
    seen: set[str] = set()
    for number, line in enumerate(lines, start=1):
        item = parse_line(line, number, namespace)
        if item is None:
            continue
        tid = text_thought_id(item)
        if tid in seen:  # the same thought twice in a file is one thought
            continue
        seen.add(tid)
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


async def import_text(
    thoughts: ThoughtService,
    lines: Iterable[str],
    *,
    namespace: str,
    shown: Progress,
    batch_size: int = MAX_BATCH,
) -> TextImportCounts:
    counts = TextImportCounts()
    for batch in _batches(lines, namespace, batch_size):
        ids = [text_thought_id(item) for item in batch]
        result = await thoughts.contribute_many(batch, thought_ids=ids, limit=batch_size)
        counts.lines += len(batch)
        counts.written += result.written
        shown.advance(len(batch))
    return counts
