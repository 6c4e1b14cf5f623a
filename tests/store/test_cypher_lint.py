"""Every Neo4j statement in cypher/, checked by Neo4j's own Cypher front end, and every
query of the Neo4j Browser guide in cypher/browser/.

``tests/cypher_lint/lint.mjs`` runs ``@neo4j-cypher/language-support`` (Neo4j's parser and
semantic analysis) over each expanded statement under Cypher 5 and Cypher 25, with the
statement's parameters declared and the service's labels, relationship types and property
keys known. Any error or warning fails, deprecations included: no Neo4j server is needed to
catch a statement Neo4j would reject or warn about.
"""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.store_backends import NEO4J_TEST_STATEMENTS
from tests.support import run_node
from thoughtgraph.ports.vector_slots import SLOTS
from thoughtgraph.store.cypher import StatementLibrary

ROOT = Path(__file__).resolve().parents[2]
CYPHER_DIR = ROOT / "cypher"
BROWSER_DIR = CYPHER_DIR / "browser"
LINT_DIR = ROOT / "tests" / "cypher_lint"
LINTER_PACKAGE = LINT_DIR / "node_modules" / "@neo4j-cypher" / "language-support"
INSTALL_HINT = "run `npm ci --prefix tests/cypher_lint` to install the Cypher linter"
FAILING_SEVERITIES = {"error", "warning"}

_PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def parameters_of(text: str) -> list[str]:
    return sorted(set(_PARAMETER.findall(text)))


def neo4j_statements() -> list[dict[str, Any]]:
    """Every statement the Neo4j adapter can run, in each vector slot (slot 1's named
    ``<name>@slot1``), a multi-statement file's each on its own, and the test-only
    statements of tests/store_backends.py."""
    library = StatementLibrary.load(CYPHER_DIR, "neo4j")
    collected: list[dict[str, Any]] = []
    for slot in SLOTS:
        for name in library.names(slot=slot):
            texts = library.get_all(name, slot=slot)
            for index, text in enumerate(texts):
                label = f"{name}[{index}]" if len(texts) > 1 else name
                if slot != 0:
                    label = f"{label}@slot{slot}"
                collected.append(
                    {
                        "name": label,
                        "text": text,
                        "parameters": dict.fromkeys(parameters_of(text)),
                    }
                )
    for name, text in sorted(NEO4J_TEST_STATEMENTS.items()):
        collected.append(
            {"name": name, "text": text, "parameters": dict.fromkeys(parameters_of(text))}
        )
    return collected


class _RunnableBlocks(HTMLParser):
    """The runnable blocks of a Neo4j Browser guide (``<pre class="... runnable">``), with
    their ``data-query`` names, as Browser runs them: the element's text, trimmed."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[str | None, str]] = []
        self._name: str | None = None
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "pre" and "runnable" in (values.get("class") or "").split():
            self._name, self._text = values.get("data-query"), []

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre" and self._text is not None:
            self.blocks.append((self._name, "".join(self._text).strip()))
            self._text = None

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)


def guide_blocks(path: Path) -> list[tuple[str | None, str]]:
    parser = _RunnableBlocks()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser.blocks


def browser_guide_queries() -> list[dict[str, Any]]:
    """Every Cypher query of the Browser guides, named ``<guide>:<data-query>``; Browser
    commands (``:param``, ``:style``) are not Cypher and are left out."""
    collected: list[dict[str, Any]] = []
    for guide in sorted(BROWSER_DIR.glob("*.html")):
        for name, text in guide_blocks(guide):
            if text.startswith(":"):
                continue
            assert name, f"{guide.name}: a runnable query without data-query:\n{text}"
            collected.append(
                {
                    "name": f"{guide.stem}:{name}",
                    "text": text,
                    "parameters": dict.fromkeys(parameters_of(text)),
                }
            )
    return collected


def run_linter(statements: list[dict[str, Any]]) -> dict[str, Any]:
    if not LINTER_PACKAGE.is_dir():
        pytest.fail(f"the Cypher linter is not installed: {INSTALL_HINT}", pytrace=False)
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: the Cypher linter needs Node.js", pytrace=False)
    completed = run_node([node, "lint.mjs"], cwd=LINT_DIR, payload=statements, timeout=600)
    if completed.returncode != 0:
        pytest.fail(
            f"the Cypher linter failed (exit {completed.returncode}):\n{completed.stderr}",
            pytrace=False,
        )
    report: dict[str, Any] = json.loads(completed.stdout)
    return report


def failures(report: dict[str, Any]) -> list[str]:
    found = []
    for result in report["results"]:
        for d in result["diagnostics"]:
            if d["severity"] in FAILING_SEVERITIES or d["deprecated"]:
                found.append(
                    f"{result['name']} [{result['cypherVersion']}] {d['line']}:{d['column']} "
                    f"{d['severity']}{' (deprecation)' if d['deprecated'] else ''}: "
                    f"{d['message']}  <<{d['excerpt']}>>"
                )
    return found


def test_parameters_of_finds_each_parameter_once() -> None:
    text = "MATCH (t {id: $id}) WHERE t.x IN $ids AND t.id <> $id RETURN $a_1"
    assert parameters_of(text) == ["a_1", "id", "ids"]


def test_every_neo4j_statement_is_clean() -> None:
    statements = neo4j_statements()
    names = {s["name"].split("[")[0] for s in statements}
    assert {"schema.bootstrap", "schema.await_indexes", "thought.create", "tests.wipe"} <= names
    assert {"thought.create@slot1", "lineage.search_reasons@slot1"} <= names
    report = run_linter(statements)
    assert len(report["results"]) == len(statements) * len(report["cypherVersions"])
    problems = failures(report)
    linter = report["linter"]
    assert not problems, (
        f"{len(problems)} Cypher diagnostic(s) from {linter['package']} {linter['version']} "
        f"({', '.join(report['cypherVersions'])}):\n" + "\n".join(problems)
    )


_PARAM_COMMAND = re.compile(r"^:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>")


def test_every_browser_guide_query_is_clean() -> None:
    queries = browser_guide_queries()
    names = {q["name"] for q in queries}
    assert {
        "lineage:recent",
        "lineage:lineage",
        "lineage:newest",
        "lineage:chains",
        "lineage:similar-reasons",
    } <= names
    # Each parameter a query uses is set by one of the guide's :param blocks.
    declared = {
        match.group(1)
        for _, text in guide_blocks(BROWSER_DIR / "lineage.html")
        if (match := _PARAM_COMMAND.match(text))
    }
    undeclared = {q["name"]: set(q["parameters"]) - declared for q in queries}
    assert not any(undeclared.values()), f"parameters no :param block sets: {undeclared}"
    report = run_linter(queries)
    assert len(report["results"]) == len(queries) * len(report["cypherVersions"])
    problems = failures(report)
    assert not problems, f"{len(problems)} Cypher diagnostic(s) in the guide:\n" + "\n".join(
        problems
    )


def test_no_cypher_file_in_the_browser_folder() -> None:
    """Every .cypher file under cypher/ is loaded as a product statement for both engines:
    the guide's Neo4j-only queries live in the guide's HTML instead."""
    assert not list(BROWSER_DIR.rglob("*.cypher"))


# Mistakes the linter must report, each with a fragment of the diagnostic it must produce.
PROBES = {
    "undeclared parameter": (
        "MATCH (t:Thought) RETURN t.id AS id, $undeclared AS x",
        "Parameter $undeclared",
    ),
    "FalkorDB-only function": (
        "MATCH (t:Thought) RETURN vecf32(t.embedding) AS v",
        "Function vecf32 is not present",
    ),
    "FalkorDB-only procedure": (
        "CALL db.idx.fulltext.queryNodes('Thought', 'x') YIELD node RETURN node.id AS id",
        "Procedure db.idx.fulltext.queryNodes is not present",
    ),
    "deprecated function": ("MATCH (t:Thought) RETURN id(t) AS i", "deprecation"),
    "misspelt property": ("MATCH (t:Thought) RETURN t.createAt AS c", "createAt is not present"),
    "misspelt label": ("MATCH (t:Thougt) RETURN t.id AS id", "Thougt is not present"),
    "undefined variable": ("MATCH (t:Thought) RETURN u.id AS id", "Variable `u` not defined"),
    "removed syntax": (
        "CREATE CONSTRAINT c IF NOT EXISTS ON (t:Thought) ASSERT t.id IS UNIQUE",
        "ON",
    ),
    "relationship against the graph schema": (
        "MATCH (t:Thought)-[:CONCERNS]->(e:ChangeEvent) RETURN e.id AS id",
        "CONCERNS",
    ),
}


def test_the_linter_catches_known_mistakes() -> None:
    """Guards against a linter that silently reports nothing: the package swallows
    exceptions from its own semantic analysis."""
    report = run_linter(
        [
            {"name": name, "text": text, "parameters": dict.fromkeys(parameters_of(text))}
            for name, (text, _) in PROBES.items()
            if name != "undeclared parameter"
        ]
        + [{"name": "undeclared parameter", "text": PROBES["undeclared parameter"][0]}]
    )
    problems = failures(report)
    missed = []
    for name, (_, expected) in PROBES.items():
        for version in report["cypherVersions"]:
            prefix = f"{name} [{version}] "
            if not any(p.startswith(prefix) and expected in p for p in problems):
                missed.append(f"{name} [{version}]: expected a diagnostic containing {expected!r}")
    assert not missed, "\n".join(missed) + "\n\nreported:\n" + "\n".join(problems)
