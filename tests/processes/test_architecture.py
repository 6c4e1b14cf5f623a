"""The tree's architecture, enforced: the dependency rule between the layers (the
import-linter contracts in pyproject.toml), no import cycles between modules, and modules
a reader can take in at once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp
import pytest

REPO = Path(__file__).resolve().parents[2]
MAX_MODULE_LINES = 400


def test_the_dependency_rule_holds() -> None:
    """api → features → store → domain: each layer imports only the layers below it."""
    lint = "import sys; from importlinter.cli import lint_imports_command as m; sys.exit(m())"
    done = subprocess.run(
        [sys.executable, "-c", lint], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert " 0 broken" in done.stdout, done.stdout


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    # Imports only a type checker follows are not cycles at run time.
    return grimp.build_graph("thoughtgraph", exclude_type_checking_imports=True)


def test_no_module_imports_itself_back(graph: grimp.ImportGraph) -> None:
    cycles = set()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back:
                cycles.add(" -> ".join([module, *back]))
    assert not cycles, "\n".join(sorted(cycles))


def test_modules_stay_short() -> None:
    long = {
        str(path.relative_to(REPO)): lines
        for folder in ("app", "workers")
        for path in (REPO / folder).rglob("*.py")
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"split these (over {MAX_MODULE_LINES} lines): {long}"
