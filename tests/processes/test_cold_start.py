"""Many clients at once on a fresh service, on both engines: concurrent first use of a
namespace creates it once per process and answers every request (writes, vector and
full-text searches) while another process creates it too; and a fresh `serve` process
under 20 concurrent clients answers every request, with every acknowledged write readable
afterwards (the soak of `thoughtgraph loadtest --clients`, small and short)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.conftest import CONTRACT_DIMENSION
from tests.store.test_store_contract import make_thought
from tests.store_backends import Neo4jTestTarget, open_neo4j_store
from tests.support import LoopThread, repos, unit_vector
from thoughtgraph.domain.models import ThoughtRecord
from thoughtgraph.settings import Settings
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.store.factory import open_store

WRITERS = 12  # per process
SEARCHERS = 12  # per process
AT_ONCE = 200  # statements of each kind at once: more than a client has connections


@contextlib.asynccontextmanager
async def another_process_store(
    store: CypherGraphStore, target: Neo4jTestTarget | None
) -> AsyncIterator[CypherGraphStore]:
    """A second store on the same engine, with connections and caches of its own, as the
    worker or a second API process has."""
    if target is None:
        settings = Settings(data_dir=Path(store.describe()["data_dir"]))
        async with open_store(settings, attach=True) as other:
            await other.bootstrap(embedding_dimension=CONTRACT_DIMENSION, embedder="test:contract")
            yield other
        return
    neo4j = await open_neo4j_store(target)
    try:
        await neo4j.bootstrap(embedding_dimension=CONTRACT_DIMENSION, embedder="test:contract")
        yield neo4j
    finally:
        await neo4j.close()


def counting_creations(store: CypherGraphStore) -> list[str]:
    """Every namespace creation the store runs, in order (the real creation still runs)."""
    created: list[str] = []
    create = store._create_namespace_schema

    async def counted(namespace: str) -> None:
        created.append(namespace)
        await create(namespace)

    store._create_namespace_schema = counted  # type: ignore[method-assign]
    return created


def test_concurrent_first_use_creates_the_namespace_once_and_answers_everyone(
    request: pytest.FixtureRequest, loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    target = request.getfixturevalue("neo4j_target") if store.engine == "neo4j" else None

    async def first_use() -> tuple[list[str], list[str], list[str]]:
        async with another_process_store(store, target) as other:
            creations = [counting_creations(s) for s in (store, other)]
            written: list[str] = []

            async def writer(s: CypherGraphStore, i: int) -> None:
                thought = make_thought(ns, f"first use {i} of the namespace")
                await repos(s).thoughts.create(
                    ThoughtRecord(
                        thought=thought, embedding=tuple(unit_vector(CONTRACT_DIMENSION))
                    ),
                    event_id=f"{thought.id}:created",
                    event_kind="created",
                )
                written.append(thought.id)

            async def searcher(s: CypherGraphStore, i: int) -> None:
                embedding = unit_vector(CONTRACT_DIMENSION, seed=i)
                await repos(s).thoughts.nearest(ns, embedding, 5, -1.0)
                await repos(s).thoughts.fulltext(ns, "namespace", 5)
                await repos(s).lineage.search_reasons(ns, embedding, 5)

            try:
                await asyncio.gather(
                    *(writer(s, i) for s in (store, other) for i in range(WRITERS)),
                    *(searcher(s, i) for s in (store, other) for i in range(SEARCHERS)),
                )
            finally:
                for s in (store, other):
                    del s._create_namespace_schema
            return creations[0], creations[1], written

    here, there, written = loop.run(first_use())
    # At most once per process however many ask at once (a process that finds the other's
    # finished namespace need not create it), and at least once in all.
    assert here in ([ns], []) and there in ([ns], []) and here + there
    assert len(written) == 2 * WRITERS
    found = loop.run(repos(store).thoughts.get_many(ns, written))
    assert set(found) == set(written)
    hits = loop.run(
        repos(store).thoughts.nearest(ns, unit_vector(CONTRACT_DIMENSION, seed=1), 50, -1.0)
    )
    assert {hit.thought.id for hit in hits} == set(written)
    assert len(loop.run(repos(store).thoughts.fulltext(ns, "namespace", 50))) == 2 * WRITERS
    assert loop.run(repos(store).changes.revision(ns)) == 2 * WRITERS


def test_more_statements_at_once_than_connections_all_answer(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    """Past the client's connection limit statements wait for a connection: none fails, and
    none is taken for a lost engine (which closed every connection in use, failing the
    statements in flight, which closed them all again)."""
    thought = make_thought(ns, "one thought to read many times at once")
    record = ThoughtRecord(thought=thought, embedding=tuple(unit_vector(CONTRACT_DIMENSION)))
    loop.run(
        repos(store).thoughts.create(record, event_id=f"{thought.id}:created", event_kind="created")
    )

    async def many() -> list[object]:
        return await asyncio.gather(
            *(repos(store).thoughts.get_many(ns, [thought.id]) for _ in range(AT_ONCE)),
            *(repos(store).thoughts.fulltext(ns, "thought", 5) for _ in range(AT_ONCE)),
            return_exceptions=True,
        )

    answers = loop.run(many())
    failures = [answer for answer in answers if isinstance(answer, BaseException)]
    assert failures == []
    assert all(answer for answer in answers)


def test_statements_cancelled_mid_flight_leave_no_half_read_connection(
    loop: LoopThread, store: CypherGraphStore, ns: str
) -> None:
    """A request whose client went away is cancelled with the statement it waited on. Its
    connection must not go back to the pool with the answer still unread, or the next
    statement on it would get that answer instead of its own."""
    thoughts = [make_thought(ns, f"cancelled reads {i}") for i in range(8)]
    for thought in thoughts:
        record = ThoughtRecord(thought=thought, embedding=tuple(unit_vector(CONTRACT_DIMENSION)))
        loop.run(
            repos(store).thoughts.create(
                record, event_id=f"{thought.id}:created", event_kind="created"
            )
        )

    async def read(i: int) -> bool:
        wanted = thoughts[i % len(thoughts)].id
        return list(await repos(store).thoughts.get_many(ns, [wanted])) == [wanted]

    async def rounds() -> list[bool]:
        answers: list[bool] = []
        for _ in range(10):
            doomed = [asyncio.create_task(read(i)) for i in range(40)]
            kept = [asyncio.create_task(read(i)) for i in range(40)]
            await asyncio.sleep(0.002)  # some are waiting on the engine now
            for task in doomed:
                task.cancel()
            await asyncio.gather(*doomed, return_exceptions=True)
            answers += await asyncio.gather(*kept)
        answers += await asyncio.gather(*(read(i) for i in range(40)))  # after them all
        return answers

    answers = loop.run(rounds())
    assert answers == [True] * len(answers)


@pytest.mark.slow
def test_a_fresh_service_answers_twenty_concurrent_clients(
    request: pytest.FixtureRequest, engine: str
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TG_")}
    if engine == "neo4j":
        target: Neo4jTestTarget = request.getfixturevalue("neo4j_target")
        env |= {
            "TG_NEO4J_URI": target.uri,
            "TG_NEO4J_USER": target.user,
            "TG_NEO4J_PASSWORD": target.password,
            "TG_NEO4J_DATABASE": target.database,
        }
    done = subprocess.run(
        [sys.executable, "-m", "thoughtgraph", "loadtest", "--clients", "20", "--duration", "4",
         "--engine", engine],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "errors by code: none" in out, out
    for operation in ("contribute", "search", "assemble", "lineage"):
        assert re.search(rf"^{operation}\s+[1-9]\d*\s+\d+\s+0\s", out, re.M), out
    read = re.search(r"read back: (\d+)/(\d+) acknowledged writes \(0 missing\)", out)
    assert read is not None and int(read.group(2)) > 0, out
    assert re.search(r"change log: \d+ revisions, gapless", out), out
