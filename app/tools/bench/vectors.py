"""Embeddings of a corpus, computed once with the local model and cached on disk.

Embedding 10,000 sentences takes the local model tens of seconds on a small machine; the
texts are fixed by their seed, so a rerun reads the vectors back instead. The cache file
is keyed by a hash of the model's name and the whole text list, so a changed template or
model never reads stale vectors; the time the embedding took is kept beside it, so the
report can still say what embedding cost.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.progress import progress


def default_cache_dir() -> Path:
    """A per-user directory under the system's temp dir: survives reruns, not reboots."""
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    return Path(tempfile.gettempdir()) / f"thoughtgraph-bench-{uid}"


@dataclass(frozen=True)
class Embedded:
    vectors: np.ndarray  # float32, one unit row per text
    seconds: float  # what the model took (measured when the cache was written)
    cached: bool  # read from the cache in this run
    path: Path


def texts_key(model: str, texts: Sequence[str]) -> str:
    digest = hashlib.sha256(model.encode())
    for text in texts:
        digest.update(b"\x00")
        digest.update(text.encode())
    return digest.hexdigest()[:24]


EMBED_CHUNK = 512  # texts per embedder call: large enough to batch well, small enough to show


def _embed_with_progress(embedder: TextEmbedder, texts: Sequence[str]) -> np.ndarray:
    chunks: list[np.ndarray] = []
    with progress("bench: embedding", len(texts)) as shown:
        for first in range(0, len(texts), EMBED_CHUNK):
            chunk = list(texts[first : first + EMBED_CHUNK])
            chunks.append(np.asarray(embedder.embed_documents(chunk), dtype=np.float32))
            shown.advance(len(chunk))
    if not chunks:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    return np.concatenate(chunks)


def embed_cached(
    embedder: TextEmbedder, texts: Sequence[str], cache_dir: Path | None = None
) -> Embedded:
    """The texts' embeddings: from the cache when present, else from the model (then
    written to the cache; a failed write only costs the next run the embedding)."""
    directory = cache_dir or default_cache_dir()
    path = directory / f"vectors-{texts_key(embedder.name, texts)}.npy"
    meta_path = path.with_suffix(".json")
    with contextlib.suppress(OSError, ValueError, KeyError):
        vectors = np.load(path, allow_pickle=False)
        meta = json.loads(meta_path.read_text())
        if vectors.shape == (len(texts), embedder.dimension):
            return Embedded(vectors, float(meta["seconds"]), cached=True, path=path)
    started = time.perf_counter()
    vectors = _embed_with_progress(embedder, texts)
    seconds = time.perf_counter() - started
    with contextlib.suppress(OSError):
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Written under a temporary name and renamed: a concurrent or killed run never
        # leaves a half-written file under the real name.
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        with partial.open("wb") as out:
            np.save(out, vectors, allow_pickle=False)
        meta_path.write_text(json.dumps({"seconds": seconds, "texts": len(texts)}))
        partial.replace(path)
    return Embedded(vectors, seconds, cached=False, path=path)
