"""Export and import on real engines: a namespace holding every kind of node and
relationship goes out as JSON Lines and comes back identical, into a fresh embedded
engine, into Neo4j and back, twice without change, and re-embedded for another embedder."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from tests.conftest import CONTRACT_DIMENSION
from tests.knowledge_support import make_runtime
from tests.support import LoopThread
from tests.transfer_support import (
    assert_same_records,
    build,
    export_records,
    fresh_falkordb,
    header,
    import_file,
    nearest_ids,
    revision,
)
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.store.cypher_store import CypherGraphStore

LABELS = {
    "Thought",
    "Topic",
    "Contradiction",
    "Episode",
    "ConsolidationRun",
    "PairCheck",
    "ChangeEvent",
}
TYPES = {
    "REFINES",
    "CONSOLIDATES",
    "SUPERSEDES",
    "RELATED_TO",
    "BELONGS_TO",
    "PART_OF",
    "INVOLVES",
    "CONCERNS",
}


def kinds(found: list[dict[str, Any]]) -> tuple[Counter[str], Counter[str]]:
    labels = Counter(r["label"] for r in found if r["record"] == "node")
    types = Counter(r["type"] for r in found if r["record"] == "edge")
    return labels, types


def test_export_holds_every_kind_and_comes_back_identical(
    loop: LoopThread,
    runtime: Runtime,
    local_embedder: TextEmbedder,
    ns: str,
    tmp_path: Path,
) -> None:
    store = runtime.store
    build(loop, runtime, ns)
    first = export_records(loop, store, local_embedder, ns, tmp_path / "first.jsonl")
    labels, types = kinds(first)
    assert set(labels) == LABELS, labels
    assert set(types) == TYPES, types
    log = {"record": "changeLog", "namespace": ns, "revision": revision(loop, store, ns)}
    assert first[-1] == log
    described = header(tmp_path / "first.jsonl")
    assert (described["engine"], described["embedder"]) == (store.engine, local_embedder.name)
    assert described["dimension"] == CONTRACT_DIMENSION

    # Into a fresh embedded engine: the same records, the same nearest thoughts.
    with fresh_falkordb(loop, tmp_path / "fresh", CONTRACT_DIMENSION) as fresh:
        counts = import_file(loop, fresh, local_embedder, tmp_path / "first.jsonl")
        assert not counts.reembedded and counts.skipped == 0
        assert counts.nodes == sum(labels.values()) and counts.edges == sum(types.values())
        again = export_records(loop, fresh, local_embedder, ns, tmp_path / "again.jsonl")
        assert_same_records(again, first)
        assert nearest_ids(loop, fresh, local_embedder, ns) == nearest_ids(
            loop, store, local_embedder, ns
        )

    # A second import into the store it came from changes nothing.
    before = revision(loop, store, ns)
    import_file(loop, store, local_embedder, tmp_path / "first.jsonl")
    assert revision(loop, store, ns) == before
    assert_same_records(
        export_records(loop, store, local_embedder, ns, tmp_path / "third.jsonl"), first
    )


def test_embedded_engine_to_neo4j_and_back(
    loop: LoopThread,
    falkordb_store: CypherGraphStore,
    neo4j_store: CypherGraphStore,
    local_embedder: TextEmbedder,
    ns: str,
    tmp_path: Path,
) -> None:
    runtime = make_runtime(falkordb_store, local_embedder, tmp_path)
    try:
        build(loop, runtime, ns)
    finally:
        loop.run(runtime.services.close())
    from_falkordb = tmp_path / "falkordb.jsonl"
    first = export_records(loop, falkordb_store, local_embedder, ns, from_falkordb)

    import_file(loop, neo4j_store, local_embedder, from_falkordb)
    from_neo4j = tmp_path / "neo4j.jsonl"
    assert_same_records(export_records(loop, neo4j_store, local_embedder, ns, from_neo4j), first)
    assert header(from_neo4j)["engine"] == "neo4j"
    expected = nearest_ids(loop, falkordb_store, local_embedder, ns)
    assert nearest_ids(loop, neo4j_store, local_embedder, ns) == expected

    # Twice into Neo4j: nothing changes (the change log, every record).
    before = revision(loop, neo4j_store, ns)
    import_file(loop, neo4j_store, local_embedder, from_falkordb)
    assert revision(loop, neo4j_store, ns) == before
    assert_same_records(
        export_records(loop, neo4j_store, local_embedder, ns, tmp_path / "n2.jsonl"), first
    )

    with fresh_falkordb(loop, tmp_path / "back", CONTRACT_DIMENSION) as back:
        import_file(loop, back, local_embedder, from_neo4j)
        assert_same_records(
            export_records(loop, back, local_embedder, ns, tmp_path / "back.jsonl"), first
        )
        assert nearest_ids(loop, back, local_embedder, ns) == expected


def test_another_embedder_in_the_header_re_embeds(
    loop: LoopThread,
    falkordb_store: CypherGraphStore,
    local_embedder: TextEmbedder,
    ns: str,
    tmp_path: Path,
) -> None:
    runtime = make_runtime(falkordb_store, local_embedder, tmp_path)
    try:
        build(loop, runtime, ns)
    finally:
        loop.run(runtime.services.close())
    original = tmp_path / "original.jsonl"
    first = export_records(loop, falkordb_store, local_embedder, ns, original)
    # The same file as another (8-dimensional) embedder would have written it.
    lines = original.read_text(encoding="utf-8").splitlines()
    described = json.loads(lines[0]) | {"embedder": "other:tiny", "dimension": 8}
    rewritten = [json.dumps(described)]
    for line in lines[1:]:
        record = json.loads(line)
        if "vector" in record:
            record["vector"] = [0.5] * 8
        rewritten.append(json.dumps(record))
    other = tmp_path / "other.jsonl"
    other.write_text("\n".join(rewritten) + "\n", encoding="utf-8")

    with fresh_falkordb(loop, tmp_path / "fresh", CONTRACT_DIMENSION) as fresh:
        counts = import_file(loop, fresh, local_embedder, other)
        assert counts.reembedded
        again = export_records(loop, fresh, local_embedder, ns, tmp_path / "again.jsonl")
        # Same model as the original's: the texts embedded again give its vectors back.
        assert [_without_vector(r) for r in again] == [_without_vector(r) for r in first]
        for before, after in zip(first, again, strict=True):
            if before["record"] == "node" and before["label"] == "Topic":
                assert len(after["vector"]) == CONTRACT_DIMENSION
            elif "vector" in before:
                assert _close(after["vector"], before["vector"]), before
        assert nearest_ids(loop, fresh, local_embedder, ns) == nearest_ids(
            loop, falkordb_store, local_embedder, ns
        )


def _without_vector(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "vector"}


def _close(a: list[float], b: list[float]) -> bool:
    return len(a) == len(b) and max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-4
