"""Reference rows over the same turn texts the service stores: BM25 alone (``bm25s``,
lower-cased, English stop words, no stemming) and exact cosine over the same MiniLM
vectors. Both rank within one conversation, as the service's search does."""

from __future__ import annotations

from collections.abc import Sequence

import bm25s  # type: ignore[import-untyped]
import numpy as np

from thoughtgraph.tools.eval.locomo import Turn


class Bm25Reference:
    name = "BM25 alone"

    def __init__(self, turns: Sequence[Turn]) -> None:
        self._ids = [turn.dia_id for turn in turns]
        self._index = bm25s.BM25()
        tokens = bm25s.tokenize(
            [turn.content for turn in turns], stopwords="en", show_progress=False
        )
        self._index.index(tokens, show_progress=False)

    def rank(self, query: str, k: int) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", show_progress=False)
        if not tokens.vocab:  # nothing but stop words: no ranking
            return []
        size = min(k, len(self._ids))
        docs, scores = self._index.retrieve(tokens, k=size, show_progress=False)
        return [self._ids[int(d)] for d, s in zip(docs[0], scores[0], strict=True) if s > 0]


class CosineReference:
    name = "vector alone"

    def __init__(self, turns: Sequence[Turn], vectors: Sequence[Sequence[float]]) -> None:
        self._ids = [turn.dia_id for turn in turns]
        matrix = np.asarray(vectors, dtype=np.float32)
        self._matrix = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)

    def rank(self, query_vector: Sequence[float], k: int) -> list[str]:
        query = np.asarray(query_vector, dtype=np.float32)
        scores = self._matrix @ (query / max(float(np.linalg.norm(query)), 1e-12))
        order = np.argsort(-scores, kind="stable")[:k]
        return [self._ids[int(i)] for i in order]
