"""A store built without an embedder (TG_EMBEDDER=none) gets real vectors by export and
import into a store with an embedder: the import embeds every text again. Real
`thoughtgraph` processes on the embedded engine; the target's hash embedder has another
dimension than the placeholders, so a vector search there can only succeed on new vectors."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.support import run_cli
from thoughtgraph.domain.errors import SchemaMismatchError
from thoughtgraph.domain.retrieval import RetrievalOptions
from thoughtgraph.runtime import open_runtime
from thoughtgraph.settings import EmbedderKind, Settings

NOTES = [
    "The billing service retries failed card payments three times",
    "Invoices are emailed on the first working day of the month",
]


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
