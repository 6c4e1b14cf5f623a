"""Without Java the Neo4j half is skipped with the reason, except under CI=true, where it
fails: run for real, as a nested pytest on one Neo4j test with no `java` to be found."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ONE_NEO4J_TEST = (
    "tests/store/test_store_contract.py::"
    "test_bootstrap_is_idempotent_and_refuses_another_dimension[neo4j]"
)
ROOT = Path(__file__).resolve().parents[2]


def pytest_without_java(tmp_path: Path, *, ci: bool) -> subprocess.CompletedProcess[str]:
    empty = tmp_path / "empty-path"
    empty.mkdir(exist_ok=True)
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("JAVA_HOME", "CI") and not k.startswith("TG_TEST_NEO4J")
    }
    env.update(PATH=str(empty), XDG_CACHE_HOME=str(tmp_path / "cache"))
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", ONE_NEO4J_TEST],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_without_java_the_neo4j_half_is_skipped_with_the_reason(tmp_path: Path) -> None:
    done = pytest_without_java(tmp_path, ci=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped" in done.stdout
    assert "the Neo4j half of the suite cannot run here" in done.stdout
    assert "Java 17 or newer is needed" in done.stdout


@pytest.mark.slow
def test_without_java_the_neo4j_half_fails_under_ci(tmp_path: Path) -> None:
    done = pytest_without_java(tmp_path, ci=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "CI=true: the Neo4j half of the suite cannot run here" in done.stdout
    assert "skipped" not in done.stdout
