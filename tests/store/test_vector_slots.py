"""Every statement in both vector slots (app/ports/vector_slots.py): slot 1's text names
slot 1's vector properties, label and indexes wherever slot 0's names slot 0's, differs
from slot 0's in nothing else, and the library answers the slot a request pinned.

Pure: the statements are expanded from cypher/, no engine runs.
"""

from __future__ import annotations

import contextvars
import re
from pathlib import Path

import pytest

from thoughtgraph.domain.errors import ConfigurationError
from thoughtgraph.ports import vector_slots
from thoughtgraph.ports.vector_slots import (
    SLOTS,
    current_slot,
    pin,
    pinned,
    pinned_slot,
    spaced,
)
from thoughtgraph.store.cypher import ENGINES, Statement, StatementLibrary, expand
from thoughtgraph.store.vector_macros import VECTOR_NAMES

ROOT = Path(__file__).resolve().parents[2]
CYPHER_DIR = ROOT / "cypher"

# Statements that name slot 0's vectors in every slot, on purpose.
SLOT_0_ONLY = {
    # The upgrade from the legacy FalkorDB layout (vector indexes on :Thought and :Topic
    # themselves) concerns the vectors stores had before slots existed: slot 0's.
    "schema.drop_old_vector_indexes",
}
# Statements that name every slot's vectors, in every slot, on purpose: a purged thought's
# indexed vector nodes go in both slots (a re-embed may be filling the other one).
EVERY_SLOT = {"retention.purge_due"}
# Variables bound to a parameter's rows: their fields are the caller's names (a row's
# `embedding`), not stored vectors, and keep their names in every slot.
PARAMETER_ROWS = {"row", "item", "subject"}
VECTOR_PROPERTIES = {"embedding", "reasonEmbedding"}


def vector_uses(text: str, slot: int) -> list[str]:
    """Where ``text`` names a vector of ``slot`` as one: a property read or written on a
    node or relationship (not on a parameter row), a key of a node or relationship
    pattern's map, a quoted name (procedure arguments, index listings), or anywhere at all
    for the label and the index names, which are never parameters or column names."""
    found: list[str] = []
    for name in sorted(VECTOR_NAMES):
        spaced_name = re.escape(spaced(name, slot))
        if name not in VECTOR_PROPERTIES:
            pattern = rf"(?<![\w$]){spaced_name}(?!\w)"
        else:
            access = rf"(?<![\w$])(?!(?:{'|'.join(PARAMETER_ROWS)})\.)\w+\.{spaced_name}(?!\w)"
            key = rf"[{{,]\s*{spaced_name}\s*:(?!:)"
            quoted = rf"'{spaced_name}'"
            pattern = f"{access}|{key}|{quoted}"
        found += [match.group(0) for match in re.finditer(pattern, text)]
    return found


def differs_only_by_slot_names(slot_0: str, slot_1: str) -> bool:
    """Token by token, slot 1's text is slot 0's with some vector names put in slot 1."""
    tokens_0, tokens_1 = re.split(r"(\w+)", slot_0), re.split(r"(\w+)", slot_1)
    return len(tokens_0) == len(tokens_1) and all(
        a == b or (a in VECTOR_NAMES and b == spaced(a, 1))
        for a, b in zip(tokens_0, tokens_1, strict=True)
    )


def both_slots(engine: str) -> list[tuple[str, str, str]]:
    """(statement label, slot 0 text, slot 1 text) of every statement."""
    library = StatementLibrary.load(CYPHER_DIR, engine)
    assert library.names(slot=0) == library.names(slot=1)
    pairs: list[tuple[str, str, str]] = []
    for name in library.names():
        texts_0, texts_1 = library.get_all(name, slot=0), library.get_all(name, slot=1)
        assert len(texts_0) == len(texts_1), name
        pairs += [
            (f"{name}[{index}]", text_0, text_1)
            for index, (text_0, text_1) in enumerate(zip(texts_0, texts_1, strict=True))
        ]
    return pairs


@pytest.mark.parametrize("engine", ENGINES)
def test_slot_1_names_slot_1_vectors_wherever_slot_0_names_slot_0_vectors(engine: str) -> None:
    touching = 0
    for label, text_0, text_1 in both_slots(engine):
        if label.split("[")[0] in SLOT_0_ONLY:
            assert text_0 == text_1 and vector_uses(text_0, 0), label
            continue
        if label.split("[")[0] in EVERY_SLOT:
            assert text_0 == text_1, label
            if engine == "falkordb":
                assert vector_uses(text_0, 0) and vector_uses(text_0, 1), label
            continue
        uses_0 = vector_uses(text_0, 0)
        assert not vector_uses(text_1, 0), f"{label} names slot 0's vectors in slot 1:\n{text_1}"
        assert len(vector_uses(text_1, 1)) == len(uses_0), label
        assert not vector_uses(text_0, 1), f"{label} names slot 1's vectors in slot 0"
        assert differs_only_by_slot_names(text_0, text_1), label
        # Exactly the statements that touch vectors differ between the slots.
        assert (text_0 != text_1) == bool(uses_0), label
        touching += bool(uses_0)
    assert touching >= 25  # thought writes, searches, schema, topics, lineage, transfer, ...


def test_every_vector_name_is_used_and_put_in_slot_1() -> None:
    """The list of vector names is the one the statements use: each appears in a vector
    position of some slot-0 text, and of some slot-1 text with ``_1``."""
    texts = [pair for engine in ENGINES for pair in both_slots(engine)]
    used_0 = {use for _, text_0, _ in texts for use in vector_uses(text_0, 0)}
    used_1 = {use for _, _, text_1 in texts for use in vector_uses(text_1, 1)}
    for name in VECTOR_NAMES:
        assert any(name in use for use in used_0), name
        assert any(spaced(name, 1) in use for use in used_1), name


def test_the_checks_catch_a_vector_name_left_in_slot_0() -> None:
    """Guards the checks above against matching nothing."""
    assert vector_uses("MATCH (t) RETURN t.embedding AS embedding", 0) == ["t.embedding"]
    assert vector_uses("RETURN row.embedding AS e, $embedding AS q", 0) == []
    assert vector_uses("CREATE (t:Thought {id: $id, embedding: $embedding})", 0) == [", embedding:"]
    assert vector_uses("CALL db.idx.vector.queryNodes('ThoughtVector', 'embedding', 1, $v)", 0)
    assert vector_uses("CREATE VECTOR INDEX topic_embedding IF NOT EXISTS", 0)
    assert not vector_uses("RETURN m.embeddingDimension AS embeddingDimension", 0)
    assert differs_only_by_slot_names("RETURN t.embedding AS x", "RETURN t.embedding_1 AS x")
    assert not differs_only_by_slot_names("RETURN t.embedding AS x", "RETURN t.embedding_1 AS y")
    assert not differs_only_by_slot_names("RETURN t.id AS x", "RETURN t.id_1 AS x")


# --- the space macro ----------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_space_puts_a_vector_name_into_the_slot(engine: str) -> None:
    text = "MATCH (t) WHERE t.{{ space(embedding) }} IS NOT NULL RETURN $embedding AS embedding"
    assert (
        expand(text, engine)
        == "MATCH (t) WHERE t.embedding IS NOT NULL RETURN $embedding AS embedding"
    )
    assert expand(text, engine, 1) == (
        "MATCH (t) WHERE t.embedding_1 IS NOT NULL RETURN $embedding AS embedding"
    )


def test_space_inside_another_macros_arguments() -> None:
    text = (
        "{{ vector_query_nodes({{ space(topic_embedding) }}, Topic, {{ space(embedding) }}, "
        "$k, $embedding) }}"
    )
    assert expand(text, "neo4j", 1) == (
        "CALL db.index.vector.queryNodes('topic_embedding_1', $k, $embedding) YIELD node, score"
    )
    assert expand(text, "falkordb", 1) == (
        "CALL db.idx.vector.queryNodes('Topic', 'embedding_1', $k, vecf32($embedding)) "
        "YIELD node, score"
    )


def test_vector_macros_write_the_slots_names() -> None:
    assert expand("{{ thought_vector(t) }}", "falkordb", 1) == (
        "CREATE (:ThoughtVector_1 {id: t.id, embedding_1: t.embedding_1})"
    )
    assert expand("{{ drop_thought_vector(t) }}", "falkordb", 1) == (
        "OPTIONAL MATCH (indexedVector:ThoughtVector_1 {id: t.id}) DELETE indexedVector"
    )
    query = "{{ vector_query_namespace_nodes(Thought, {{ space(embedding) }}, $k, $v) }}"
    assert expand(query, "falkordb", 1).startswith(
        "CALL db.idx.vector.queryNodes('ThoughtVector_1', 'embedding_1', $k, vecf32($v))"
    )
    assert expand("{{ thought_vector(t) }}", "neo4j", 1) == ""


def test_space_of_a_name_that_is_no_vector_is_an_error() -> None:
    with pytest.raises(ConfigurationError, match="not a vector name"):
        expand("RETURN t.{{ space(embeding) }} AS e", "neo4j", 1)
    with pytest.raises(ConfigurationError, match="not a vector name"):
        expand("RETURN t.{{ space(content) }} AS e", "neo4j", 0)
    with pytest.raises(ConfigurationError, match="no vector slot 2"):
        expand("RETURN 1 AS one", "neo4j", 2)


# --- the library follows the pinned slot ----------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_get_follows_the_pinned_slot(engine: str) -> None:
    library = StatementLibrary.load(CYPHER_DIR, engine)
    create_0 = library.get("thought.create", slot=0)
    create_1 = library.get("thought.create", slot=1)
    assert "embedding_1" in create_1 and "embedding_1" not in create_0
    assert library.get("thought.create") == create_0  # nothing pinned: slot 0
    with pinned(1):
        assert library.get("thought.create") == create_1
        assert library.get_all("schema.namespace") == library.get_all("schema.namespace", slot=1)
        assert library.get("thought.create", slot=0) == create_0  # an explicit slot wins
    with pinned(0):
        assert library.get("thought.create") == create_0
    assert library.get_all("schema.namespace") == library.get_all("schema.namespace", slot=0)
    # A statement without vectors is the same text in both.
    assert library.get("changes.since", slot=0) == library.get("changes.since", slot=1)


@pytest.mark.parametrize("engine", ENGINES)
def test_listings_default_to_slot_0(engine: str) -> None:
    library = StatementLibrary.load(CYPHER_DIR, engine)
    assert all(s.slot == 0 for s in library.statements())
    assert all(s.slot == 1 for s in library.statements(slot=1))
    assert library.by_name()["thought.create"][0].text == library.get("thought.create", slot=0)
    assert [s.name for s in library.statements()] == [s.name for s in library.statements(slot=1)]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_library_made_from_both_slots_answers_both(engine: str) -> None:
    library = StatementLibrary.load(CYPHER_DIR, engine)
    extra = [Statement("tests.extra", engine, f"RETURN {slot} AS s", ROOT, slot) for slot in SLOTS]
    both = {n: library.by_name(slot=0)[n] + library.by_name(slot=1)[n] for n in library.names()}
    extended = StatementLibrary(engine, {**both, "tests.extra": extra})
    with pinned(1):
        assert extended.get("thought.create") == library.get("thought.create", slot=1)
        assert extended.get("tests.extra") == "RETURN 1 AS s"
    assert extended.get("tests.extra") == "RETURN 0 AS s"
    with pytest.raises(ConfigurationError, match="slot 1"):
        StatementLibrary(engine, library.by_name()).get("thought.create", slot=1)
    with pytest.raises(ConfigurationError, match="no vector slot 2"):
        library.get("thought.create", slot=2)


def test_a_lapsed_pin_keeps_naming_its_slot_until_the_request_pins_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Between ``pin_space`` and the statement it chose, a pin may lapse: the statement
    still runs in the pinned slot, never in slot 0 by default."""
    monkeypatch.setattr(vector_slots, "PIN_SECONDS", -1.0)

    def in_a_request() -> None:
        assert current_slot() == 0  # nothing pinned: statement tooling's slot
        pin(1)
        assert pinned_slot() is None  # lapsed: the next pin_space pins the active slot
        assert current_slot() == 1

    contextvars.copy_context().run(in_a_request)
