"""Listing thoughts with filters and opaque keyset cursors."""

from __future__ import annotations

import base64
import binascii
import json

from app.domain import validation as check
from app.domain.errors import InvalidInputError
from app.domain.models import PageCursor, Thought, ThoughtFilter, ThoughtPage
from app.store.interface import GraphStore


def encode_cursor(thought: Thought) -> str:
    raw = json.dumps({"c": thought.created_at_ms, "i": thought.id}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode()


def decode_cursor(cursor: str) -> PageCursor:
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor.encode()))
        return PageCursor(created_at_ms=int(data["c"]), thought_id=str(data["i"]))
    except (ValueError, KeyError, TypeError, binascii.Error) as exc:
        raise InvalidInputError("after is not a cursor this service issued", field="after") from exc


class BrowseService:
    def __init__(self, store: GraphStore) -> None:
        self._store = store

    async def list(
        self, namespace: str, filter: ThoughtFilter, first: int, after: str | None
    ) -> ThoughtPage:
        check.require_namespace(namespace)
        check.require_int_range("first", first, 1, check.MAX_PAGE_SIZE)
        cursor = decode_cursor(after) if after else None
        return await self._store.list_thoughts(namespace, filter, cursor, first)
