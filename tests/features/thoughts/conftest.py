"""The thought service over the real embedded engine, one store per test module, with the
hash embedder."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from tests.store.test_store_contract import make_thought
from tests.support import LoopThread
from thoughtgraph.container import build_services
from thoughtgraph.domain.models import ThoughtRecord
from thoughtgraph.features.services import Services
from thoughtgraph.llm.embedders.hashing import HashEmbedder
from thoughtgraph.settings import Settings
from thoughtgraph.store.factory import open_store

DIMENSION = 32


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LoopThread, Services]]:
    loop = LoopThread()
    stack = contextlib.AsyncExitStack()
    settings = Settings(data_dir=tmp_path_factory.mktemp("service"))
    store = loop.run(stack.enter_async_context(open_store(settings)))
    embedder = HashEmbedder(dimension=DIMENSION)
    loop.run(store.bootstrap(embedding_dimension=DIMENSION, embedder=embedder.name))
    yield loop, build_services(store, embedder)
    loop.run(stack.aclose())
    loop.close()


AXIS = tuple([1.0] + [0.0] * (DIMENSION - 1))


def stored_thought(
    loop: LoopThread, services: Services, ns: str, content: str, *, weight: float = 1.0
) -> str:
    """A thought written straight through the repository, its vector on the first axis."""
    thought = make_thought(ns, content, weight=weight)
    record = ThoughtRecord(thought=thought, embedding=AXIS)
    assert loop.run(
        services.repos.thoughts.create(
            record, event_id=f"{thought.id}:created", event_kind="created"
        )
    )
    return thought.id
