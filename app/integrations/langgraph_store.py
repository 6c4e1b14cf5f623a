"""LangGraph's long-term memory store (``BaseStore``) kept by the service, over its client.

    store = ThoughtgraphStore("http://127.0.0.1:8000", namespace="assistant")
    graph = builder.compile(store=store)  # nodes: store.put / get / search / delete

How LangGraph's items map onto thoughts, all in one service namespace (``namespace``):

* an item is a thought whose ``context`` holds the item as JSON (its namespace tuple, key,
  value and first creation time): what ``get`` returns, exactly; its ``content`` is the text
  search embeds: the value's ``index_fields`` (LangGraph's paths, e.g. ``["text"]``) joined,
  or the whole value as JSON when there are none;
* tags find it without a scan: ``lg:item`` on every item, ``lg.ns:<digest>`` for each
  prefix of its namespace tuple and ``lg.key:<digest>`` for the item (digests, since labels
  may hold any character: a service tag may not);
* ``put`` over an existing key refines the current thought (its history stays, as lineage);
  putting the same value again writes nothing; ``delete`` forgets every version (restorable
  until the service purges it);
* ``search`` with a query is the service's hybrid search restricted to the prefix's tag
  (current versions only), its score the hit's; without one it lists the prefix newest
  first. ``filter`` (LangGraph's equality and $eq/$ne/$gt/$gte/$lt/$lte) and
  ``list_namespaces`` are worked out here over the listed items.

Limits: a value's JSON up to ~9,500 characters (the service's 10,000 for ``context``),
namespaces up to 30 labels (its 32 tags), at most 100 search hits; TTLs are not supported.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from langgraph.store.base.embed import get_text_at_path

from thoughtgraph.client.core import DEFAULT_URL
from thoughtgraph.client.models import (
    ContributeInput,
    RefineInput,
    SearchFilterInput,
    Thought,
    ThoughtFilterInput,
)
from thoughtgraph.integrations.plans import MAX_CONTENT, Call, ClientPair, Plan, listing

__all__ = ["ThoughtgraphStore", "item_tag", "prefix_tag"]

ITEM_TAG = "lg:item"
MAX_HITS = 100  # the service's largest search


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False).encode()).hexdigest()[:32]


def prefix_tag(prefix: Sequence[str]) -> str:
    """The tag of every item whose namespace starts with ``prefix`` (``lg:item`` for ())."""
    return f"lg.ns:{_digest(list(prefix))}" if prefix else ITEM_TAG


def item_tag(namespace: Sequence[str], key: str) -> str:
    return f"lg.key:{_digest([list(namespace), key])}"


def _matches_path(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    return all(want in ("*", have) for want, have in zip(path, part, strict=True))


_OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda a, b: a == b,
    "$ne": lambda a, b: a != b,
    "$gt": lambda a, b: a is not None and a > b,
    "$gte": lambda a, b: a is not None and a >= b,
    "$lt": lambda a, b: a is not None and a < b,
    "$lte": lambda a, b: a is not None and a <= b,
}


def _matches_filter(value: dict[str, Any], conditions: dict[str, Any] | None) -> bool:
    for field, wanted in (conditions or {}).items():
        have = value.get(field)
        if isinstance(wanted, dict) and wanted and all(k in _OPERATORS for k in wanted):
            if not all(_OPERATORS[op](have, arg) for op, arg in wanted.items()):
                return False
        elif have != wanted:
            return False
    return True


class ThoughtgraphStore(BaseStore):
    """LangGraph's ``BaseStore`` over a thoughtgraph service (sync and async)."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        namespace: str = "langgraph",
        index_fields: Sequence[str] | None = None,
        agent_id: str = "langgraph-store",
        agent_name: str = "LangGraph store",
        timeout: float = 30.0,
    ) -> None:
        self.namespace = namespace
        self.index_fields = list(index_fields or [])
        self.agent = {"agent_id": agent_id, "agent_name": agent_name}
        self.clients = ClientPair(base_url, api_key=api_key, namespace=namespace, timeout=timeout)

    def close(self) -> None:
        self.clients.close()

    async def aclose(self) -> None:
        await self.clients.aclose()

    # -- BaseStore -------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self.clients.drive(self._plan(op)) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return [await self.clients.adrive(self._plan(op)) for op in ops]

    def _plan(self, op: Op) -> Plan:
        if isinstance(op, GetOp):
            return self._get(op)
        if isinstance(op, PutOp):
            return self._put(op)
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._list_namespaces(op)
        raise ValueError(f"unknown store operation: {op!r}")

    # -- plans -----------------------------------------------------------------------------

    def _current(
        self, namespace: tuple[str, ...], key: str
    ) -> Generator[Call, Any, Thought | None]:
        """The item's newest version: each put refines the one before, so it is current."""
        page = yield (
            "thoughts",
            (),
            {
                "filter": ThoughtFilterInput(tag=item_tag(namespace, key)),
                "first": 1,
                "current_only": True,
            },
        )
        return page.nodes[0] if page.nodes else None

    def _get(self, op: GetOp) -> Plan:
        current = yield from self._current(op.namespace, op.key)
        return None if current is None else self._item(current)

    def _put(self, op: PutOp) -> Plan:
        current = yield from self._current(op.namespace, op.key)
        if op.value is None:
            versions = yield from listing(item_tag(op.namespace, op.key), current_only=False)
            for version in versions:
                yield ("forget", (version.id,), {})
            return None
        before = _envelope(current) if current is not None else None
        if before is not None and before["value"] == op.value:
            return None  # the same value again: nothing to write
        envelope = {
            "namespace": list(op.namespace),
            "key": op.key,
            "value": op.value,
            "created_at": before["created_at"] if before else datetime.now(UTC).isoformat(),
        }
        fields: dict[str, Any] = {
            **self.agent,
            "content": self._text(op.value),
            "context": json.dumps(envelope, ensure_ascii=False),
            "tags": self._tags(op.namespace, op.key),
        }
        if current is None:
            yield ("contribute", (ContributeInput(**fields),), {})
        else:
            refinement = RefineInput(**fields, source_id=current.id, reason="LangGraph store put")
            yield ("refine", (refinement,), {})
        return None

    def _search(self, op: SearchOp) -> Plan:
        tag = prefix_tag(op.namespace_prefix)
        scored: list[tuple[Thought, float | None]]
        if op.query:
            wanted = MAX_HITS if op.filter else min(MAX_HITS, op.offset + op.limit)
            hits = yield (
                "search",
                (op.query,),
                {"k": wanted, "current_only": True, "filter": SearchFilterInput(tags=[tag])},
            )
            scored = [(hit.thought, hit.score) for hit in hits]
        else:
            listed = yield from listing(tag)
            scored = [(thought, None) for thought in listed]
        items = [
            SearchItem(
                namespace=item.namespace,
                key=item.key,
                value=item.value,
                created_at=item.created_at,
                updated_at=item.updated_at,
                score=score,
            )
            for thought, score in scored
            if _matches_filter((item := self._item(thought)).value, op.filter)
        ]
        return items[op.offset : op.offset + op.limit]

    def _list_namespaces(self, op: ListNamespacesOp) -> Plan:
        listed = yield from listing(ITEM_TAG)
        found: set[tuple[str, ...]] = set()
        for thought in listed:
            namespace = tuple(_envelope(thought)["namespace"])
            if all(_matches_path(c, namespace) for c in op.match_conditions or ()):
                found.add(namespace[: op.max_depth] if op.max_depth else namespace)
        return sorted(found)[op.offset : op.offset + op.limit]

    # -- mapping ---------------------------------------------------------------------------

    def _text(self, value: Mapping[str, Any]) -> str:
        texts = [text for path in self.index_fields for text in get_text_at_path(value, path)]
        text = "\n".join(t for t in texts if t.strip())
        return (text or json.dumps(value, ensure_ascii=False, sort_keys=True))[:MAX_CONTENT]

    @staticmethod
    def _tags(namespace: tuple[str, ...], key: str) -> list[str]:
        prefixes = [prefix_tag(namespace[:depth]) for depth in range(1, len(namespace) + 1)]
        return [ITEM_TAG, *prefixes, item_tag(namespace, key)]

    @staticmethod
    def _item(thought: Thought) -> Item:
        envelope = _envelope(thought)
        return Item(
            namespace=tuple(envelope["namespace"]),
            key=envelope["key"],
            value=envelope["value"],
            created_at=datetime.fromisoformat(envelope["created_at"]),
            updated_at=thought.created_at,
        )


def _envelope(thought: Thought) -> dict[str, Any]:
    """The item a thought of this store holds (in its context)."""
    envelope: dict[str, Any] = json.loads(thought.context or "{}")
    return envelope
