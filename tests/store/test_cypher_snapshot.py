"""Every expanded statement, per engine and vector slot, pinned in
tests/snapshots/cypher.<engine>.txt (slot 0: the names a store has always used) and
tests/snapshots/cypher.<engine>.slot1.txt (slot 1: every vector name with ``_1``).

A change to a statement file or to a macro shows up as a reviewable diff of the exact text
each engine runs. After an intended change, rewrite the snapshots and commit them:

    TG_UPDATE_SNAPSHOTS=1 .venv/bin/pytest tests/store/test_cypher_snapshot.py
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from thoughtgraph.ports.vector_slots import SLOTS
from thoughtgraph.store.cypher import ENGINES, StatementLibrary

ROOT = Path(__file__).resolve().parents[2]
CYPHER_DIR = ROOT / "cypher"
SNAPSHOT_DIR = ROOT / "tests" / "snapshots"
UPDATE_ENV = "TG_UPDATE_SNAPSHOTS"


def snapshot_path(engine: str, slot: int) -> Path:
    return SNAPSHOT_DIR / (
        f"cypher.{engine}.txt" if slot == 0 else f"cypher.{engine}.slot{slot}.txt"
    )


def render(engine: str, slot: int = 0) -> str:
    """``-- name (source file)`` then the statement text, for every statement, by name."""
    library = StatementLibrary.load(CYPHER_DIR, engine)
    in_slot = "" if slot == 0 else f" in vector slot {slot}"
    blocks = [
        f"// The Cypher the {engine} adapter runs{in_slot}, as expanded from cypher/.\n"
        f"// Generated: {UPDATE_ENV}=1 .venv/bin/pytest tests/store/test_cypher_snapshot.py"
    ]
    counts: dict[str, int] = {}
    for statement in library.statements(slot=slot):
        counts[statement.name] = counts.get(statement.name, 0) + 1
    seen: dict[str, int] = {}
    for statement in library.statements(slot=slot):
        name = statement.name
        if counts[name] > 1:
            name = f"{name}[{seen.get(statement.name, 0)}]"
            seen[statement.name] = seen.get(statement.name, 0) + 1
        source = statement.source.relative_to(ROOT).as_posix()
        blocks.append(f"-- {name} ({source})\n{statement.text}")
    return "\n\n".join(blocks) + "\n"


@pytest.mark.parametrize("slot", SLOTS)
@pytest.mark.parametrize("engine", ENGINES)
def test_expanded_statements_match_snapshot(engine: str, slot: int) -> None:
    path = snapshot_path(engine, slot)
    actual = render(engine, slot)
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
            tofile=f"cypher/ expanded for {engine} in slot {slot}",
        )
        pytest.fail(
            f"the expanded {engine} Cypher (slot {slot}) differs from its snapshot; if the "
            f"change is intended, rerun with {UPDATE_ENV}=1 and commit the snapshot:\n"
            + "".join(diff),
            pytrace=False,
        )
