"""Ingest throughput with the local embedder: the embedder's batch call alone and one
sentence per call alone, the same number of thoughts through ``contributeMany`` batches,
through single contributes one after the other and through single contributes from
twenty agents at once (ThoughtService in process, on the bench's engine), a batch of
each in turn; and where a single contribute's time goes (the write path's
parts: the embedding, the guidance query and the write statement with its change event,
which run at once, and the rest: validation, access, the scan request, the operational
event, logging)."""

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
from thoughtgraph.tools.bench.profiling import PhaseTimer
from thoughtgraph.tools.bench.report import Row, Target

# contributeMany at least 80% of the embedder's batch throughput, single contributes at
# least 80% of its one-sentence throughput.
TARGET_SHARE = 0.80
WAYS = ("embedder", "embedder, one sentence", "contributeMany", "contribute", "at once")
# Single contributes from this many agents at once (on Neo4j they share transactions).
AGENTS_AT_ONCE = 20
# Timed inside single contributes: the embedding, then the guidance read and the write at
# once (their wall time together, and each alone); the rest is other.
AT_ONCE = "guidance and write at once"
PARTS = ("embed", AT_ONCE)
OVERLAPPING = ("guidance", "write")


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


class IngestBench:
    def __init__(self, settings: Settings, count: int) -> None:
        self.settings = settings.model_copy(
            update={"embedder": EmbedderKind.LOCAL, "llm_model": None, "scan_on_write": False}
        )
        self.count = count
        self.rates: dict[str, float] = {}
        self.parts_ms: dict[str, float] = {}  # per single contribute, mean
        self.overlapping_ms: dict[str, float] = {}

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
        """A round of each way per batch, in turn, so that all five see the same machine
        (others' load comes and goes): the embedder's batch call alone (the one
        contributeMany makes), one sentence per call alone (what a contribute embeds), a
        contributeMany call, as many single contributes, their parts timed, and as many
        again from twenty agents at once."""
        from thoughtgraph.runtime import open_runtime

        namespace = f"bench-ingest-{secrets.token_hex(4)}"
        texts = QueryFactory(seed=21).sentences(len(WAYS) * self.count)
        spent = dict.fromkeys(WAYS, 0.0)
        parts = PhaseTimer()
        async with open_runtime(settings, embedder=embedder) as runtime:
            thoughts = runtime.services.thoughts
            await thoughts.contribute(_input(namespace, "warm-up: the namespace's schema"))
            with progress("bench: ingest", len(WAYS) * self.count) as shown:
                for start in range(0, self.count, MAX_BATCH):
                    chunks = [
                        texts[way * self.count + start : way * self.count + start + MAX_BATCH]
                        for way in range(len(WAYS))
                    ]
                    spent["embedder"] += await _timed(embedder.async_embed_documents(chunks[0]))
                    spent["embedder, one sentence"] += await _timed(
                        _one_by_one(embedder, chunks[1])
                    )
                    batch = [_input(namespace, text) for text in chunks[2]]
                    spent["contributeMany"] += await _timed(thoughts.contribute_many(batch))
                    # Timed with the parts' wrappers on (a few microseconds per call).
                    parts.attach("embed", embedder, "async_embed_documents")
                    parts.attach("guidance", runtime.repos.thoughts, "nearest", together=AT_ONCE)
                    parts.attach("write", runtime.repos.thoughts, "create", together=AT_ONCE)
                    try:
                        spent["contribute"] += await _timed(_single(thoughts, namespace, chunks[3]))
                    finally:
                        parts.detach()
                    spent["at once"] += await _timed(_at_once(thoughts, namespace, chunks[4]))
                    shown.advance(sum(len(chunk) for chunk in chunks))
        self.rates = {way: self.count / seconds for way, seconds in spent.items()}
        self.parts_ms = {part: parts.seconds.get(part, 0.0) * 1000 / self.count for part in PARTS}
        self.parts_ms["other"] = spent["contribute"] * 1000 / self.count - sum(
            self.parts_ms.values()
        )
        self.overlapping_ms = {
            part: parts.seconds.get(part, 0.0) * 1000 / self.count for part in OVERLAPPING
        }

    def rows(self) -> list[Row]:
        found = []
        labels = {
            "embedder": "ingest: the local embedder's batch call alone",
            "embedder, one sentence": "ingest: the local embedder, one sentence per call alone",
            "contributeMany": f"ingest: contributeMany, {MAX_BATCH} per call (embed + write)",
            "contribute": "ingest: single contributes (embed, guidance, write)",
            "at once": f"ingest: single contributes, {AGENTS_AT_ONCE} agents at once",
        }
        for key, label in labels.items():
            if key in self.rates:
                value = f"{self.rates[key]:,.1f} thoughts/s ({self.count:,} thoughts)"
                found.append(Row(None, label, value=value))
        if self.parts_ms:
            total = sum(self.parts_ms.values())
            alone = ", ".join(f"{part} {ms:.2f}" for part, ms in self.overlapping_ms.items())
            shares = " + ".join(
                f"{part} {ms:.2f}" + (f" ({alone})" if part == AT_ONCE else "")
                for part, ms in self.parts_ms.items()
            )
            label = "ingest: a single contribute's parts, ms each (mean)"
            found.append(Row(None, label, value=f"{shares} = {total:.2f} ms"))
        return found

    def targets(self) -> list[Target]:
        if "contributeMany" not in self.rates:
            return []
        batch = self.rates["contributeMany"] / self.rates["embedder"]
        single = self.rates["contribute"] / self.rates["embedder, one sentence"]
        return [
            Target(
                f"contributeMany at least {TARGET_SHARE:.0%} of the embedder's batch throughput",
                f"{batch:.0%} ({self.rates['contributeMany']:,.1f} vs"
                f" {self.rates['embedder']:,.1f} thoughts/s)",
                batch >= TARGET_SHARE,
            ),
            Target(
                f"single contributes at least {TARGET_SHARE:.0%} of the embedder's"
                " one-sentence throughput (in process)",
                f"{single:.0%} ({self.rates['contribute']:,.1f} vs"
                f" {self.rates['embedder, one sentence']:,.1f} thoughts/s)",
                single >= TARGET_SHARE,
            ),
        ]


def _input(namespace: str, text: str) -> ThoughtInput:
    return ThoughtInput(
        content=text, agent_id="bench-ingest", agent_name="Bench Ingest", namespace=namespace
    )


async def _one_by_one(embedder: TextEmbedder, texts: Sequence[str]) -> None:
    for text in texts:
        await embedder.async_embed_documents([text])


async def _single(thoughts: ThoughtService, namespace: str, texts: Sequence[str]) -> None:
    for text in texts:
        await thoughts.contribute(_input(namespace, text))


async def _at_once(thoughts: ThoughtService, namespace: str, texts: Sequence[str]) -> None:
    free = asyncio.Semaphore(AGENTS_AT_ONCE)

    async def one(text: str) -> None:
        async with free:
            await thoughts.contribute(_input(namespace, text))

    await asyncio.gather(*(one(text) for text in texts))


async def _timed(work: Awaitable[object]) -> float:
    """Seconds the awaited work took."""
    started = time.perf_counter()
    await work
    return time.perf_counter() - started
