"""Vector macros, registered with the others in app/store/cypher.py, and the ``space``
mark that puts a statement's vector names into a vector slot (thoughtgraph.ports.vector_slots).

A statement marks every vector property, vector label and vector index name it uses as
``{{ space(Name) }}`` (``t.{{ space(embedding) }}``, ``(v:{{ space(ThoughtVector) }})``,
``'{{ space(ThoughtVector) }}'``), inside another macro's arguments too. Expansion runs in
three passes (``expand`` in app/store/cypher.py): the statement's own marks
(``expand_spaces``), then every other macro, then the marks the vector macros below emit
for the names they write themselves. Slot 0 leaves each name as it is, slot 1 appends
``_1``: the same statement file serves both spaces.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from thoughtgraph.domain.errors import ConfigurationError
from thoughtgraph.ports.vector_slots import SLOTS, spaced

# Every name that exists once per vector slot: the vector properties, FalkorDB's label of
# a thought's indexed vector node and Neo4j's shared vector indexes. (A namespace's own
# Neo4j vector index is named by the adapter: the $namespaceIndex / $indexName parameter.)
VECTOR_NAMES = frozenset(
    {
        "embedding",
        "reasonEmbedding",
        "ThoughtVector",
        "refines_reason_embedding",
        "consolidates_reason_embedding",
        "supersedes_reason_embedding",
        "topic_embedding",
        "episode_embedding",
    }
)

_SPACE = re.compile(r"\{\{\s*space\s*\(([^)]*)\)\s*\}\}")


def space(name: str) -> str:
    """The mark of a vector name, for macros that write one (expanded in the last pass)."""
    return "{{ space(" + name + ") }}"


def expand_spaces(text: str, slot: int) -> str:
    """Every ``{{ space(Name) }}`` in ``text`` as ``Name`` in ``slot``; a name that is not
    a vector name (a typo) is an error rather than a statement that matches nothing."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1).strip()
        if name not in VECTOR_NAMES:
            raise ConfigurationError(f"space({name}): not a vector name ({sorted(VECTOR_NAMES)})")
        return spaced(name, slot)

    return _SPACE.sub(replace, text)


def _vector(engine: str, param: str) -> str:
    """A vector value: FalkorDB stores vectors as vecf32, Neo4j as a float list."""
    return f"vecf32({param})" if engine == "falkordb" else param


def _vector_query_nodes(engine: str, index: str, label: str, prop: str, k: str, vector: str) -> str:
    """YIELDs ``node, score``; the score's scale is the engine's own (see the adapters)."""
    if engine == "falkordb":
        return (
            f"CALL db.idx.vector.queryNodes('{label}', '{prop}', {k}, vecf32({vector})) "
            "YIELD node, score"
        )
    return f"CALL db.index.vector.queryNodes('{index}', {k}, {vector}) YIELD node, score"


def _vector_query_relationships(
    engine: str, index: str, rel_type: str, prop: str, k: str, vector: str
) -> str:
    """YIELDs ``relationship, score`` on the engine's own score scale."""
    if engine == "falkordb":
        return (
            f"CALL db.idx.vector.queryRelationships('{rel_type}', '{prop}', {k}, "
            f"vecf32({vector})) YIELD relationship, score"
        )
    return (
        f"CALL db.index.vector.queryRelationships('{index}', {k}, {vector}) "
        "YIELD relationship, score"
    )


def _vector_query_namespace_nodes(engine: str, label: str, prop: str, k: str, vector: str) -> str:
    """YIELDs ``node, score`` from the namespace's own vector index, so a namespace's
    search never depends on what other namespaces hold. FalkorDB keeps every namespace in
    a graph of its own (its index covers only that namespace); Neo4j gives each namespace
    a label and a vector index of its own, named by the ``$namespaceIndex`` parameter the
    adapter supplies."""
    if engine == "falkordb":
        indexed = FALKORDB_VECTOR_NODES.get(label)
        if indexed is not None:  # the vector lives on a node of its own: find the owner
            return (
                f"CALL db.idx.vector.queryNodes('{space(indexed)}', '{prop}', {k}, "
                f"vecf32({vector})) "
                f"YIELD node AS indexedVector, score MATCH (node:{label} {{id: indexedVector.id}})"
            )
        return (
            f"CALL db.idx.vector.queryNodes('{label}', '{prop}', {k}, vecf32({vector})) "
            "YIELD node, score"
        )
    return f"CALL db.index.vector.queryNodes($namespaceIndex, {k}, {vector}) YIELD node, score"


# FalkorDB's vector index re-inserts a node's vector whenever anything on the node is SET
# (a label, a counter), and queries then spend their k slots on the stale copies: three
# writes to a thought left a k=20 query with about 6 results. Thoughts change all the time
# (access counts, topics, supersession), so on FalkorDB their vector is indexed on a node
# of its own, created with the thought and never written again: (:ThoughtVector {id,
# embedding}). The thought keeps its embedding for reads; Neo4j indexes it in place.
FALKORDB_VECTOR_NODES = {"Thought": "ThoughtVector"}

_LABEL, _PROP = space("ThoughtVector"), space("embedding")


def _thought_vector(engine: str, var: str) -> str:
    """After a thought's CREATE: its indexed vector node (FalkorDB; nothing on Neo4j)."""
    if engine != "falkordb":
        return ""
    return f"CREATE (:{_LABEL} {{id: {var}.id, {_PROP}: {var}.{_PROP}}})"


def _merge_thought_vector(engine: str, var: str) -> str:
    """After a thought's MERGE (import): its indexed vector node, once (FalkorDB)."""
    if engine != "falkordb":
        return ""
    return (
        f"FOREACH (_ IN CASE WHEN {var}.{_PROP} IS NULL THEN [] ELSE [1] END |\n"
        f"  MERGE (indexedVector:{_LABEL} {{id: {var}.id}})\n"
        f"  ON CREATE SET indexedVector.{_PROP} = {var}.{_PROP})"
    )


def _drop_thought_vector(engine: str, var: str) -> str:
    """The thought's indexed vector node of the statement's slot goes (FalkorDB): what
    clearing a retired vector space does."""
    if engine != "falkordb":
        return ""
    return f"OPTIONAL MATCH (indexedVector:{_LABEL} {{id: {var}.id}}) DELETE indexedVector"


def _drop_thought_vectors(engine: str, var: str) -> str:
    """Before a thought's DETACH DELETE: its indexed vector nodes go too, of every slot
    (FalkorDB): while a re-embed runs the other slot has one as well."""
    if engine != "falkordb":
        return ""
    matches = " ".join(
        f"OPTIONAL MATCH (indexedVector{slot}:{spaced('ThoughtVector', slot)} {{id: {var}.id}})"
        for slot in SLOTS
    )
    return f"{matches} DELETE " + ", ".join(f"indexedVector{slot}" for slot in SLOTS)


def _nearest_first(engine: str, score: str) -> str:
    """ORDER BY term putting the closest vectors first: FalkorDB's score is a distance."""
    return f"{score} ASC" if engine == "falkordb" else f"{score} DESC"


VECTOR_MACROS: dict[str, Callable[..., str]] = {
    "vector": _vector,
    "vector_query_nodes": _vector_query_nodes,
    "vector_query_relationships": _vector_query_relationships,
    "vector_query_namespace_nodes": _vector_query_namespace_nodes,
    "thought_vector": _thought_vector,
    "merge_thought_vector": _merge_thought_vector,
    "drop_thought_vector": _drop_thought_vector,
    "drop_thought_vectors": _drop_thought_vectors,
    "nearest_first": _nearest_first,
}
