"""`thoughtgraph loadtest` runs end to end: a real service process, open-loop mixed load,
the change-log check and the isolation phase, printed as a table (no timing is judged
here: the figures are for the closing note, the command reports its own targets)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest


@pytest.mark.slow
def test_loadtest_prints_the_table_and_checks_the_change_log() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TG_")}
    done = subprocess.run(
        [sys.executable, "-m", "thoughtgraph", "loadtest", "--rate", "20", "--duration", "3",
         "--isolation", "2"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    for operation in ("search", "lineage", "contribute", "refine", "all"):
        assert re.search(rf"^{operation}\s+\d+\s+\d+\s+0\s", out, re.M), out
    assert "strictly increasing, no gaps" in out
    present = re.search(r"acknowledged writes present: (\d+)/(\d+)", out)
    assert present is not None and present.group(1) == present.group(2), out
    assert "writes in another namespace: p50" in out
    assert "PASS  0 errors" in out and "PASS  change log intact" in out
