"""A namespace holding every kind of node and relationship, and export/import helpers for
the transfer tests (everything real: engines, the local model, the maintenance jobs)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.support import LoopThread, field_changes, repos
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.knowledge import Artifact
from thoughtgraph.features.thoughts.service import ThoughtInput
from thoughtgraph.features.transfer.export import Exporter
from thoughtgraph.features.transfer.importing import ImportCounts, Importer
from thoughtgraph.features.transfer.repository import TransferRepository
from thoughtgraph.ports.services import Embeddings
from thoughtgraph.runtime import Runtime
from thoughtgraph.settings import Settings
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.store.factory import open_store

ACTOR = Actor(id="agent-1", name="Agent")
TRANSCRIPT = (
    "We met to plan the release. We decided to ship the billing export on Friday. "
    "The risk is that the invoice service is slow under load. "
    "Alice will add a cache in front of the invoice service."
)
SLOW_S = 600  # a shared two-core machine, and Neo4j: the default minute is too short
EVERY = 50  # more than the namespace holds: whole rankings compare, no cut between ties
QUERIES = (
    "how long are HTTP responses cached",
    "which PostgreSQL version does staging run",
    "how do deployments go out",
    "API rate limit",
)


async def build_every_kind(runtime: Runtime, ns: str) -> None:
    """Originals, a refinement, a consolidation, a supersession, a contradiction (with
    its pair checks), RELATED_TO links, an episode, a batch, and a consolidation run
    (topics, merges)."""
    from thoughtgraph.features.consolidation.jobs import run_consolidation
    from thoughtgraph.features.contradictions.jobs import scan_thoughts

    s = runtime.services

    def data(content: str, **fields: Any) -> ThoughtInput:
        return ThoughtInput(
            content=content, agent_id=ACTOR.id, agent_name=ACTOR.name, namespace=ns, **fields
        )

    async def add(content: str, **fields: Any) -> str:
        return (await s.thoughts.contribute(data(content, **fields))).thought.id

    cache = await add("Responses are cached for ten minutes", tags=("http",))
    timeout = await add("Requests time out after 30 seconds", tags=("http",))
    await s.thoughts.refine(
        data("Responses are cached for one minute"), cache, reason="users saw stale prices"
    )
    await s.thoughts.consolidate(
        data("HTTP policy: one minute cache, 30 s timeout"),
        [cache, timeout],
        reason="merged the HTTP client settings into one note",
    )
    await add("The staging database runs PostgreSQL 14.")
    newer = await add("The staging database runs PostgreSQL 16.")
    await scan_thoughts(runtime, ns, [newer])
    old_limit = await add("The API rate limit is 100 requests per minute")
    new_limit = await add("The API rate limit is 500 requests per minute")
    await s.supersession.supersede(
        ns, new_limit, old_limit, reason="the limit was raised in March", actor=ACTOR
    )
    await add("Deployments go out through the GitHub Actions pipeline.")
    await add("Deployments go out through the GitHub Actions pipeline!")
    await s.thoughts.contribute_many(
        [
            data("The billing export runs nightly at 02:00", kind=_kind("task")),
            data("Invoices are archived for ten years", category="billing"),
        ]
    )
    await s.episodes.ingest(
        ns,
        TRANSCRIPT,
        title="Release planning",
        artifacts=[Artifact(kind="pr", ref="#42")],
        actor=ACTOR,
    )
    run = await s.consolidation.request(ns, dry_run=False, trigger="test")
    await run_consolidation(runtime, ns, run.id, dry_run=False)


def build(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    loop.run(build_every_kind(runtime, ns), timeout=SLOW_S)


def _kind(value: str) -> Any:
    from thoughtgraph.domain.models import ThoughtKind

    return ThoughtKind(value)


def export_records(
    loop: LoopThread, store: CypherGraphStore, embedder: Embeddings, ns: str, path: Path
) -> list[dict[str, Any]]:
    """Export ``ns`` to ``path``; its records, the header left out."""

    async def run() -> None:
        with path.open("w", encoding="utf-8") as out:
            await Exporter(repos(store), embedder, store, page_size=7).export(out, [ns], Quiet())

    loop.run(run(), timeout=SLOW_S)
    return records(path)


def records(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[1:]]


def header(path: Path) -> dict[str, Any]:
    first: dict[str, Any] = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    return first


def import_file(
    loop: LoopThread, store: CypherGraphStore, embedder: Embeddings, path: Path
) -> ImportCounts:
    async def run() -> ImportCounts:
        with path.open(encoding="utf-8") as lines:
            fields = field_changes(store, embedder)
            return await Importer(repos(store), embedder, batch_size=5, fields=fields).restore(
                lines, only=None, shown=Quiet()
            )

    return loop.run(run(), timeout=SLOW_S)


def revision(loop: LoopThread, store: CypherGraphStore, ns: str) -> int | None:
    return loop.run(TransferRepository(store).change_log_revision(ns))


def nearest_ids(
    loop: LoopThread, store: CypherGraphStore, embedder: Embeddings, ns: str
) -> list[list[tuple[float, str]]]:
    """Each query's ranking of every thought, best first, with their similarity to 4 places (ties
    in id order: Neo4j keeps float64 vectors, FalkorDB float32, so near-duplicates can
    swap places by a hair)."""

    async def run() -> list[list[tuple[float, str]]]:
        found = []
        for query in QUERIES:
            vector = await embedder.async_embed_query(query)
            hits = await repos(store).thoughts.nearest(ns, vector, EVERY, 0.0)
            ranked = [(-round(hit.similarity, 4), hit.thought.id) for hit in hits]
            found.append(sorted(ranked))
        return found

    return loop.run(run())


class Quiet:
    """A Progress that shows nothing."""

    def advance(self, n: int = 1) -> None:
        del n


@contextlib.contextmanager
def fresh_falkordb(loop: LoopThread, data_dir: Path, dimension: int) -> Iterator[CypherGraphStore]:
    """A new embedded engine of its own: an import's empty target."""
    stack = contextlib.AsyncExitStack()
    store = loop.run(stack.enter_async_context(open_store(Settings(data_dir=data_dir))))
    try:
        loop.run(store.bootstrap(embedding_dimension=dimension, embedder="test:fresh"))
        yield store
    finally:
        loop.run(stack.aclose())


def into_the_other_engine(
    source: str,
    request: Any,
    loop: LoopThread,
    tmp_path: Path,
    dimension: int,
    check_target: Callable[[CypherGraphStore], None],
) -> None:
    """Runs ``check_target`` on the engine ``source`` is not: the session's Neo4j store, or
    a fresh embedded engine of its own (``request`` is pytest's, for the Neo4j fixture)."""
    if source == "neo4j":
        with fresh_falkordb(loop, tmp_path / "fresh", dimension) as fresh:
            check_target(fresh)
    else:
        check_target(request.getfixturevalue("neo4j_store"))


def assert_same_records(found: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    """Equal record by record; a difference names the record and its differing fields."""
    for index, (a, b) in enumerate(zip(found, expected, strict=False)):
        if a == b:
            continue
        keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        props = sorted(
            k
            for k in set(a.get("properties", {})) | set(b.get("properties", {}))
            if a.get("properties", {}).get(k) != b.get("properties", {}).get(k)
        )
        detail = {
            k: (a.get("properties", {}).get(k), b.get("properties", {}).get(k)) for k in props
        }
        raise AssertionError(f"record {index} differs in {keys}, properties {detail}: {b}")
    assert len(found) == len(expected), (len(found), len(expected))
