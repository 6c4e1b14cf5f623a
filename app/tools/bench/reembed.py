"""Re-embedding throughput: a store of N thoughts written with the hash embedder is
re-embedded with the local model (ReembeddingService in process, on the bench's engine),
against the model's own batch throughput on the same texts. The model's throughput is
measured before and after the re-embed and averaged. The thoughts per second count
the filling only (reading texts, embedding, writing the vectors of the new space); the
switch and the drop of the old space are timed apart."""

from __future__ import annotations

import asyncio
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path

from thoughtgraph.domain.vector_space import embedder_overrides
from thoughtgraph.features.thoughts.service import MAX_BATCH, ThoughtInput
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.tools.bench.data import QueryFactory
from thoughtgraph.tools.bench.report import Row

HASH_DIMENSION = 384  # the local model's, so a Neo4j store keeps its indexes' dimension


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def _rate(model: TextEmbedder, texts: list[str]) -> float:
    """The model's batch throughput on ``texts``, in sentences per second."""
    started = time.perf_counter()
    model.embed_documents(texts)
    return len(texts) / (time.perf_counter() - started)


class ReembedBench:
    def __init__(self, settings: Settings, count: int) -> None:
        self.settings = settings.model_copy(
            update={
                "embedder": EmbedderKind.HASH,
                "embedding_dimension": HASH_DIMENSION,
                "llm_model": None,
                "scan_on_write": False,
                "reembed_grace_s": 0.0,
            }
        )
        self.count = count

    def run(self) -> list[Row]:
        from thoughtgraph.llm.embedders import LocalEmbedder

        if self.settings.neo4j_uri:
            _progress("re-embedding: skipped on Neo4j (it would switch the whole database)")
            return []
        _progress(f"re-embedding {self.count:,} thoughts from the hash embedder to the local one")
        texts = QueryFactory(seed=31).sentences(self.count)
        model = LocalEmbedder.load(self.settings)
        model.embed_documents(texts[: model.batch_size])  # warm-up
        before = _rate(model, texts)
        data_dir = Path(tempfile.mkdtemp(prefix="tg-reembed-"))
        try:
            settings = self.settings.model_copy(update={"data_dir": data_dir})
            filled, rate, switch_s = asyncio.run(self._reembed(settings, texts))
        finally:
            shutil.rmtree(data_dir, ignore_errors=True)
        # The model alone before and after, averaged: the machine's other load moves both.
        model_rate = (before + _rate(model, texts)) / 2
        label = f"re-embed {self.count:,} thoughts, hash to {model.name} (ReembeddingService)"
        return [
            Row(
                None,
                label,
                value=f"{rate:,.1f} thoughts/s = {rate / model_rate:.2f}x the model's batch"
                f" throughput ({model_rate:,.1f} sentences/s); {filled:.1f} s filling",
            ),
            Row(
                None,
                "re-embed: the rest (the new model's load, the switch, the last pass, the drop)",
                value=f"{switch_s:.2f} s",
            ),
        ]

    async def _reembed(self, settings: Settings, texts: list[str]) -> tuple[float, float, float]:
        from thoughtgraph.runtime import open_runtime

        namespace = f"bench-reembed-{secrets.token_hex(4)}"
        async with open_runtime(settings) as runtime:
            thoughts = runtime.services.thoughts
            for start in range(0, len(texts), MAX_BATCH):
                await thoughts.contribute_many(
                    [
                        ThoughtInput(
                            content=text, agent_id="bench", agent_name="Bench", namespace=namespace
                        )
                        for text in texts[start : start + MAX_BATCH]
                    ]
                )
            report = await runtime.services.reembedding.run(embedder_overrides("local"))
        if report.written["thoughts"] != len(texts):
            raise RuntimeError(f"re-embedded {report.written['thoughts']} of {len(texts)} thoughts")
        return report.filling_s, report.thoughts_per_second, report.seconds - report.filling_s
