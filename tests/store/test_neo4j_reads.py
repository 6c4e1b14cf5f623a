"""Reads on Neo4j run as auto-commit transactions (app/store/neo4j/reads.py) and keep what
a managed transaction gave them: a lost connection is retried, a faulty statement is not.

The connection is cut for real: the store talks to the test's Neo4j through a TCP relay
that, once armed, closes the connection carrying the next request instead of forwarding it,
so the read fails in flight (a connection found dead before use the driver replaces by
itself)."""

from __future__ import annotations

import contextlib
import dataclasses
import socket
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from neo4j import GraphDatabase, Record
from neo4j.exceptions import ClientError

from tests.store_backends import Neo4jTestTarget, open_neo4j_store
from tests.support import LoopThread
from thoughtgraph.domain.errors import StoreError
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.store.neo4j import reads
from thoughtgraph.store.neo4j.adapter import Neo4jGraphStore
from thoughtgraph.store.neo4j.records import row_of


class Relay:
    """Forwards loopback connections to ``target``; ``cut_next`` drops the next request."""

    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        self._armed = threading.Event()
        self.cuts = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(self._target)
            with self._lock:
                self._open += [client, server]
            for source, sink, request in ((client, server, True), (server, client, False)):
                threading.Thread(
                    target=self._pipe, args=(source, sink, request), daemon=True
                ).start()

    def cut_next(self) -> None:
        self._armed.set()

    def _pipe(self, source: socket.socket, sink: socket.socket, request: bool) -> None:
        try:
            while chunk := source.recv(65536):
                if request and self._armed.is_set():
                    self._armed.clear()
                    self.cuts += 1
                    break
                sink.sendall(chunk)
        except OSError:
            pass
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self._listener.close()
        with self._lock:
            for end in self._open:
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
                end.close()


@pytest.fixture
def relayed(
    loop: LoopThread, neo4j_target: Neo4jTestTarget
) -> Iterator[tuple[CypherGraphStore, Relay]]:
    address = urlsplit(neo4j_target.uri)
    relay = Relay(address.hostname or "127.0.0.1", address.port or 7687)
    target = dataclasses.replace(neo4j_target, uri=f"bolt://127.0.0.1:{relay.port}")
    store = loop.run(open_neo4j_store(target))
    yield store, relay
    loop.run(store.close())
    relay.close()


def _revision(loop: LoopThread, store: CypherGraphStore, ns: str) -> int:
    rows = loop.run(store.read("changes.revision", {"namespace": ns}, namespace=ns))
    return int(rows[0]["revision"])


def test_a_read_on_a_lost_connection_is_retried_on_a_new_one(
    loop: LoopThread, relayed: tuple[CypherGraphStore, Relay], ns: str
) -> None:
    store, relay = relayed
    assert _revision(loop, store, ns) == 0
    relay.cut_next()
    assert _revision(loop, store, ns) == 0
    assert relay.cuts == 1


def test_without_retries_the_lost_connection_would_surface(
    loop: LoopThread,
    relayed: tuple[CypherGraphStore, Relay],
    ns: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The test above passes because of the retry, not because the driver noticed the
    dead connection before using it."""
    store, relay = relayed
    assert _revision(loop, store, ns) == 0
    monkeypatch.setattr(reads, "RETRY_BUDGET_S", -1.0)
    relay.cut_next()
    with pytest.raises(StoreError, match=r"changes\.revision"):
        _revision(loop, store, ns)


def test_a_faulty_read_is_not_retried(loop: LoopThread, neo4j_store: CypherGraphStore) -> None:
    assert isinstance(neo4j_store, Neo4jGraphStore)
    attempts = 0
    original = reads._read_once

    async def counted(*args: object) -> object:
        nonlocal attempts
        attempts += 1
        return await original(*args)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reads, "_read_once", counted)
        with pytest.raises(ClientError):
            loop.run(neo4j_store._execute("RETURN $missing.x AS x", {}, write=False))
    assert attempts == 1


PLAIN_VALUES = (
    "RETURN 1 AS whole, 1.5 AS fraction, 'text' AS text, true AS flag, null AS nothing, "
    "[1, 2.5, 'x', null] AS mixed, [0.25, 0.5] AS vector, [] AS empty, "
    "{a: [1, {b: 'c', d: [true]}], e: null} AS nested"
)
DRIVER_VALUES = (
    "RETURN 'text' AS text, date('2026-11-29') AS day, [date('2026-11-29')] AS days, "
    "{at: duration('P1D')} AS span, point({x: 1.0, y: 2.0}) AS place"
)


def test_a_row_is_what_the_driver_would_give(
    neo4j_target: Neo4jTestTarget, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Plain values are read as they arrived, without ``record.data()``; a driver type
    takes the driver's own path: either way the row equals what ``record.data()`` gives,
    value for value and type for type."""
    auth = (neo4j_target.user, neo4j_target.password)
    with GraphDatabase.driver(neo4j_target.uri, auth=auth) as driver:
        plain, driver_typed = (
            driver.execute_query(query, database_=neo4j_target.database).records[0]
            for query in (PLAIN_VALUES, DRIVER_VALUES)
        )
    for record in (plain, driver_typed):
        row, expected = row_of(record), record.data()
        assert row == expected
        assert [type(v) for v in row.values()] == [type(v) for v in expected.values()]
    assert type(row_of(driver_typed)["days"][0]).__name__ == "Date"

    def refused(*keys: object) -> dict[str, object]:
        raise AssertionError("plain values took the driver's walk")

    monkeypatch.setattr(Record, "data", refused)
    assert row_of(plain)["nested"] == {"a": [1, {"b": "c", "d": [True]}], "e": None}
