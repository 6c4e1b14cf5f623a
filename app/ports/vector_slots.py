"""Vector spaces: which set of vector properties and indexes a statement reads and writes,
and which embedder makes the vectors a request compares.

A store holds its vectors in one of two *slots*. Slot 0 uses the names the store has
always used (``embedding``, ``reasonEmbedding``, ``ThoughtVector``, ``topic_embedding``,
...); slot 1 the same names with ``_1`` appended. Re-embedding fills the other slot with a
new embedder's vectors while every request keeps using the active one, then switches the
active slot in one write (``docs/reembedding.md``).

A request works in one space from start to end: its slot is *pinned* in a context
variable at its first statement or embedding, and every statement text and every vector
it asks for follows the pin, so a search during a switch never mixes spaces. A pin taken
that way lapses after ``PIN_SECONDS`` (longer than any request may run): a long-lived
task, such as a worker's loop, then follows a switch. A pin set explicitly with
``pinned`` holds for its block (re-embedding writes the next space that way).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol

from thoughtgraph.domain.vector_space import VectorSpace, VectorSpaces

SLOTS = (0, 1)
PIN_SECONDS = 60.0

# (slot, monotonic deadline or None for a pin that holds until its block ends)
_pinned: ContextVar[tuple[int, float | None] | None] = ContextVar(
    "thoughtgraph_vector_slot", default=None
)


def _checked(slot: int) -> int:
    if slot not in SLOTS:
        raise ValueError(f"no vector slot {slot!r}")
    return slot


def spaced(name: str, slot: int) -> str:
    """A vector property, label or index name in ``slot``."""
    return name if _checked(slot) == 0 else f"{name}_{slot}"


def other_slot(slot: int) -> int:
    return 1 - _checked(slot)


def pinned_slot() -> int | None:
    """The slot this request works in, while its pin holds."""
    found = _pinned.get()
    if found is None:
        return None
    slot, deadline = found
    if deadline is not None and time.monotonic() > deadline:
        return None
    return slot


def last_pinned_slot() -> int | None:
    """The slot of the request's last pin, also once it has lapsed (only the next
    ``pin_space`` moves the request on), or None where nothing pinned one."""
    found = _pinned.get()
    return None if found is None else found[0]


def current_slot() -> int:
    """The slot of the request's statements: its last pin's (so a statement never changes
    space between choosing it and running it), or slot 0 where nothing pinned one
    (statement tooling)."""
    slot = last_pinned_slot()
    return 0 if slot is None else slot


def pin(slot: int) -> None:
    """Pin ``slot`` for the rest of the current task (and the tasks it starts from now
    on), for at most ``PIN_SECONDS``."""
    _pinned.set((_checked(slot), time.monotonic() + PIN_SECONDS))


@contextmanager
def pinned(slot: int) -> Iterator[None]:
    """Work in ``slot`` inside the block, however long it takes."""
    token = _pinned.set((_checked(slot), None))
    try:
        yield
    finally:
        _pinned.reset(token)


class SpaceRecords(Protocol):
    """The store's record of its vector spaces, as the embedders and re-embedding see it."""

    async def spaces(self, *, fresh: bool = False) -> VectorSpaces:
        """The record, read again when ``fresh`` or older than a second."""
        ...

    async def pin_space(self) -> int:
        """The current request's slot: pinned already, or the active one, pinned now."""
        ...


class SpaceSchema(SpaceRecords, Protocol):
    """What re-embedding asks of the store beyond statements: the record's changes and the
    indexes of one slot."""

    async def begin_space(self, space: VectorSpace) -> bool:
        """Record ``space`` as the one being filled; False when refused (another re-embed
        or a retired space not yet dropped)."""
        ...

    async def prepare_space(self, namespace: str, slot: int, dimension: int) -> None:
        """The store-wide and the namespace's indexes of ``slot``, created if missing."""
        ...

    async def switch_space(self, slot: int) -> bool:
        """Make ``slot`` active in one write; False when it was not the one being filled."""
        ...

    async def drop_space(self, namespace: str, slot: int) -> None:
        """Drop the namespace's indexes of a retired ``slot`` (and the store-wide ones)."""
        ...

    async def forget_retired(self, slot: int) -> None:
        """The retired ``slot`` is dropped: the record forgets it."""
        ...
