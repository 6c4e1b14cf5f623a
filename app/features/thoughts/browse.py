"""Listing thoughts with filters and opaque keyset cursors."""

from __future__ import annotations

import base64
import binascii
import json

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.models import PageCursor, Thought, ThoughtFilter, ThoughtPage
from thoughtgraph.store.interface import GraphStore


def encode_cursor(thought: Thought) -> str:
    raw = json.dumps({"c": thought.created_at_ms, "i": thought.id}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode()


MAX_CURSOR_MS = 2**53  # a JSON number every client reads exactly


def decode_cursor(cursor: str) -> PageCursor:
    """The (createdAt, id) a cursor of ``encode_cursor`` holds; anything else, however
    malformed (bad base64 or UTF-8, not JSON, wrong types, out of range), is a
    ``VALIDATION_ERROR`` naming ``after``."""
    refused = InvalidInputError("after is not a cursor this service issued", field="after")
    if len(cursor) > check.MAX_CURSOR_CHARS:
        raise refused
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor.encode("ascii")))
    except (ValueError, binascii.Error, RecursionError) as exc:  # UnicodeError is a ValueError
        raise refused from exc
    if not isinstance(data, dict) or set(data) != {"c", "i"}:
        raise refused
    created, thought_id = data["c"], data["i"]
    if type(created) is not int or not 0 <= created <= MAX_CURSOR_MS:
        raise refused
    if not isinstance(thought_id, str):
        raise refused
    try:
        checked_id = check.require_thought_id("after", thought_id)
    except InvalidInputError as exc:
        raise refused from exc
    return PageCursor(created_at_ms=created, thought_id=checked_id)


class BrowseService:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    async def list(
        self, namespace: str, filter: ThoughtFilter, first: int, after: str | None
    ) -> ThoughtPage:
        check.require_namespace(namespace)
        check.require_int_range("first", first, 1, check.MAX_PAGE_SIZE)
        filter = ThoughtFilter(
            type=filter.type,
            tag=check.require_tag("filter.tag", filter.tag) if filter.tag is not None else None,
            agent_id=(
                check.require_identifier("filter.agentId", filter.agent_id)
                if filter.agent_id is not None
                else None
            ),
        )
        cursor = decode_cursor(after) if after else None
        return await self._store.list_thoughts(namespace, filter, cursor, first)
