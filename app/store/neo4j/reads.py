"""A read statement as one auto-commit transaction, retried like a managed one.

A managed transaction (``execute_read``) costs a BEGIN and a COMMIT beside the RUN and
PULL of its statement, each waited for; an auto-commit one sends RUN and PULL together
and nothing else. Every read of the library is one statement, so it needs no explicit
transaction (docs/operations/load-test.md has what it saved). What the managed
transaction gave besides, its retries, is kept: a failure the driver calls retryable (a
lost connection, a leader switch, a transient error) is retried with a growing delay for
as long as the driver would retry a managed transaction; any other failure is raised at
once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from neo4j import READ_ACCESS, AsyncDriver, Query
from neo4j.api import AsyncBookmarkManager
from neo4j.exceptions import DriverError, Neo4jError

from thoughtgraph.store.cypher_store import Row
from thoughtgraph.store.neo4j.records import row_of

RETRY_BUDGET_S = 30.0  # the driver's own max_transaction_retry_time
FIRST_DELAY_S = 0.1
DELAY_FACTOR = 2.0
MAX_DELAY_S = 2.0


@dataclass(frozen=True)
class ReadTarget:
    """Where reads go: the driver, the database and the bookmarks every session shares (a
    read sees the writes acknowledged before it)."""

    driver: AsyncDriver
    database: str
    bookmarks: AsyncBookmarkManager


async def read_rows(
    target: ReadTarget, text: str, params: Mapping[str, Any], timeout_s: float
) -> list[Row]:
    """The rows of one read statement; the last error once retries are spent."""
    delay, started = FIRST_DELAY_S, time.monotonic()
    while True:
        try:
            return await _read_once(target, text, params, timeout_s)
        except (DriverError, Neo4jError) as exc:
            if not exc.is_retryable() or time.monotonic() - started > RETRY_BUDGET_S:
                raise
        await asyncio.sleep(delay)
        delay = min(MAX_DELAY_S, delay * DELAY_FACTOR)


async def _read_once(
    target: ReadTarget, text: str, params: Mapping[str, Any], timeout_s: float
) -> list[Row]:
    async with target.driver.session(
        database=target.database,
        bookmark_manager=target.bookmarks,
        default_access_mode=READ_ACCESS,
    ) as session:
        # The server stops the transaction after the timeout (TransactionTimedOut).
        result = await session.run(Query(text, timeout=timeout_s), dict(params))
        return [row_of(record) async for record in result]
