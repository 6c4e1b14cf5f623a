"""Listing thoughts with filters and opaque keyset cursors."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.models import (
    PageCursor,
    Thought,
    ThoughtFilter,
    ThoughtPage,
    TimeView,
    now_ms,
)
from thoughtgraph.domain.scopes import Viewer
from thoughtgraph.features.access import Action, Principal, check_access, scoped, seen
from thoughtgraph.features.repositories import Repositories


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
    """Reading thoughts as they are stored: pages of a filtered listing, and batches by id
    for the API's per-request loaders."""

    def __init__(self, repos: Repositories) -> None:
        self._repos = repos

    async def page(
        self,
        namespace: str,
        filter: ThoughtFilter,
        first: int | None,
        after: str | None,
        view: TimeView | None = None,
        *,
        caller: Principal | None = None,
    ) -> ThoughtPage:
        """Newest first after the cursor, in the view (None: active and valid now); every
        free-form field of the filter checked, each error naming its field."""
        check_access(caller, Action.READ, namespace)
        check.require_namespace(namespace)
        first = check.page_size("first", first, check.DEFAULT_PAGE_SIZE, check.MAX_PAGE_SIZE)
        cursor = decode_cursor(after) if after else None
        criteria = checked_filter(filter)
        view = scoped(view, caller, now_ms())
        return await self._repos.thoughts.page(namespace, criteria, cursor, first, view)

    async def get_many(
        self, namespace: str, ids: Sequence[str], viewer: Viewer
    ) -> dict[str, Thought]:
        """The thoughts of ``ids`` the viewer may see (another user's private ones read
        as missing)."""
        return seen(await self._repos.thoughts.get_many(namespace, ids), viewer)

    async def refiners(
        self, namespace: str, ids: Sequence[str], viewer: Viewer
    ) -> dict[str, list[str]]:
        """For each id, the ids of the thoughts the viewer sees that refine or consolidate
        it, newest first."""
        return await self._repos.lineage.refiners(namespace, ids, viewer)


def checked_filter(criteria: ThoughtFilter) -> ThoughtFilter:
    def optional(field: str, value: str | None, rule: Callable[[str, str], str]) -> str | None:
        return rule(field, value) if value is not None else None

    return criteria.model_copy(
        update={
            "tag": optional("filter.tag", criteria.tag, check.require_tag),
            "agent_id": optional("filter.agentId", criteria.agent_id, check.require_identifier),
            "topic_id": optional("filter.topicId", criteria.topic_id, check.require_identifier),
        }
    )
