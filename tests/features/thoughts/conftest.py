"""The thought service over the real embedded engine, one store per test module, with the
hash embedder."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest

from tests.support import LoopThread
from thoughtgraph.container import build_services
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
