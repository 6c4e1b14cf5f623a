"""Unit tests for thoughtgraph.store.cypher: macro expansion, file discovery and override
precedence."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from thoughtgraph.domain.errors import ConfigurationError
from thoughtgraph.store.cypher import ENGINES, StatementLibrary, expand
from thoughtgraph.store.projection_macros import THOUGHT_FIELDS

ROOT = Path(__file__).resolve().parents[2]
CYPHER_DIR = ROOT / "cypher"


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# --- macro expansion ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("engine", "expected"),
    [
        ("neo4j", "SET t.embedding = $embedding"),
        ("falkordb", "SET t.embedding = vecf32($embedding)"),
    ],
)
def test_vector_macro(engine: str, expected: str) -> None:
    assert expand("SET t.embedding = {{ vector($embedding) }}", engine) == expected


def test_vector_macro_takes_a_dotted_variable() -> None:
    assert expand("{{vector(row.embedding)}}", "falkordb") == "vecf32(row.embedding)"
    assert expand("{{vector(row.embedding)}}", "neo4j") == "row.embedding"


def test_vector_query_nodes_macro() -> None:
    text = "{{ vector_query_nodes(thought_embedding, Thought, embedding, $k, $v) }} RETURN 1"
    assert expand(text, "neo4j") == (
        "CALL db.index.vector.queryNodes('thought_embedding', $k, $v) YIELD node, score RETURN 1"
    )
    assert expand(text, "falkordb") == (
        "CALL db.idx.vector.queryNodes('Thought', 'embedding', $k, vecf32($v)) "
        "YIELD node, score RETURN 1"
    )


def test_vector_query_relationships_macro() -> None:
    text = "{{ vector_query_relationships(refines_reason, REFINES, reasonEmbedding, $k, $v) }}"
    assert expand(text, "neo4j") == (
        "CALL db.index.vector.queryRelationships('refines_reason', $k, $v) "
        "YIELD relationship, score"
    )
    assert expand(text, "falkordb") == (
        "CALL db.idx.vector.queryRelationships('REFINES', 'reasonEmbedding', $k, vecf32($v)) "
        "YIELD relationship, score"
    )


def test_fulltext_query_nodes_macro() -> None:
    text = "{{ fulltext_query_nodes(thought_content, Thought, $query) }}"
    assert expand(text, "neo4j") == (
        "CALL db.index.fulltext.queryNodes('thought_content', $query) YIELD node, score"
    )
    assert expand(text, "falkordb") == (
        "CALL db.idx.fulltext.queryNodes('Thought', $query) YIELD node, score"
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_thought_fields_macro_is_the_same_on_both_engines(engine: str) -> None:
    expanded = expand("RETURN {{ thought_fields(t) }}", engine)
    assert expanded == "RETURN " + ", ".join(f"t.{p} AS {a}" for p, a in THOUGHT_FIELDS)
    assert expanded.startswith("RETURN t.id AS id, t.namespace AS namespace, ")
    assert "embedding" not in expanded.lower()  # vectors never leave the store


def test_several_macros_in_one_text_and_text_without_macros() -> None:
    text = "A {{ vector($a) }} B {{vector( $b )}} C"
    assert expand(text, "falkordb") == "A vecf32($a) B vecf32($b) C"
    assert expand("MATCH (n) RETURN {a: 1} AS m", "neo4j") == "MATCH (n) RETURN {a: 1} AS m"


def test_unknown_macro_is_an_error() -> None:
    with pytest.raises(ConfigurationError, match="unknown Cypher macro 'nope'"):
        expand("RETURN {{ nope($x) }}", "neo4j")


@pytest.mark.parametrize(
    "argument",
    [
        "'Thought'",
        "1",
        "$a OR true",
        "a.b.c",
        "$",
        "t.`x`",
        "a-b",
        "$a} RETURN 1 //",
    ],
)
def test_a_macro_argument_must_be_an_identifier_or_parameter(argument: str) -> None:
    with pytest.raises(ConfigurationError, match="not an identifier"):
        expand(f"RETURN {{{{ vector({argument}) }}}}", "neo4j")


# --- loading: discovery, overrides, splitting -------------------------------------------


@pytest.fixture
def library_root(tmp_path: Path) -> Path:
    root = tmp_path / "cypher"
    write(root, "thought/shared.cypher", "// a comment\nMATCH (t) RETURN {{ vector($v) }} AS v\n")
    write(root, "thought/overridden.cypher", "RETURN 'shared' AS which")
    write(root, "thought/overridden.neo4j.cypher", "RETURN 'neo4j' AS which")
    write(root, "thought/only_falkor.falkordb.cypher", "RETURN 'falkordb only' AS which")
    write(root, "schema/bootstrap.cypher", "CREATE INDEX a;\nCREATE INDEX b\n  ON x;\n\n")
    write(root, "schema/bootstrap.falkordb.cypher", "// falkor\nCREATE INDEX f;")
    return root


def test_shared_statement_is_expanded_per_engine(library_root: Path) -> None:
    neo4j = StatementLibrary.load(library_root, "neo4j")
    falkordb = StatementLibrary.load(library_root, "falkordb")
    assert neo4j.get("thought.shared") == "MATCH (t) RETURN $v AS v"
    assert falkordb.get("thought.shared") == "MATCH (t) RETURN vecf32($v) AS v"


def test_engine_override_replaces_the_shared_text_for_that_engine_only(library_root: Path) -> None:
    neo4j = StatementLibrary.load(library_root, "neo4j")
    falkordb = StatementLibrary.load(library_root, "falkordb")
    assert neo4j.get("thought.overridden") == "RETURN 'neo4j' AS which"
    assert falkordb.get("thought.overridden") == "RETURN 'shared' AS which"
    sources = {s.name: s.source.name for s in neo4j.statements()}
    assert sources["thought.overridden"] == "overridden.neo4j.cypher"


def test_an_override_without_shared_text_exists_for_its_engine_only(library_root: Path) -> None:
    neo4j = StatementLibrary.load(library_root, "neo4j")
    falkordb = StatementLibrary.load(library_root, "falkordb")
    assert falkordb.get("thought.only_falkor") == "RETURN 'falkordb only' AS which"
    assert "thought.only_falkor" not in neo4j.names()
    with pytest.raises(ConfigurationError, match=r"thought\.only_falkor"):
        neo4j.get("thought.only_falkor")


def test_schema_files_split_into_statements_and_comments_are_dropped(library_root: Path) -> None:
    neo4j = StatementLibrary.load(library_root, "neo4j")
    falkordb = StatementLibrary.load(library_root, "falkordb")
    assert neo4j.get_all("schema.bootstrap") == ["CREATE INDEX a", "CREATE INDEX b\n  ON x"]
    assert falkordb.get_all("schema.bootstrap") == ["CREATE INDEX f"]
    with pytest.raises(ConfigurationError, match="no single Cypher statement"):
        neo4j.get("schema.bootstrap")


def test_names_and_statements_are_sorted_and_tagged(library_root: Path) -> None:
    neo4j = StatementLibrary.load(library_root, "neo4j")
    assert neo4j.names() == [
        "schema.bootstrap",
        "thought.overridden",
        "thought.shared",
    ]
    assert all(s.engine == "neo4j" for s in neo4j.statements())
    assert [s.name for s in neo4j.statements()].count("schema.bootstrap") == 2


def test_unknown_statement_is_an_error(library_root: Path) -> None:
    neo4j = StatementLibrary.load(library_root, "neo4j")
    with pytest.raises(ConfigurationError):
        neo4j.get("thought.missing")
    with pytest.raises(ConfigurationError):
        neo4j.get_all("thought.missing")


@pytest.mark.parametrize("bad_name", ["x.mysql.cypher", "x.neo4j.extra.cypher"])
def test_unexpected_file_names_are_rejected(library_root: Path, bad_name: str) -> None:
    write(library_root, f"thought/{bad_name}", "RETURN 1")
    with pytest.raises(ConfigurationError, match="unexpected Cypher file name"):
        StatementLibrary.load(library_root, "neo4j")


def test_unknown_engine_and_missing_directory_are_rejected(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="unknown engine"):
        StatementLibrary.load(tmp_path, "sqlite")
    with pytest.raises(ConfigurationError, match="not found"):
        StatementLibrary.load(tmp_path / "absent", "neo4j")


def test_a_bad_macro_in_a_file_fails_the_load(library_root: Path) -> None:
    write(library_root, "thought/bad.cypher", "RETURN {{ vector('x') }}")
    with pytest.raises(ConfigurationError, match="not an identifier"):
        StatementLibrary.load(library_root, "falkordb")


def test_a_template_declares_one_statement_per_label(library_root: Path) -> None:
    """A statement that differs only by a label is written once: each ``//@`` line names
    a statement and the identifiers its slots take; the template names none itself."""
    write(
        library_root,
        "transfer/page.cypher",
        "// one page per label\n//@ page_a: label=Alpha\n//@ page_b: label=Beta\n"
        "MATCH (n:{{ label }}) RETURN {{ vector($v) }} AS v",
    )
    library = StatementLibrary.load(library_root, "falkordb")
    assert library.get("transfer.page_a") == "MATCH (n:Alpha) RETURN vecf32($v) AS v"
    assert library.get("transfer.page_b") == "MATCH (n:Beta) RETURN vecf32($v) AS v"
    assert "transfer.page" not in library.names()


@pytest.mark.parametrize(
    ("declaration", "fault"),
    [
        ("//@ page_a: label=Alpha) DETACH DELETE (m", "not a slot=Identifier"),
        ("//@ page_a: other=Alpha", "gives no 'label'"),
    ],
)
def test_a_template_takes_identifiers_only(
    library_root: Path, declaration: str, fault: str
) -> None:
    write(
        library_root, "transfer/page.cypher", f"{declaration}\nMATCH (n:{{{{ label }}}}) RETURN n"
    )
    with pytest.raises(ConfigurationError, match=fault):
        StatementLibrary.load(library_root, "falkordb")


# --- the real cypher/ directory ----------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_every_statement_the_store_runs_exists_for_each_engine(engine: str) -> None:
    library = StatementLibrary.load(CYPHER_DIR, engine)
    used: set[str] = set()
    for source in [
        *(ROOT / "app" / "store").rglob("*.py"),
        *(ROOT / "app" / "features").rglob("*.py"),
    ]:
        text = source.read_text(encoding="utf-8")
        used |= set(re.findall(r"\b_?(?:read|write)\(\s*\"([a-z_]+\.[a-z_]+)\"", text))
    assert {"thought.create", "topic.assign_many", "contradiction.resolve", "run.start"} <= used
    # The adapters name engine-only statements (schema, namespaces) for their engine alone.
    shared = {name for name in used if not name.startswith(("schema.", "changes.namespaces"))}
    assert shared <= set(library.names()), sorted(shared - set(library.names()))
    assert library.get_all("schema.bootstrap")


@pytest.mark.parametrize("engine", ENGINES)
def test_no_macro_survives_expansion(engine: str) -> None:
    for statement in StatementLibrary.load(CYPHER_DIR, engine).statements():
        assert "{{" not in statement.text, statement.name
