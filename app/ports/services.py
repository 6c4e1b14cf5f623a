"""What services need from an embedder: a narrow async interface (see app/llm/embedders)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from thoughtgraph.domain.judgement import PairToJudge, UsageMeter, Verdict


class Embeddings(Protocol):
    @property
    def name(self) -> str:
        """The embedder of the current request's vector space."""
        ...

    @property
    def dimension(self) -> int: ...

    async def async_embed_query(self, text: str) -> list[float]: ...

    async def async_embed_documents(self, texts: Sequence[str]) -> list[list[float]]: ...


class PairJudge(Protocol):
    """Judges pairs of similar thoughts (features.contradictions.judge: rules offline, or an
    LLM)."""

    async def judge(self, pairs: Sequence[PairToJudge], usage: UsageMeter) -> list[Verdict]: ...
