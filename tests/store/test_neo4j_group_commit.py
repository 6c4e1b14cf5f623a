"""Group commit on Neo4j (app/store/neo4j/group_commit.py): concurrent writes to one
namespace share transactions, each caller gets its own statement's outcome, and a
faulty statement takes no other write down with it."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from neo4j.exceptions import ClientError

from tests.conftest import CONTRACT_DIMENSION
from tests.store.test_store_contract import make_thought
from tests.support import LoopThread, repos, unit_vector
from thoughtgraph.domain.models import ThoughtRecord
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.store.neo4j.adapter import Neo4jGraphStore
from thoughtgraph.store.params import thought_create_params

WRITERS = 40


def _record(ns: str, content: str) -> ThoughtRecord:
    return ThoughtRecord(
        thought=make_thought(ns, content), embedding=tuple(unit_vector(CONTRACT_DIMENSION))
    )


def _create(store: CypherGraphStore, record: ThoughtRecord) -> Any:
    return repos(store).thoughts.create(
        record, event_id=f"{record.thought.id}:created", event_kind="created"
    )


@pytest.fixture
def groups_store(neo4j_store: CypherGraphStore) -> Neo4jGraphStore:
    assert isinstance(neo4j_store, Neo4jGraphStore)
    return neo4j_store


def test_concurrent_writes_share_transactions_and_every_one_lands(
    loop: LoopThread, groups_store: Neo4jGraphStore, ns: str
) -> None:
    loop.run(_create(groups_store, _record(ns, "first: the namespace's schema")))
    before = (groups_store.write_groups.transactions, groups_store.write_groups.statements)
    records = [_record(ns, f"concurrent {i}") for i in range(WRITERS)]

    async def write_all() -> list[int | None]:
        return list(await asyncio.gather(*(_create(groups_store, r) for r in records)))

    revisions = loop.run(write_all())
    transactions = groups_store.write_groups.transactions - before[0]
    statements = groups_store.write_groups.statements - before[1]
    assert sorted(r for r in revisions if r is not None) == list(range(2, WRITERS + 2))
    assert statements == WRITERS
    assert transactions < WRITERS  # grouped: fewer commits than writes
    stored = loop.run(repos(groups_store).thoughts.get_many(ns, [r.thought.id for r in records]))
    assert {r.thought.id: r.thought.content for r in records} == {
        tid: t.content for tid, t in stored.items()
    }
    assert loop.run(repos(groups_store).changes.revision(ns)) == WRITERS + 1


def test_a_faulty_statement_fails_alone_and_its_group_lands(
    loop: LoopThread, groups_store: Neo4jGraphStore, ns: str
) -> None:
    loop.run(_create(groups_store, _record(ns, "first: the namespace's schema")))
    good = [_record(ns, f"good {i}") for i in range(10)]
    faulty = thought_create_params(
        _record(ns, "faulty"), event_id="faulty:created", event_kind="created"
    )
    faulty["tags"] = [{"not": "a property value"}]  # Neo4j refuses a map in a property

    async def write_all() -> list[Any]:
        writes = [_create(groups_store, r) for r in good[:5]]
        writes.append(groups_store.write("thought.create", faulty, namespace=ns))
        writes += [_create(groups_store, r) for r in good[5:]]
        return list(await asyncio.gather(*writes, return_exceptions=True))

    outcomes = loop.run(write_all())
    assert isinstance(outcomes[5], ClientError)
    revisions = outcomes[:5] + outcomes[6:]
    assert sorted(revisions) == list(range(2, 12))  # gapless: the faulty one took none
    stored = loop.run(repos(groups_store).thoughts.get_many(ns, [r.thought.id for r in good]))
    assert len(stored) == len(good)
    assert faulty["id"] not in loop.run(repos(groups_store).thoughts.get_many(ns, [faulty["id"]]))
    assert loop.run(repos(groups_store).changes.revision(ns)) == 11


def test_a_caller_that_gives_up_takes_no_other_write_down(
    loop: LoopThread, groups_store: Neo4jGraphStore, ns: str
) -> None:
    loop.run(_create(groups_store, _record(ns, "first: the namespace's schema")))
    records = [_record(ns, f"patient {i}") for i in range(12)]

    async def write_all() -> list[Any]:
        tasks = [asyncio.create_task(_create(groups_store, r)) for r in records]
        await asyncio.sleep(0.005)  # every write handed in, a transaction under way
        tasks[0].cancel()  # the caller whose write started the namespace's writes
        return list(await asyncio.gather(*tasks, return_exceptions=True))

    outcomes = loop.run(write_all())
    assert isinstance(outcomes[0], asyncio.CancelledError)
    assert all(isinstance(r, int) for r in outcomes[1:]), outcomes
    stored = loop.run(repos(groups_store).thoughts.get_many(ns, [r.thought.id for r in records]))
    assert {r.thought.id for r in records[1:]} <= set(stored)
    # Gapless whether or not the given-up write landed: one revision per stored thought.
    assert loop.run(repos(groups_store).changes.revision(ns)) == len(stored) + 1
    assert sorted(outcomes[1:]) == sorted(
        t.revision for tid, t in stored.items() if tid != records[0].thought.id
    )
