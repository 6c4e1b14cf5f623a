"""Every expanded statement, per engine, pinned in tests/snapshots/cypher.<engine>.txt.

A change to a statement file or to a macro shows up as a reviewable diff of the exact text
each engine runs. After an intended change, rewrite the snapshots and commit them:

    TG_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/store/test_cypher_snapshot.py
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from thoughtgraph.store.cypher import ENGINES, StatementLibrary

ROOT = Path(__file__).resolve().parents[2]
CYPHER_DIR = ROOT / "cypher"
SNAPSHOT_DIR = ROOT / "tests" / "snapshots"
UPDATE_ENV = "TG_UPDATE_SNAPSHOTS"


def render(engine: str) -> str:
    """``-- name (source file)`` then the statement text, for every statement, by name."""
    library = StatementLibrary.load(CYPHER_DIR, engine)
    blocks = [
        f"// The Cypher the {engine} adapter runs, as expanded from cypher/.\n"
        f"// Generated: {UPDATE_ENV}=1 .venv/bin/pytest tests/store/test_cypher_snapshot.py"
    ]
    counts: dict[str, int] = {}
    for statement in library.statements():
        counts[statement.name] = counts.get(statement.name, 0) + 1
    seen: dict[str, int] = {}
    for statement in library.statements():
        name = statement.name
        if counts[name] > 1:
            name = f"{name}[{seen.get(statement.name, 0)}]"
            seen[statement.name] = seen.get(statement.name, 0) + 1
        source = statement.source.relative_to(ROOT).as_posix()
        blocks.append(f"-- {name} ({source})\n{statement.text}")
    return "\n\n".join(blocks) + "\n"


@pytest.mark.parametrize("engine", ENGINES)
def test_expanded_statements_match_snapshot(engine: str) -> None:
    path = SNAPSHOT_DIR / f"cypher.{engine}.txt"
    actual = render(engine)
    if os.environ.get(UPDATE_ENV) == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"{path} is missing: run with {UPDATE_ENV}=1 to create it", pytrace=False)
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=f"{path.relative_to(ROOT)} (snapshot)",
            tofile=f"cypher/ expanded for {engine}",
        )
        pytest.fail(
            f"the expanded {engine} Cypher differs from its snapshot; if the change is "
            f"intended, rerun with {UPDATE_ENV}=1 and commit the snapshot:\n" + "".join(diff),
            pytrace=False,
        )
