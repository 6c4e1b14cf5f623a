"""Log lines stay whole when the service's structured events and a library's stdlib
records (celery's, uvicorn's) are written at once from two threads: log readers, the
tests' ``wait_for_event`` among them, parse one JSON object per line."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

WRITERS = textwrap.dedent(
    """
    import logging
    import threading

    import structlog

    from thoughtgraph.logging import configure_logging

    configure_logging("INFO", "json")
    events = structlog.get_logger("worker")
    records = logging.getLogger("celery.worker")

    def structured() -> None:
        for n in range(3000):
            events.info("worker.event", n=n)

    def stdlib() -> None:
        for n in range(3000):
            records.info("celery record %d", n)

    threads = [threading.Thread(target=structured), threading.Thread(target=stdlib)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    """
)


def test_structured_events_and_stdlib_records_never_share_a_line() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WRITERS], capture_output=True, text=True, timeout=120, check=True
    )
    lines = done.stderr.splitlines()
    events = [json.loads(line) for line in lines if line.startswith("{")]
    records = [line for line in lines if line.startswith("INFO celery.worker: celery record")]
    assert sorted(event["n"] for event in events) == list(range(3000))
    assert len(records) == 3000
    assert len(lines) == 6000, [line for line in lines if "}INFO" in line][:3]
