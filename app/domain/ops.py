"""Operational events: one compact record per operation, so "what
changed and when" is answerable from the graph without the logs.

Which part of the service acted (``node``) comes from where the work runs: a request is
``hotpath`` unless the context assembler or episode ingestion is running it, and a
worker's job is ``worker``. The part in charge sets it with :func:`acting_as`; the
services record their events without knowing who called them.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from contextvars import ContextVar
from enum import StrEnum
from typing import Protocol

from pydantic import BaseModel, ConfigDict


class OpsNode(StrEnum):
    HOTPATH = "hotpath"  # a caller's own write or search
    CONTEXT = "context"  # context assembly
    EPISODIC = "episodic"  # episode ingestion
    WORKER = "worker"  # background maintenance


class OpsStatus(StrEnum):
    OK = "ok"
    ERROR = "error"
    SKIPPED = "skipped"  # nothing to do (a retried write that had landed already)


_node: ContextVar[OpsNode] = ContextVar("thoughtgraph_ops_node", default=OpsNode.HOTPATH)


def current_node() -> OpsNode:
    return _node.get()


@contextlib.contextmanager
def acting_as(node: OpsNode) -> Iterator[None]:
    """Events recorded inside (in this task and the tasks it starts) are ``node``'s."""
    token = _node.set(node)
    try:
        yield
    finally:
        _node.reset(token)


class OpsEvent(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    namespace: str
    node: OpsNode
    op: str  # create | update | merge | search | ingest | <worker task>
    status: OpsStatus
    at_ms: int
    memory_id: str | None = None
    category: str | None = None
    similarity: float | None = None  # the best neighbour's, where there was one


class OpsCount(BaseModel):
    model_config = ConfigDict(frozen=True)

    bucket_start_ms: int
    node: str
    op: str
    status: str
    count: int


def new_event_id() -> str:
    return f"ops-{uuid.uuid4()}"


class OpsEvents(Protocol):
    """Where services report what they did (app/features/ops/service.py's recorder)."""

    def record(
        self,
        namespace: str,
        op: str,
        status: OpsStatus = OpsStatus.OK,
        *,
        memory_id: str | None = None,
        category: str | None = None,
        similarity: float | None = None,
        node: OpsNode | None = None,
    ) -> None: ...


class NoOpsEvents:
    """Records nothing (services built without a recorder: unit tests, tools)."""

    def record(
        self,
        namespace: str,
        op: str,
        status: OpsStatus = OpsStatus.OK,
        *,
        memory_id: str | None = None,
        category: str | None = None,
        similarity: float | None = None,
        node: OpsNode | None = None,
    ) -> None:
        del namespace, op, status, memory_id, category, similarity, node


NO_OPS_EVENTS = NoOpsEvents()
