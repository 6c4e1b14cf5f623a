"""Running the Node.js drivers in tests/browser/ that steer Debian's headless Chromium
(explorer.mjs, graphiql.mjs, lineage.mjs) and reading their reports.

Chromium is /usr/bin/chromium (TG_TEST_CHROMIUM names another); playwright-core comes from
tests/browser/node_modules (`npm ci --prefix tests/browser`) and never downloads a browser.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support import run_node, skip_or_fail

DRIVER_DIR = Path(__file__).resolve().parent / "browser"
PLAYWRIGHT = DRIVER_DIR / "node_modules" / "playwright-core"
CHROMIUM = Path(os.environ.get("TG_TEST_CHROMIUM") or "/usr/bin/chromium")


def driver_command(script: str, test: str) -> list[str]:
    """The command that runs ``tests/browser/<script>``; skips (fails under CI=true) without
    Chromium, node or playwright-core, naming ``test`` (such as "the explorer test")."""
    if not os.access(CHROMIUM, os.X_OK):
        skip_or_fail(
            f"Chromium is not installed at {CHROMIUM} (Debian: apt-get install chromium): "
            f"{test} cannot run"
        )
    node = shutil.which("node")
    if node is None:
        skip_or_fail(f"node is not on PATH: {test} drives Chromium from Node.js")
    if not PLAYWRIGHT.is_dir():
        skip_or_fail(
            "playwright-core is not installed: run `npm ci --prefix tests/browser` "
            "(scripts/dev test does)"
        )
    return [str(node), str(DRIVER_DIR / script)]


def run_driver(
    command: list[str], config: dict[str, Any], *, name: str, timeout: float
) -> dict[str, Any]:
    """Runs a driver with ``config`` on stdin and returns its report; fails the test with
    the driver's error, screenshot, steps and output when it failed."""
    completed = run_node(command, cwd=DRIVER_DIR, payload=config, timeout=timeout)
    try:
        report: dict[str, Any] = json.loads(completed.stdout)
    except json.JSONDecodeError:
        pytest.fail(
            f"the {name} driver failed (exit {completed.returncode}):\n"
            f"{completed.stdout[-2000:]}\n{completed.stderr[-4000:]}",
            pytrace=False,
        )
    if completed.returncode != 0:
        pytest.fail(
            f"the {name} driver failed: {report.get('error')}\n"
            f"screenshot: {report.get('screenshot')}\nsteps (ms): {report.get('timings')}\n"
            f"blocked: {report.get('blocked')}\nerrors: {report.get('errors')}\n"
            f"{completed.stderr[-2000:]}",
            pytrace=False,
        )
    return report
