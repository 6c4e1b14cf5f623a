"""How a store grouped its writes, read at scrape time (a custom collector: no polling).

Neo4j runs one namespace's writes one after the other (the change log's lock), and its
adapter puts the writes that wait meanwhile into one transaction
(app/store/neo4j/group_commit.py). Statements per transaction tell an operator whether
writes are queueing: near 1, each write had the namespace to itself; near the group's
limit, writers wait for each other."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol, runtime_checkable

from prometheus_client.core import CounterMetricFamily
from prometheus_client.registry import Collector

TRANSACTIONS = "tg_engine_write_transactions"
STATEMENTS = "tg_engine_write_statements"


class WriteGroupCounts(Protocol):
    @property
    def transactions(self) -> int: ...

    @property
    def statements(self) -> int: ...


@runtime_checkable
class WriteGroupSource(Protocol):
    """A store that groups writes (the Neo4j adapter)."""

    @property
    def write_groups(self) -> WriteGroupCounts: ...


class WriteGroupCollector(Collector):
    """``tg_engine_write_transactions_total`` and ``tg_engine_write_statements_total``:
    the write transactions the store committed and the statements they held."""

    def __init__(self, source: WriteGroupSource) -> None:
        self._source = source

    def describe(self) -> Iterator[CounterMetricFamily]:
        yield from self._families(None)

    def collect(self) -> Iterator[CounterMetricFamily]:
        yield from self._families(self._source.write_groups)

    @staticmethod
    def _families(counts: WriteGroupCounts | None) -> Iterator[CounterMetricFamily]:
        transactions = CounterMetricFamily(
            TRANSACTIONS, "Write transactions the store committed (grouped writes)."
        )
        statements = CounterMetricFamily(
            STATEMENTS, "Write statements those transactions held (per transaction: the group)."
        )
        if counts is not None:
            transactions.add_metric([], counts.transactions)
            statements.add_metric([], counts.statements)
        yield transactions
        yield statements
