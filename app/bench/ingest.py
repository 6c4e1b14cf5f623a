"""Batch ingest throughput with the local embedder: the embedder's batch call alone, then
the same number of thoughts through ``contributeMany`` batches and through single
contributes (ThoughtService in process, on the bench's engine)."""

from __future__ import annotations

import asyncio
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Sequence
from pathlib import Path

from app.bench.data import QueryFactory
from app.bench.report import Row, Target
from app.llm.embedders import TextEmbedder
from app.services.thoughts import MAX_BATCH, ThoughtInput, ThoughtService
from app.settings import EmbedderKind, Settings

TARGET_SHARE = 0.80  # contributeMany at least 80% of the embedder's batch throughput


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


class IngestBench:
    def __init__(self, settings: Settings, count: int) -> None:
        self.settings = settings.model_copy(
            update={"embedder": EmbedderKind.LOCAL, "llm_model": None, "scan_on_write": False}
        )
        self.count = count
        self.rates: dict[str, float] = {}

    def run(self) -> list[Row]:
        from app.llm.embedders import LocalEmbedder

        _progress(f"batch ingest: {self.count:,} thoughts each way")
        embedder = LocalEmbedder.load(self.settings)
        embedder.embed_documents(QueryFactory(seed=20).sentences(embedder.batch_size))  # warm
        texts = QueryFactory(seed=21).sentences(3 * self.count)
        alone, batched, single = (
            texts[: self.count],
            texts[self.count : 2 * self.count],
            texts[2 * self.count :],
        )
        started = time.perf_counter()
        embedder.embed_documents(alone)
        self.rates["embedder"] = self.count / (time.perf_counter() - started)
        data_dir = None if self.settings.neo4j_uri else Path(tempfile.mkdtemp(prefix="tg-ingest-"))
        try:
            settings = self.settings
            if data_dir is not None:
                settings = settings.model_copy(update={"data_dir": data_dir})
            asyncio.run(self._through_the_service(settings, embedder, batched, single))
        finally:
            if data_dir is not None:
                shutil.rmtree(data_dir, ignore_errors=True)
        return self.rows()

    async def _through_the_service(
        self,
        settings: Settings,
        embedder: TextEmbedder,
        batched: Sequence[str],
        single: Sequence[str],
    ) -> None:
        from app.runtime import open_runtime

        namespace = f"bench-ingest-{secrets.token_hex(4)}"
        async with open_runtime(settings, embedder=embedder) as runtime:
            thoughts = runtime.services.thoughts
            await thoughts.contribute(_input(namespace, "warm-up: the namespace's schema"))
            self.rates["contributeMany"] = await _timed(self._many(thoughts, namespace, batched))
            self.rates["contribute"] = await _timed(self._single(thoughts, namespace, single))

    async def _many(self, thoughts: ThoughtService, namespace: str, texts: Sequence[str]) -> int:
        for start in range(0, len(texts), MAX_BATCH):
            chunk = texts[start : start + MAX_BATCH]
            await thoughts.contribute_many([_input(namespace, text) for text in chunk])
        return len(texts)

    async def _single(self, thoughts: ThoughtService, namespace: str, texts: Sequence[str]) -> int:
        for text in texts:
            await thoughts.contribute(_input(namespace, text))
        return len(texts)

    def rows(self) -> list[Row]:
        found = []
        labels = {
            "embedder": "ingest: the local embedder's batch call alone",
            "contributeMany": f"ingest: contributeMany, {MAX_BATCH} per call (embed + write)",
            "contribute": "ingest: single contributes (embed, guidance, write)",
        }
        for key, label in labels.items():
            if key in self.rates:
                value = f"{self.rates[key]:,.1f} thoughts/s ({self.count:,} thoughts)"
                found.append(Row(None, label, value=value))
        return found

    def targets(self) -> list[Target]:
        if "contributeMany" not in self.rates:
            return []
        share = self.rates["contributeMany"] / self.rates["embedder"]
        return [
            Target(
                f"contributeMany at least {TARGET_SHARE:.0%} of the embedder's batch throughput",
                f"{share:.0%} ({self.rates['contributeMany']:,.1f} vs"
                f" {self.rates['embedder']:,.1f} thoughts/s; single contributes"
                f" {self.rates.get('contribute', 0):,.1f}/s)",
                share >= TARGET_SHARE,
            )
        ]


def _input(namespace: str, text: str) -> ThoughtInput:
    return ThoughtInput(
        content=text, agent_id="bench-ingest", agent_name="Bench Ingest", namespace=namespace
    )


async def _timed(work: Awaitable[int]) -> float:
    """Thoughts per second of a coroutine that returns how many it wrote."""
    started = time.perf_counter()
    count = await work
    return float(count) / (time.perf_counter() - started)
