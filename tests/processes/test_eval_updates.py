"""``thoughtgraph eval updates --limit N`` in a real process, on the embedded engine: the
judge's table and the through-the-service table print the issue's targets for left-out
domains (update recall >= 90%, compatible flagged <= 1%, newer first >= 95%), and the
exit code says whether they were met."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_updates_command_prints_the_held_out_targets_and_exits_on_them(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TG_")}
    env.update(TG_DATA_DIR=str(tmp_path / "data"), TG_EMBEDDER="local", TG_LOG_LEVEL="WARNING")
    result = subprocess.run(
        [sys.executable, "-m", "thoughtgraph", "eval", "updates", "--limit", "3"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = result.stdout
    assert result.returncode in (0, 1), f"{out}\n{result.stderr[-3000:]}"
    judge, _, service = out.partition("Through the service:")
    assert "update pairs (update or conflict)" in judge and ">= 90%" in judge
    assert "<= 1%" in judge
    assert "6 pairs" in service
    assert "update detected (contradiction)" in service and ">= 90%" in service
    assert "compatible pairs flagged" in service and "<= 1%" in service
    assert "newer fact ranked first" in service and ">= 95%" in service
    # Non-zero exactly when a target row says MISSED.
    assert (result.returncode == 1) == ("MISSED" in out)
