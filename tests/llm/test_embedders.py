"""Embedders against real components: the bundled MiniLM model, a real HTTP server."""

from __future__ import annotations

import asyncio
import math
import os
import socket
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from tests.fakes.openai_server import FakeOpenAIServer, fake_embedding, openai_server_fixture
from thoughtgraph.domain.errors import ConfigurationError, EmbeddingError
from thoughtgraph.llm import (
    HashEmbedder,
    LiteLLMEmbedder,
    LocalEmbedder,
    TextEmbedder,
    build_embedder,
)
from thoughtgraph.llm.embedders.litellm_embedder import PROBE_TEXT
from thoughtgraph.settings import EmbedderKind, Settings

FAKE_DIMENSION = 12
FAKE_MODEL = "openai/text-embedding-fake"

openai_server = openai_server_fixture(dimension=FAKE_DIMENSION)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def norm(vector: Sequence[float]) -> float:
    return math.sqrt(sum(x * x for x in vector))


def assert_close(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]], tol: float) -> None:
    assert len(a) == len(b)
    for row_a, row_b in zip(a, b, strict=True):
        assert len(row_a) == len(row_b)
        assert max(abs(x - y) for x, y in zip(row_a, row_b, strict=True)) <= tol


def settings(**overrides: Any) -> Settings:
    return Settings(**overrides)


def litellm_settings(server: FakeOpenAIServer, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "embedder": EmbedderKind.LITELLM,
        "embedding_model": FAKE_MODEL,
        "embedding_api_base": server.base_url,
        "embedding_api_key": SecretStr("test"),
    }
    values.update(overrides)
    return settings(**values)


# --- local: all-MiniLM-L6-v2 ----------------------------------------------------------------


@pytest.fixture(scope="module")
def minilm() -> Iterator[LocalEmbedder]:
    """The bundled model, loaded while any connection off the loopback fails."""

    real_connect = socket.socket.connect

    def loopback_only(sock: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        off_loopback = isinstance(host, str) and host not in {"127.0.0.1", "::1", "localhost"}
        if off_loopback and sock.family in (socket.AF_INET, socket.AF_INET6):
            raise OSError(f"test: network access attempted to {address!r}")
        return real_connect(sock, address)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", loopback_only)
        embedder = LocalEmbedder.load(settings(embedding_batch_size=4))
    yield embedder


def test_local_constructor_does_no_io() -> None:
    # Wrapping needs an object with the model API; loading is load()'s job alone.
    class Stub:
        def get_embedding_dimension(self) -> int:
            return 3

    embedder = LocalEmbedder(Stub())  # type: ignore[arg-type]
    assert embedder.dimension == 3
    assert embedder.name == "local:all-MiniLM-L6-v2"


def test_local_model_loads_offline_with_384_unit_vectors(minilm: LocalEmbedder) -> None:
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    assert os.environ["TRANSFORMERS_OFFLINE"] == "1"
    assert isinstance(minilm, TextEmbedder)
    assert minilm.name == "local:all-MiniLM-L6-v2"
    assert minilm.dimension == 384
    assert str(minilm.model.device) == "cpu"
    vector = minilm.embed_query("Graphs remember how ideas grew from each other.")
    assert len(vector) == 384
    assert all(type(x) is float for x in vector)
    assert norm(vector) == pytest.approx(1.0, abs=1e-9)


def test_local_similar_sentences_are_close_and_unrelated_ones_far(minilm: LocalEmbedder) -> None:
    a, b, c = minilm.embed_documents(
        [
            "The cat is sitting on the mat.",
            "A cat sits on the mat.",
            "Quarterly revenue grew by ten percent in Europe.",
        ]
    )
    assert cosine(a, b) > 0.85
    assert cosine(a, c) < 0.3
    assert cosine(a, b) - cosine(a, c) > 0.6


def test_local_batches_equal_single_embeddings(minilm: LocalEmbedder) -> None:
    texts = [
        "short",
        "a somewhat longer sentence about knowledge graphs and agent memory",
        "",
        "Ünïcödé and emoji 🧠 survive",
        "another one",
        "the sixth text, so batch size 4 leaves a remainder",
    ]
    assert minilm.batch_size == 4
    batched = minilm.embed_documents(texts)
    singles = [minilm.embed_query(t) for t in texts]
    assert_close(batched, singles, tol=1e-5)
    assert minilm.embed_documents([]) == []


def test_local_async_matches_sync_and_keeps_the_loop_free(minilm: LocalEmbedder) -> None:
    texts = [f"sentence number {i} about thoughts and their lineage" for i in range(64)]
    expected = minilm.embed_documents(texts)

    async def scenario() -> tuple[list[list[float]], list[float], int]:
        ticks = 0
        done = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0.001)

        task = asyncio.create_task(ticker())
        try:
            vectors = await minilm.async_embed_documents(texts)
            query = await minilm.async_embed_query(texts[0])
        finally:
            done.set()
            await task
        return vectors, query, ticks

    vectors, query, ticks = asyncio.run(scenario())
    assert_close(vectors, expected, tol=1e-5)
    assert_close([query], [expected[0]], tol=1e-5)
    assert ticks >= 3  # the loop kept running while the model worked in a thread


def test_local_load_failure_is_an_embedding_error(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError) as caught:
        LocalEmbedder.load(model_path=tmp_path / "no-such-model")
    assert type(caught.value) is EmbeddingError
    assert "no-such-model" in caught.value.message


def test_passing_a_single_string_is_refused(minilm: LocalEmbedder) -> None:
    with pytest.raises(TypeError):
        minilm.embed_documents("not a list")


# --- litellm against the fake OpenAI server --------------------------------------------------


def test_litellm_create_discovers_the_dimension(openai_server: FakeOpenAIServer) -> None:
    embedder = asyncio.run(LiteLLMEmbedder.create(litellm_settings(openai_server)))
    assert isinstance(embedder, TextEmbedder)
    assert embedder.name == f"litellm:{FAKE_MODEL}"
    assert embedder.dimension == FAKE_DIMENSION
    [probe] = openai_server.embedding_requests
    assert probe.json["model"] == "text-embedding-fake"
    assert probe.headers["authorization"] == "Bearer test"
    assert "dimensions" not in probe.json


def test_litellm_returns_the_server_vectors_in_one_request(
    openai_server: FakeOpenAIServer,
) -> None:
    embedder = asyncio.run(LiteLLMEmbedder.create(litellm_settings(openai_server)))
    openai_server.reset()
    texts = ["alpha", "beta gamma", "delta"]

    vectors = embedder.embed_documents(texts)

    assert_close(vectors, [fake_embedding(t, FAKE_DIMENSION) for t in texts], tol=1e-12)
    [request] = openai_server.embedding_requests
    assert request.json["input"] == texts
    assert embedder.embed_query("alpha") == vectors[0]


def test_litellm_async_path(openai_server: FakeOpenAIServer) -> None:
    async def scenario() -> tuple[LiteLLMEmbedder, list[list[float]], list[float]]:
        embedder = await LiteLLMEmbedder.create(litellm_settings(openai_server))
        documents = await embedder.async_embed_documents(["one", "two"])
        query = await embedder.async_embed_query("three")
        return embedder, documents, query

    # Two event loops in a row: litellm caches async HTTP clients between calls.
    for _ in range(2):
        openai_server.reset()
        embedder, documents, query = asyncio.run(scenario())
        assert embedder.dimension == FAKE_DIMENSION
        assert_close(documents, [fake_embedding(t, FAKE_DIMENSION) for t in ["one", "two"]], 1e-12)
        assert_close([query], [fake_embedding("three", FAKE_DIMENSION)], 1e-12)
        assert [r.json["input"] for r in openai_server.embedding_requests] == [
            [PROBE_TEXT],
            ["one", "two"],
            ["three"],
        ]


def test_litellm_batches_follow_the_batch_size(openai_server: FakeOpenAIServer) -> None:
    embedder = asyncio.run(
        LiteLLMEmbedder.create(
            litellm_settings(
                openai_server, embedding_batch_size=2, embedding_dimension=FAKE_DIMENSION
            )
        )
    )
    assert openai_server.embedding_requests == []  # a configured dimension needs no probe
    texts = [f"text {i}" for i in range(5)]

    vectors = asyncio.run(embedder.async_embed_documents(texts))

    assert_close(vectors, [fake_embedding(t, FAKE_DIMENSION) for t in texts], tol=1e-12)
    inputs = [r.json["input"] for r in openai_server.embedding_requests]
    assert inputs == [texts[0:2], texts[2:4], texts[4:5]]
    # litellm drops `dimensions` for models it does not know to accept it.
    assert all("dimensions" not in r.json for r in openai_server.embedding_requests)


def test_litellm_dimension_mismatch_is_an_embedding_error(
    openai_server: FakeOpenAIServer,
) -> None:
    embedder = asyncio.run(
        LiteLLMEmbedder.create(litellm_settings(openai_server, embedding_dimension=7))
    )
    with pytest.raises(EmbeddingError) as caught:
        embedder.embed_query("anything")
    assert "expected 7-dimensional" in caught.value.message
    assert caught.value.details["actual_dimension"] == FAKE_DIMENSION


def test_litellm_http_500_is_an_embedding_error(openai_server: FakeOpenAIServer) -> None:
    embedder = asyncio.run(LiteLLMEmbedder.create(litellm_settings(openai_server)))
    openai_server.fail_status = 500

    with pytest.raises(EmbeddingError) as sync_error:
        embedder.embed_documents(["a", "b"])
    with pytest.raises(EmbeddingError) as async_error:
        asyncio.run(embedder.async_embed_query("a"))
    with pytest.raises(EmbeddingError) as probe_error:
        asyncio.run(LiteLLMEmbedder.create(litellm_settings(openai_server)))

    for caught in (sync_error, async_error, probe_error):
        assert type(caught.value) is EmbeddingError
        assert caught.value.code == "EMBEDDING_FAILED"
        assert FAKE_MODEL in caught.value.message
    assert sync_error.value.details["status_code"] == 500
    assert "500" in async_error.value.message


def test_litellm_unreachable_server_is_an_embedding_error() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    embedder = LiteLLMEmbedder(
        FAKE_MODEL, dimension=4, api_base=f"http://127.0.0.1:{port}/v1", api_key="x", timeout_s=2
    )
    with pytest.raises(EmbeddingError) as caught:
        embedder.embed_query("hello")
    assert type(caught.value) is EmbeddingError


# --- hash -----------------------------------------------------------------------------------


def test_hash_is_deterministic_unit_and_sized() -> None:
    embedder = HashEmbedder.from_settings(settings(embedding_dimension=64))
    assert embedder.name == "hash:64"
    assert embedder.dimension == 64
    texts = ["alpha", "beta", "alpha", ""]
    first = embedder.embed_documents(texts)
    again = HashEmbedder(64).embed_documents(texts)
    assert first == again
    assert first[0] == first[2]
    assert first[0] != first[1]
    for vector in first:
        assert len(vector) == 64
        assert all(type(x) is float for x in vector)
        assert norm(vector) == pytest.approx(1.0, abs=1e-12)
    assert abs(cosine(first[0], first[1])) < 0.5
    assert asyncio.run(embedder.async_embed_documents(texts)) == first
    assert asyncio.run(embedder.async_embed_query("beta")) == first[1]


def test_hash_defaults_to_384_and_embeds_large_batches() -> None:
    embedder = HashEmbedder.from_settings(settings())
    assert embedder.dimension == 384
    texts = [f"thought {i}" for i in range(2000)]
    vectors = embedder.embed_documents(texts)
    assert len(vectors) == 2000
    assert len({tuple(vector) for vector in vectors}) == 2000


def test_hash_rejects_a_bad_dimension() -> None:
    with pytest.raises(ConfigurationError):
        HashEmbedder(0)


# --- build_embedder ---------------------------------------------------------------------------


def test_build_embedder_hash() -> None:
    embedder = asyncio.run(
        build_embedder(settings(embedder=EmbedderKind.HASH, embedding_dimension=16))
    )
    assert type(embedder) is HashEmbedder
    assert embedder.dimension == 16


def test_build_embedder_litellm(openai_server: FakeOpenAIServer) -> None:
    embedder = asyncio.run(build_embedder(litellm_settings(openai_server)))
    assert type(embedder) is LiteLLMEmbedder
    assert embedder.dimension == FAKE_DIMENSION


def test_build_embedder_local() -> None:
    embedder = asyncio.run(build_embedder(settings(embedder=EmbedderKind.LOCAL)))
    assert type(embedder) is LocalEmbedder
    assert embedder.dimension == 384


def test_build_embedder_litellm_without_model_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError) as caught:
        asyncio.run(build_embedder(settings(embedder=EmbedderKind.LITELLM)))
    assert caught.value.code == "CONFIGURATION_ERROR"
    assert "TG_EMBEDDING_MODEL" in caught.value.message


def test_build_embedder_local_with_wrong_dimension_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        asyncio.run(build_embedder(settings(embedder=EmbedderKind.LOCAL, embedding_dimension=768)))
