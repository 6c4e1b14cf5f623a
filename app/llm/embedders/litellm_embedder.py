"""Any embedding model litellm can reach (OpenAI, Azure, Cohere, Ollama, vLLM, ...)."""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from thoughtgraph.domain.errors import ConfigurationError, EmbeddingError
from thoughtgraph.llm.embedders.base import DEFAULT_BATCH_SIZE, TextEmbedder

if TYPE_CHECKING:
    from thoughtgraph.settings import Settings

DEFAULT_TIMEOUT_S = 60.0
PROBE_TEXT = "thoughtgraph embedding dimension probe"


@functools.cache
def prepare_litellm() -> None:
    """Set up the process for litellm; call it before the first ``import litellm``.

    ``LITELLM_LOCAL_MODEL_COST_MAP`` makes litellm use its bundled model-cost map instead
    of downloading one at import time. Importing litellm costs a few seconds, which is
    why this module imports it only when a request is made. Runs once per process.
    """
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    import litellm

    # No "Give Feedback / Get Help" banners on stdout when a call fails.
    litellm.suppress_debug_info = True


class LiteLLMEmbedder(TextEmbedder):
    """Embeds through ``litellm.embedding`` / ``litellm.aembedding``.

    ``model`` is a litellm model name (``"openai/text-embedding-3-small"``,
    ``"ollama/nomic-embed-text"``; ``"openai/<name>"`` plus ``api_base`` for any
    OpenAI-compatible server). Vectors are returned exactly as the provider sends them.

    When ``send_dimensions`` is true the configured dimension is passed as litellm's
    ``dimensions`` parameter; with ``drop_params=True`` litellm forwards it only to models
    it knows accept it (e.g. OpenAI's text-embedding-3 family) and drops it for the rest,
    so an OpenAI-compatible server is never sent a parameter it may reject. Every answer
    is checked against ``dimension``.

    Use :meth:`create` to build one from settings; it finds the dimension by embedding a
    probe string when none is configured.
    """

    def __init__(
        self,
        model: str,
        *,
        dimension: int,
        api_base: str | None = None,
        api_key: str | None = None,
        batch_size: int = DEFAULT_BATCH_SIZE,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        send_dimensions: bool = False,
    ) -> None:
        super().__init__(name=f"litellm:{model}", batch_size=batch_size)
        if dimension < 1:
            raise ConfigurationError(
                f"embedding dimension must be at least 1, got {dimension}",
                setting="embedding_dimension",
            )
        self.model = model
        self.api_base = api_base
        self._api_key = api_key
        self._dimension = dimension
        self.timeout_s = timeout_s
        self.send_dimensions = send_dimensions

    @classmethod
    async def create(
        cls, settings: Settings, *, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> LiteLLMEmbedder:
        """Build from settings; without ``embedding_dimension``, probe the model once."""
        model = settings.embedding_model
        if not model:
            raise ConfigurationError(
                "embedder 'litellm' needs an embedding model: set TG_EMBEDDING_MODEL "
                "(e.g. openai/text-embedding-3-small)",
                setting="embedding_model",
            )
        secret = settings.embedding_api_key
        api_key = secret.get_secret_value() if secret is not None else None
        common: dict[str, Any] = {
            "model": model,
            "api_base": settings.embedding_api_base,
            "api_key": api_key or None,
            "batch_size": settings.embedding_batch_size,
            "timeout_s": timeout_s,
        }
        if settings.embedding_dimension is not None:
            return cls(dimension=settings.embedding_dimension, send_dimensions=True, **common)
        # Any positive placeholder: the probe's answer is not checked against it.
        prober = cls(dimension=1, **common)
        try:
            vectors = await prober._aembed_batch([PROBE_TEXT])
        except Exception as exc:
            raise EmbeddingError(
                f"Could not determine the vector size of {prober.name}: probing the model "
                f"failed: {type(exc).__name__}: {exc}",
                embedder=prober.name,
            ) from exc
        if len(vectors) != 1 or not vectors[0]:
            raise EmbeddingError(
                f"Could not determine the vector size of {prober.name}: the probe returned "
                "no vector",
                embedder=prober.name,
            )
        return cls(dimension=len(vectors[0]), **common)

    @property
    def dimension(self) -> int:
        return self._dimension

    def _request(self, texts: list[str]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "input": texts,
            "timeout": self.timeout_s,
            "drop_params": True,
        }
        if self.api_base:
            kwargs["api_base"] = self.api_base
        if self._api_key:
            kwargs["api_key"] = self._api_key
        if self.send_dimensions:
            kwargs["dimensions"] = self._dimension
        return kwargs

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        prepare_litellm()
        import litellm

        return _vectors(litellm.embedding(**self._request(texts)))

    async def _aembed_batch(self, texts: list[str]) -> list[list[float]]:
        prepare_litellm()
        import litellm

        return _vectors(await litellm.aembedding(**self._request(texts)))


def _vectors(response: object) -> list[list[float]]:
    """The vectors of a litellm ``EmbeddingResponse``, in input order."""
    data = getattr(response, "data", None)
    if not isinstance(data, list):
        raise ValueError(f"unexpected embedding response: {type(response).__name__}")
    indexed: list[tuple[int, list[float]]] = []
    for position, item in enumerate(data):
        if isinstance(item, Mapping):
            embedding, index = item.get("embedding"), item.get("index", position)
        else:
            embedding = getattr(item, "embedding", None)
            index = getattr(item, "index", position)
        if not isinstance(embedding, list):
            raise ValueError(
                f"unexpected embedding item: {type(embedding).__name__} "
                "(is encoding_format set to base64?)"
            )
        indexed.append((index if isinstance(index, int) else position, embedding))
    indexed.sort(key=lambda pair: pair[0])
    return [vector for _, vector in indexed]
