"""Checkpoints survive the engine and the service being killed right after they were
acknowledged: `thoughtgraph serve` on the embedded engine, real processes, SIGKILL."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.processes.test_serve_process import engine_pid, post, running_service

pytestmark = pytest.mark.slow

SAVE = """mutation($thread: String!, $data: String!, $id: ID, $parent: ID) {
  saveCheckpoint(threadId: $thread, data: $data, id: $id, parentId: $parent) { id } }"""
HISTORY = """query($thread: String!) {
  checkpoints(threadId: $thread) { id parentId data }
  checkpoint(threadId: $thread) { id } }"""


def test_checkpoint_history_survives_a_killed_engine_and_service(data_dir: Path) -> None:
    saved: list[str] = []
    with running_service(data_dir, TG_SERVE_WORKER="false") as (process, client, _log):
        for step in range(5):
            data = json.dumps({"step": step, "messages": ["m"] * 1_000})  # about 5 KB
            parent = saved[-1] if saved else None
            answer: Any = post(client, SAVE, thread="t1", data=data, id=f"c{step}", parent=parent)
            saved.append(answer["saveCheckpoint"]["id"])
        os.kill(engine_pid(data_dir), signal.SIGKILL)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    with running_service(data_dir, TG_SERVE_WORKER="false") as (_process, client, _log):
        found: Any = post(client, HISTORY, thread="t1")
    history = found["checkpoints"]
    assert [c["id"] for c in history] == saved[::-1]  # newest first, every one kept
    assert [c["parentId"] for c in history] == [*saved[::-1][1:], None]
    assert [json.loads(c["data"])["step"] for c in history] == [4, 3, 2, 1, 0]
    assert found["checkpoint"]["id"] == saved[-1]  # the newest by default
