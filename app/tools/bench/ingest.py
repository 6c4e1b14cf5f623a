"""Batch ingest throughput with the local embedder: the embedder's batch call alone, the
same number of thoughts through ``contributeMany`` batches and through single contributes
(ThoughtService in process, on the bench's engine), a batch of each in turn."""

from __future__ import annotations

import asyncio
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Sequence
from pathlib import Path

from thoughtgraph.features.thoughts.service import MAX_BATCH, ThoughtInput, ThoughtService
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.progress import progress
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.tools.bench.data import QueryFactory
from thoughtgraph.tools.bench.report import Row, Target

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
        from thoughtgraph.llm.embedders import LocalEmbedder

        _progress(f"batch ingest: {self.count:,} thoughts each way, interleaved")
        embedder = LocalEmbedder.load(self.settings)
        embedder.embed_documents(QueryFactory(seed=20).sentences(embedder.batch_size))  # warm
        data_dir = None if self.settings.neo4j_uri else Path(tempfile.mkdtemp(prefix="tg-ingest-"))
        try:
            settings = self.settings
            if data_dir is not None:
                settings = settings.model_copy(update={"data_dir": data_dir})
            asyncio.run(self._interleaved(settings, embedder))
        finally:
            if data_dir is not None:
                shutil.rmtree(data_dir, ignore_errors=True)
        return self.rows()

    async def _interleaved(self, settings: Settings, embedder: TextEmbedder) -> None:
        """A round of each way per batch, in turn, so that the three see the same
        machine (others' load comes and goes): the embedder's batch call alone (the one
        contributeMany makes), a contributeMany call, and as many single contributes."""
        from thoughtgraph.runtime import open_runtime

        namespace = f"bench-ingest-{secrets.token_hex(4)}"
        texts = QueryFactory(seed=21).sentences(3 * self.count)
        spent = {"embedder": 0.0, "contributeMany": 0.0, "contribute": 0.0}
        async with open_runtime(settings, embedder=embedder) as runtime:
            thoughts = runtime.services.thoughts
            await thoughts.contribute(_input(namespace, "warm-up: the namespace's schema"))
            with progress("bench: ingest", 3 * self.count) as shown:
                for start in range(0, self.count, MAX_BATCH):
                    chunks = [
                        texts[way * self.count + start : way * self.count + start + MAX_BATCH]
                        for way in range(3)
                    ]
                    spent["embedder"] += await _timed(embedder.async_embed_documents(chunks[0]))
                    batch = [_input(namespace, text) for text in chunks[1]]
                    spent["contributeMany"] += await _timed(thoughts.contribute_many(batch))
                    spent["contribute"] += await _timed(_single(thoughts, namespace, chunks[2]))
                    shown.advance(sum(len(chunk) for chunk in chunks))
        self.rates = {way: self.count / seconds for way, seconds in spent.items()}

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


async def _single(thoughts: ThoughtService, namespace: str, texts: Sequence[str]) -> None:
    for text in texts:
        await thoughts.contribute(_input(namespace, text))


async def _timed(work: Awaitable[object]) -> float:
    """Seconds the awaited work took."""
    started = time.perf_counter()
    await work
    return time.perf_counter() - started
