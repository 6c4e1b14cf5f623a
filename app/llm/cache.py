"""LLM answers cached by a hash of what was asked, so the same question is paid for once.

The key covers the model, the prompt's name and version and the rendered messages: a new
prompt version or another model is a new question. Values are the validated JSON answers.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

CACHE_FILE_NAME = "llm-cache.sqlite3"
# Several worker processes write the same file: wait for a writer rather than fail.
BUSY_TIMEOUT_MS = 10_000


def answer_key(
    model: str, prompt_name: str, prompt_version: str, messages: Sequence[dict[str, str]]
) -> str:
    payload = json.dumps(
        [model, prompt_name, prompt_version, list(messages)],
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class AnswerCache(Protocol):
    async def get(self, key: str) -> str | None: ...

    async def put(self, key: str, prompt_name: str, answer: str) -> None: ...


class MemoryAnswerCache:
    """In-process cache: tests, and one-off runs that should not touch the data dir."""

    def __init__(self) -> None:
        self._answers: dict[str, str] = {}

    def __len__(self) -> int:
        return len(self._answers)

    async def get(self, key: str) -> str | None:
        return self._answers.get(key)

    async def put(self, key: str, prompt_name: str, answer: str) -> None:
        self._answers[key] = answer


class SqliteAnswerCache:
    """A SQLite file shared by every process of a deployment (API, Celery workers).

    The file is opened on first use, not in the constructor. WAL lets readers go on while
    one process writes, and the busy timeout makes a second writer wait instead of failing.
    A connection is never carried across ``fork`` (Celery's prefork pool forks workers): a
    process that finds a connection opened by another pid opens its own. Calls run in a
    worker thread so the event loop never waits on the disk.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._pid: int | None = None

    async def get(self, key: str) -> str | None:
        return await asyncio.to_thread(self._get, key)

    async def put(self, key: str, prompt_name: str, answer: str) -> None:
        await asyncio.to_thread(self._put, key, prompt_name, answer)

    def close(self) -> None:
        with self._lock:
            if self._connection is not None and self._pid == os.getpid():
                self._connection.close()
            self._connection = None
            self._pid = None

    def _get(self, key: str) -> str | None:
        with self._lock:
            row = self._connect().execute("SELECT answer FROM answers WHERE key = ?", (key,))
            found = row.fetchone()
        return str(found[0]) if found is not None else None

    def _put(self, key: str, prompt_name: str, answer: str) -> None:
        with self._lock:
            connection = self._connect()
            with connection:  # one transaction, committed on exit
                connection.execute(
                    "INSERT OR REPLACE INTO answers (key, prompt, answer, created_at_ms) "
                    "VALUES (?, ?, ?, ?)",
                    (key, prompt_name, answer, int(time.time() * 1000)),
                )

    def _connect(self) -> sqlite3.Connection:
        if self._connection is not None and self._pid == os.getpid():
            return self._connection
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False
        )
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        connection.execute("PRAGMA journal_mode = WAL")
        with connection:
            connection.execute(
                "CREATE TABLE IF NOT EXISTS answers ("
                "key TEXT PRIMARY KEY, prompt TEXT NOT NULL, answer TEXT NOT NULL, "
                "created_at_ms INTEGER NOT NULL)"
            )
        self._connection = connection
        self._pid = os.getpid()
        return connection
