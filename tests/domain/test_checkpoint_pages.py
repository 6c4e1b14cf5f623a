"""A page of checkpoints stops once its data reach the byte limit (one always)."""

from __future__ import annotations

from thoughtgraph.domain.checkpoints import Checkpoint, within_bytes


def checkpoint(n: int, size: int) -> Checkpoint:
    return Checkpoint(
        id=f"c{n}",
        namespace="ns",
        user="-",
        thread_id="t",
        parent_id=None,
        data="{}",
        metadata=None,
        size_bytes=size,
        created_at_ms=n,
        revision=n,
    )


def test_a_page_stops_at_the_byte_limit() -> None:
    page = [checkpoint(n, 400) for n in range(5)]
    assert [c.id for c in within_bytes(page, limit=1_000)] == ["c0", "c1"]
    assert [c.id for c in within_bytes(page, limit=2_000)] == ["c0", "c1", "c2", "c3", "c4"]
    assert [c.id for c in within_bytes([checkpoint(0, 5_000)], limit=1_000)] == ["c0"]
    assert within_bytes([], limit=1_000) == []
