"""The vector-space record every request pins its slot from: requests that find the
process's copy stale at once share one read of it (both engines, real stores)."""

from __future__ import annotations

import asyncio

import pytest

from tests.observability_support import CountingObserver
from tests.support import LoopThread
from thoughtgraph.store import cypher_store
from thoughtgraph.store.cypher_store import CypherGraphStore

READ = "reembedding.spaces"


@pytest.fixture
def counting(store: CypherGraphStore, monkeypatch: pytest.MonkeyPatch) -> CountingObserver:
    """Counts the store's statements, with the copy stale whenever a request looks."""
    observer = CountingObserver()
    monkeypatch.setattr(store, "observer", observer)
    monkeypatch.setattr(cypher_store, "SPACES_FRESH_S", -1.0)
    return observer


def test_requests_that_find_the_copy_stale_together_share_one_read(
    loop: LoopThread, store: CypherGraphStore, counting: CountingObserver
) -> None:
    async def twenty_at_once() -> list[object]:
        return list(await asyncio.gather(*(store.spaces() for _ in range(20))))

    answers = loop.run(twenty_at_once())
    assert counting.counts.get(READ) == 1
    assert all(answer == answers[0] for answer in answers)
    assert answers[0].active.slot == 0  # type: ignore[attr-defined]
    # The next stale request reads again: a finished read is not kept as the answer.
    loop.run(store.spaces())
    assert counting.counts.get(READ) == 2


def test_a_fresh_read_is_never_shared(
    loop: LoopThread, store: CypherGraphStore, counting: CountingObserver
) -> None:
    async def fresh_three() -> None:
        await asyncio.gather(*(store.spaces(fresh=True) for _ in range(3)))

    loop.run(fresh_three())
    assert counting.counts.get(READ) == 3


def test_a_request_that_gives_up_leaves_the_shared_read_to_the_others(
    loop: LoopThread, store: CypherGraphStore, counting: CountingObserver
) -> None:
    async def first_one_cancelled() -> list[object]:
        callers = [asyncio.create_task(store.spaces()) for _ in range(5)]
        await asyncio.sleep(0)  # every caller has joined the read the first one started
        callers[0].cancel()
        return list(await asyncio.gather(*callers, return_exceptions=True))

    outcomes = loop.run(first_one_cancelled())
    assert isinstance(outcomes[0], asyncio.CancelledError)
    assert all(answer == outcomes[1] and answer is not None for answer in outcomes[1:])
    assert not any(isinstance(answer, BaseException) for answer in outcomes[1:])
    assert counting.counts.get(READ) == 1
