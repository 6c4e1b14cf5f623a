"""A store built without an embedder (TG_EMBEDDER=none) gets real vectors by export and
import into a store with an embedder: the import embeds every text again. Real
`thoughtgraph` processes on the embedded engine; the target's hash embedder has another
dimension than the placeholders, so a vector search there can only succeed on new vectors."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.features.reembedding.test_reembed_in_place import request
from tests.support import run_cli
from thoughtgraph.domain.errors import SchemaMismatchError, VectorSearchUnavailableError
from thoughtgraph.domain.retrieval import RetrievalOptions
from thoughtgraph.domain.vector_space import embedder_overrides
from thoughtgraph.features.thoughts.service import ThoughtInput
from thoughtgraph.runtime import open_runtime
from thoughtgraph.settings import EmbedderKind, Settings

NOTES = [
    "The billing service retries failed card payments three times",
    "Invoices are emailed on the first working day of the month",
]
REFINED = "The billing service retries failed card payments five times"
REASON = "more retries after the payment provider outage"


async def vector_search(data_dir: Path, query: str) -> list[tuple[str, float]]:
    """A vector-only search (no full-text side) in the store with the hash embedder."""
    settings = Settings(data_dir=data_dir, embedder=EmbedderKind.HASH, embedding_dimension=32)
    async with open_runtime(settings) as runtime:
        assert runtime.store.embedding_dimension == 32
        hits = await runtime.services.search.search(
            "notes", query, k=5, options=RetrievalOptions(hybrid=False)
        )
        return [(hit.thought.content, hit.similarity) for hit in hits]


def test_export_and_import_give_a_text_only_store_real_vectors(tmp_path: Path) -> None:
    source, exported = tmp_path / "notes.txt", tmp_path / "export.jsonl"
    source.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    text_only, embedded = tmp_path / "text-only", tmp_path / "embedded"
    none = {"TG_EMBEDDER": "none", "TG_EMBEDDING_DIMENSION": "16"}

    loaded = run_cli(text_only, "import", "--text", str(source), "--namespace", "notes", **none)
    assert loaded.returncode == 0, loaded.stderr
    # The text-only store refuses an embedder: its vectors are placeholders.
    with pytest.raises(SchemaMismatchError, match="built without an embedder"):
        asyncio.run(vector_search(text_only, NOTES[0]))
    done = run_cli(text_only, "export", "--namespace", "notes", str(exported), **none)
    assert done.returncode == 0, done.stderr
    header = json.loads(exported.read_text(encoding="utf-8").splitlines()[0])
    assert header["embedder"] == "none:16" and header["dimension"] == 16

    hashed = {"TG_EMBEDDER": "hash", "TG_EMBEDDING_DIMENSION": "32"}
    restored = run_cli(embedded, "import", str(exported), **hashed)
    assert restored.returncode == 0, restored.stderr
    hits = asyncio.run(vector_search(embedded, NOTES[1]))
    assert hits[0][0] == NOTES[1] and hits[0][1] > 0.999


def test_reembed_gives_a_text_only_store_real_vectors_in_place(tmp_path: Path) -> None:
    """The same without a second store: `thoughtgraph reembed` run with the service's own
    settings (TG_EMBEDDER=none) adds the hash embedder's vectors and switches to them; the
    store then serves vector search, to a service configured either way."""
    source, store = tmp_path / "notes.txt", tmp_path / "store"
    source.write_text("\n".join(NOTES) + "\n", encoding="utf-8")
    none = {"TG_EMBEDDER": "none", "TG_EMBEDDING_DIMENSION": "16"}
    loaded = run_cli(store, "import", "--text", str(source), "--namespace", "notes", **none)
    assert loaded.returncode == 0, loaded.stderr

    done = run_cli(store, "reembed", "--embedder=hash", "--dimension=32", "--grace=0", **none)
    assert done.returncode == 0, done.stderr
    assert "re-embedded 2 thoughts, 0 reasons, 0 topics, 0 episodes with hash:32" in done.stderr
    status = run_cli(store, "reembed", "--status", **none)
    assert status.returncode == 0, status.stderr
    spaces = json.loads(status.stdout)
    assert spaces["active"]["embedder"] == "hash:32" and spaces["next"] is None

    hits = asyncio.run(vector_search(store, NOTES[1]))  # configured with the hash embedder
    assert hits[0][0] == NOTES[1] and hits[0][1] > 0.999

    async def as_configured_before() -> tuple[str, bool, list[str]]:
        settings = Settings(data_dir=store, embedder=EmbedderKind.NONE, embedding_dimension=16)
        async with open_runtime(settings) as runtime:
            found = await runtime.services.search.search(
                "notes", NOTES[0], k=1, options=RetrievalOptions(hybrid=False)
            )
            return (
                runtime.services.embedder.name,
                runtime.services.search.full_text_only,
                [hit.thought.content for hit in found],
            )

    assert asyncio.run(as_configured_before()) == ("hash:32", False, [NOTES[0]])


def test_a_running_text_only_service_searches_by_vector_once_a_reembed_switches(
    tmp_path: Path,
) -> None:
    """No restart: the service that wrote without an embedder runs the re-embed (as its
    worker would) and its next search is a vector search in the new space, lineage
    reasons searchable too; the same searches before were full text only or refused."""
    settings = Settings(data_dir=tmp_path, embedder=EmbedderKind.NONE, embedding_dimension=16)
    vector_only = RetrievalOptions(hybrid=False)

    def note(content: str) -> ThoughtInput:
        return ThoughtInput(content=content, agent_id="a", agent_name="A", namespace="notes")

    async def scenario() -> None:
        async with open_runtime(settings) as runtime:
            search, thoughts = runtime.services.search, runtime.services.thoughts
            first = await request(thoughts.contribute(note(NOTES[0])))
            await request(thoughts.contribute(note(NOTES[1])))
            await request(
                thoughts.contribute(note(REFINED), refines=first.thought.id, reason=REASON)
            )
            before = await request(search.search("notes", NOTES[1], k=2, options=vector_only))
            assert search.full_text_only and before[0].thought.content == NOTES[1]
            assert before[0].similarity == 0.0  # placeholders: full text alone
            with pytest.raises(VectorSearchUnavailableError):
                await request(search.search_changes("notes", REASON))

            report = await request(
                runtime.services.reembedding.run(
                    embedder_overrides("hash", dimension=32), grace_s=0.2
                )
            )
            assert report.switched and report.written["thoughts"] == 3
            after = await request(search.search("notes", NOTES[1], k=2, options=vector_only))
            assert not search.full_text_only and runtime.services.embedder.name == "hash:32"
            assert after[0].thought.content == NOTES[1] and after[0].similarity > 0.999
            (reason,) = await request(search.search_changes("notes", REASON, k=1))
            assert reason.reason == REASON and reason.similarity > 0.999

    asyncio.run(scenario())
