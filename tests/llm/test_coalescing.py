"""Requests that wait for the local model are embedded together: fewer model calls, the
same vectors, failures and cancellations kept to their own caller."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

from tests.llm.test_embedders import assert_close
from thoughtgraph.domain.errors import EmbeddingError
from thoughtgraph.llm import LocalEmbedder
from thoughtgraph.llm.embedders.base import VectorBatch
from thoughtgraph.llm.embedders.coalescing import CoalescingRunner
from thoughtgraph.settings import Settings

TEXTS = [f"agent {i} noted that the deploy of service {i} moved to Thursday" for i in range(12)]


@pytest.fixture(scope="module")
def small_batches() -> LocalEmbedder:
    """The bundled model with batches of at most four texts."""
    return LocalEmbedder.load(Settings(embedding_batch_size=4))


class EncodeCalls:
    """How many texts each call into the real model carried."""

    def __init__(self, embedder: LocalEmbedder, patch: pytest.MonkeyPatch) -> None:
        self.sizes: list[int] = []
        real = embedder.model.encode

        def counted(texts: list[str], *args: Any, **kwargs: Any) -> Any:
            self.sizes.append(len(texts))
            return real(texts, *args, **kwargs)

        patch.setattr(embedder.model, "encode", counted)


@pytest.fixture
def calls(small_batches: LocalEmbedder) -> Iterator[EncodeCalls]:
    with pytest.MonkeyPatch.context() as patch:
        yield EncodeCalls(small_batches, patch)


async def _each_alone_at_once(embedder: LocalEmbedder, texts: list[str]) -> list[list[float]]:
    answers = await asyncio.gather(*(embedder.async_embed_query(text) for text in texts))
    return list(answers)


def test_requests_waiting_together_share_model_calls_and_get_their_own_vectors(
    small_batches: LocalEmbedder, calls: EncodeCalls
) -> None:
    expected = [small_batches.embed_query(text) for text in TEXTS]
    calls.sizes.clear()

    vectors = asyncio.run(_each_alone_at_once(small_batches, TEXTS))

    assert_close(vectors, expected, tol=1e-5)
    # All twelve asked in the same turn of the loop: batches of the batch size, in order.
    assert calls.sizes == [4, 4, 4]


def test_requests_one_after_another_each_run_alone(
    small_batches: LocalEmbedder, calls: EncodeCalls
) -> None:
    async def one_after_another() -> None:
        for text in TEXTS[:3]:
            await small_batches.async_embed_query(text)

    asyncio.run(one_after_another())
    assert calls.sizes == [1, 1, 1]


def test_a_request_larger_than_the_room_left_waits_for_the_next_call(
    small_batches: LocalEmbedder, calls: EncodeCalls
) -> None:
    async def mixed() -> list[list[list[float]]]:
        return list(
            await asyncio.gather(
                small_batches.async_embed_documents(TEXTS[1:4]),
                small_batches.async_embed_documents(TEXTS[4:6]),
                small_batches.async_embed_documents(TEXTS[6:8]),
            )
        )

    answers = asyncio.run(mixed())
    assert [len(answer) for answer in answers] == [3, 2, 2]
    assert calls.sizes == [3, 4]  # 3 alone (2 more would not fit), then 2 + 2
    assert_close(answers[0], small_batches.embed_documents(TEXTS[1:4]), tol=1e-5)
    assert_close(answers[2], small_batches.embed_documents(TEXTS[6:8]), tol=1e-5)


def test_many_loops_in_turn_share_one_model(small_batches: LocalEmbedder) -> None:
    first = asyncio.run(_each_alone_at_once(small_batches, TEXTS[:5]))
    second = asyncio.run(_each_alone_at_once(small_batches, TEXTS[:5]))
    assert_close(first, second, tol=1e-6)


# --- the runner's own rules, with a model that fails on one text ------------------------


class PickyModel:
    """Embeds in a real worker thread; refuses any batch holding the text 'refused'."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.release = threading.Event()
        self.release.set()

    def __call__(self, texts: list[str]) -> VectorBatch:
        self.release.wait(timeout=10)
        self.batches.append(list(texts))
        if "refused" in texts:
            raise ValueError("this text cannot be embedded")
        return np.array([[float(len(text)), 1.0] for text in texts])


@pytest.fixture
def thread() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(max_workers=1) as executor:
        yield executor


def test_a_refused_text_fails_only_its_own_request(thread: ThreadPoolExecutor) -> None:
    model = PickyModel()
    runner = CoalescingRunner(model, lambda: thread, batch_size=8)

    async def scenario() -> list[Any]:
        model.release.clear()  # the first call holds the model while the others queue
        first = asyncio.ensure_future(runner.embed(["warm"]))
        await asyncio.sleep(0.05)
        waiting = [runner.embed([text]) for text in ("ab", "refused", "abcd")]
        model.release.set()
        return list(await asyncio.gather(first, *waiting, return_exceptions=True))

    first, ab, refused, abcd = asyncio.run(scenario())
    assert [list(row) for row in ab] == [[2.0, 1.0]]
    assert [list(row) for row in abcd] == [[4.0, 1.0]]
    assert isinstance(refused, ValueError)
    assert [list(row) for row in first] == [[4.0, 1.0]]
    # The three went together, failed together, then each went alone.
    assert model.batches == [["warm"], ["ab", "refused", "abcd"], ["ab"], ["refused"], ["abcd"]]


def test_a_caller_that_gives_up_leaves_the_others_served(thread: ThreadPoolExecutor) -> None:
    model = PickyModel()
    runner = CoalescingRunner(model, lambda: thread, batch_size=8)

    async def scenario() -> tuple[list[list[str]], list[Any]]:
        model.release.clear()
        first = asyncio.ensure_future(runner.embed(["warm"]))
        await asyncio.sleep(0.05)
        gives_up = asyncio.ensure_future(runner.embed(["cancelled"]))
        stays = asyncio.ensure_future(runner.embed(["stays"]))
        await asyncio.sleep(0)
        gives_up.cancel()
        model.release.set()
        answers = await asyncio.gather(first, stays)
        return model.batches, list(answers)

    batches, (_warm, stays) = asyncio.run(scenario())
    assert batches == [["warm"], ["stays"]]  # the cancelled text never reached the model
    assert [list(row) for row in stays] == [[5.0, 1.0]]


def test_the_local_embedder_reports_a_model_failure_as_an_embedding_error(
    small_batches: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("out of memory")

    monkeypatch.setattr(small_batches.model, "encode", broken)

    async def scenario() -> list[Any]:
        return list(
            await asyncio.gather(
                *(small_batches.async_embed_query(text) for text in TEXTS[:3]),
                return_exceptions=True,
            )
        )

    answers = asyncio.run(scenario())
    assert all(isinstance(answer, EmbeddingError) for answer in answers)
    assert all("out of memory" in answer.message for answer in answers)
