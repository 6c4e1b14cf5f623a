"""Named Cypher statements loaded from ``cypher/`` and expanded once per engine.

Layout: ``cypher/<group>/<name>.cypher`` is a statement both engines accept, named
``<group>.<name>``; ``<name>.<engine>.cypher`` beside it overrides it for one engine, and a
statement that only one engine needs exists only as its override. Files under
``cypher/schema/`` hold several statements separated by a ``;`` at the end of a line.

The few engine differences are macros written ``{{ name(arg, ...) }}`` and expanded at
load: vector literals, vector and full-text index queries, the namespace's own vector
index and label, and the shared thought projection. Values never enter a statement text:
macros take parameter names and schema identifiers only, and those come from the
statement files, never from input.

Labels and relationship types cannot be parameters, so a statement that differs only by
them is written once, as a template: its ``//@ <name>: <slot>=<Identifier>, ...`` lines
each declare one statement, ``<group>.<name>``, whose text is the template's with every
``{{ slot }}`` replaced by that line's identifier (checked to be one). The template file
itself names no statement of its own; snapshots and the linter see every instance.

One exception, and only for schema commands, which accept no parameter for a label: the
slot ``__NAMESPACE_LABEL__`` in a ``schema.*`` statement is filled per namespace by
``fill_namespace_label`` with a label derived from a hash (``Ns_`` and 24 hex digits) and
checked against that exact pattern, so no input text can reach a statement.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from thoughtgraph.domain.errors import ConfigurationError
from thoughtgraph.store.filter_macros import FILTER_MACROS
from thoughtgraph.store.projection_macros import PROJECTION_MACROS
from thoughtgraph.store.search_macros import SEARCH_MACROS

ENGINES = ("neo4j", "falkordb")
_MACRO = re.compile(r"\{\{\s*(\w+)\s*\(([^)]*)\)\s*\}\}")
_IDENT = re.compile(r"^\$?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$")


def _args(raw: str) -> list[str]:
    args = [part.strip() for part in raw.split(",") if part.strip()]
    for arg in args:
        if not _IDENT.match(arg):
            raise ConfigurationError(f"macro argument {arg!r} is not an identifier or $param")
    return args


# --- macros ----------------------------------------------------------------------------


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
                f"CALL db.idx.vector.queryNodes('{indexed}', '{prop}', {k}, vecf32({vector})) "
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


def _thought_vector(engine: str, var: str) -> str:
    """After a thought's CREATE: its indexed vector node (FalkorDB; nothing on Neo4j)."""
    if engine != "falkordb":
        return ""
    return f"CREATE (:ThoughtVector {{id: {var}.id, embedding: {var}.embedding}})"


def _merge_thought_vector(engine: str, var: str) -> str:
    """After a thought's MERGE (import): its indexed vector node, once (FalkorDB)."""
    if engine != "falkordb":
        return ""
    return (
        f"FOREACH (_ IN CASE WHEN {var}.embedding IS NULL THEN [] ELSE [1] END |\n"
        f"  MERGE (indexedVector:ThoughtVector {{id: {var}.id}})\n"
        f"  ON CREATE SET indexedVector.embedding = {var}.embedding)"
    )


def _drop_thought_vector(engine: str, var: str) -> str:
    """Before a thought's DETACH DELETE: its indexed vector node goes too (FalkorDB)."""
    if engine != "falkordb":
        return ""
    return f"OPTIONAL MATCH (indexedVector:ThoughtVector {{id: {var}.id}}) DELETE indexedVector"


def _namespace_label(engine: str, var: str) -> str:
    """Adds the namespace's own label (Neo4j; ``$namespaceLabel`` from the adapter), which
    its vector index covers. FalkorDB needs none: the graph is the namespace."""
    return f"SET {var}:$($namespaceLabel)" if engine == "neo4j" else ""


def _fulltext_query_nodes(engine: str, index: str, label: str, query: str) -> str:
    """YIELDs ``node, score``; higher is better on both engines."""
    if engine == "falkordb":
        return f"CALL db.idx.fulltext.queryNodes('{label}', {query}) YIELD node, score"
    return f"CALL db.index.fulltext.queryNodes('{index}', {query}) YIELD node, score"


def _call_with(engine: str, *variables: str) -> str:
    """Opens a subquery that sees ``variables`` (closed by a plain ``}``): Neo4j 5.23+
    takes them as a scope clause (importing WITH is deprecated there), FalkorDB only as
    an importing WITH."""
    names = ", ".join(variables)
    if engine == "falkordb":
        return f"CALL {{ WITH {names}"
    return f"CALL ({names}) {{"


def _nearest_first(engine: str, score: str) -> str:
    """ORDER BY term putting the closest vectors first: FalkorDB's score is a distance."""
    return f"{score} ASC" if engine == "falkordb" else f"{score} DESC"


def _append_event(engine: str) -> str:
    """Appends one event to the namespace's change log, in the write it records, binding
    it as ``ev``. The statement must be down to one row here. Parameters: $eventId
    $eventKind $subjectKind $subjectId $relatedIds $actorId $actorName $actorKeyId $at
    (see thoughtgraph.store.params.change_params)."""
    del engine
    return (
        "MERGE (log:ChangeLog {namespace: $namespace}) "
        "ON CREATE SET log.revision = 0 "
        # The write lock is taken before the counter is read: no two writers share a
        # revision.
        "SET log.lock = true "
        "SET log.revision = log.revision + 1 "
        "CREATE (ev:ChangeEvent {id: $eventId, namespace: $namespace, "
        "revision: log.revision, kind: $eventKind, subjectKind: $subjectKind, "
        "subjectId: $subjectId, sourceIds: $relatedIds, actorId: $actorId, "
        "actorName: $actorName, actorKeyId: $actorKeyId, at: $at})"
    )


def _append_change(engine: str, subject: str) -> str:
    """``append_event`` linked to the node it concerns."""
    return f"{_append_event(engine)} CREATE (ev)-[:CONCERNS]->({subject})"


MACROS: dict[str, Callable[..., str]] = {
    "append_change": _append_change,
    "append_event": _append_event,
    "vector": _vector,
    "vector_query_nodes": _vector_query_nodes,
    "vector_query_relationships": _vector_query_relationships,
    "vector_query_namespace_nodes": _vector_query_namespace_nodes,
    "namespace_label": _namespace_label,
    "thought_vector": _thought_vector,
    "merge_thought_vector": _merge_thought_vector,
    "drop_thought_vector": _drop_thought_vector,
    "fulltext_query_nodes": _fulltext_query_nodes,
    "call_with": _call_with,
    "nearest_first": _nearest_first,
    **PROJECTION_MACROS,
    **FILTER_MACROS,
    **SEARCH_MACROS,
}


def expand(text: str, engine: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name, raw_args = match.group(1), match.group(2)
        macro = MACROS.get(name)
        if macro is None:
            raise ConfigurationError(f"unknown Cypher macro {name!r}")
        return macro(engine, *_args(raw_args))

    expanded = _MACRO.sub(replace, text)
    if "{{" in expanded:
        raise ConfigurationError("malformed Cypher macro left after expansion:\n" + text)
    return expanded


NAMESPACE_LABEL_SLOT = "__NAMESPACE_LABEL__"
_NAMESPACE_LABEL = re.compile(r"^Ns_[0-9a-f]{24}$")


def fill_namespace_label(text: str, label: str) -> str:
    """Put a namespace label into a schema statement's slot (see the module docstring)."""
    if not _NAMESPACE_LABEL.fullmatch(label):
        raise ConfigurationError(f"not a namespace label: {label!r}")
    if NAMESPACE_LABEL_SLOT not in text:
        raise ConfigurationError("statement has no namespace label slot")
    return text.replace(NAMESPACE_LABEL_SLOT, label)


# --- loading ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Statement:
    name: str
    engine: str
    text: str
    source: Path


def _split_statements(text: str) -> list[str]:
    parts = re.split(r";\s*$", text, flags=re.MULTILINE)
    return [part.strip() for part in parts if part.strip()]


_INSTANCE = re.compile(r"^//@\s*([a-z_][a-z0-9_]*)\s*:\s*(.*)$")
_SLOT = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
_LABEL = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _instances(text: str, path: Path) -> dict[str, dict[str, str]] | None:
    """A template's declared statements: name -> slot values; None for a plain file."""
    found: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        match = _INSTANCE.match(line.strip())
        if match is None:
            continue
        values: dict[str, str] = {}
        for pair in filter(None, (part.strip() for part in match.group(2).split(","))):
            slot, _, value = (part.strip() for part in pair.partition("="))
            if not _LABEL.match(slot) or not _LABEL.match(value):
                raise ConfigurationError(f"{path}: not a slot=Identifier pair: {pair!r}")
            values[slot] = value
        found[match.group(1)] = values
    return found or None


def _fill(template: str, values: dict[str, str], name: str) -> str:
    def slot(match: re.Match[str]) -> str:
        value = values.get(match.group(1))
        if value is None:
            raise ConfigurationError(f"template instance {name!r} gives no {match.group(1)!r}")
        return value

    return _SLOT.sub(slot, template)


def _strip_comments(text: str) -> str:
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    return "\n".join(lines).strip()


def _discover(root: Path) -> Iterator[tuple[str, str | None, Path]]:
    """Yield (statement name, engine or None for shared, file) for every .cypher file."""
    for path in sorted(root.rglob("*.cypher")):
        relative = path.relative_to(root).with_suffix("")
        stem_parts = relative.name.split(".")
        engine: str | None = None
        if len(stem_parts) == 2 and stem_parts[1] in ENGINES:
            engine = stem_parts[1]
        elif len(stem_parts) != 1:
            raise ConfigurationError(f"unexpected Cypher file name: {path}")
        name = ".".join([*relative.parent.parts, stem_parts[0]])
        yield name, engine, path


class StatementLibrary:
    """All statements for one engine, expanded at load and looked up by name."""

    def __init__(self, engine: str, statements: dict[str, list[Statement]]) -> None:
        self.engine = engine
        self._statements = statements

    @classmethod
    def load(cls, root: Path, engine: str) -> StatementLibrary:
        if engine not in ENGINES:
            raise ConfigurationError(f"unknown engine {engine!r}")
        if not root.is_dir():
            raise ConfigurationError(f"Cypher directory not found: {root}")
        found = list(_discover(root))
        # Shared texts first, then this engine's overrides replace them by name.
        chosen = {name: path for name, file_engine, path in found if file_engine is None}
        chosen.update({name: path for name, fe, path in found if fe == engine})
        statements: dict[str, list[Statement]] = {}
        for name, path in sorted(chosen.items()):
            raw = path.read_text(encoding="utf-8")
            text = _strip_comments(raw)
            instances = _instances(raw, path)
            if instances is not None:
                group = name.rsplit(".", 1)[0]
                for instance, values in instances.items():
                    full = f"{group}.{instance}"
                    body = expand(_fill(text, values, full), engine)
                    statements[full] = [Statement(full, engine, body, path)]
                continue
            bodies = _split_statements(text) if name.startswith("schema.") else [text]
            statements[name] = [
                Statement(name=name, engine=engine, text=expand(body, engine), source=path)
                for body in bodies
            ]
        return cls(engine, statements)

    def get(self, name: str) -> str:
        found = self._statements.get(name)
        if not found or len(found) != 1:
            raise ConfigurationError(f"no single Cypher statement named {name!r} for {self.engine}")
        return found[0].text

    def get_all(self, name: str) -> list[str]:
        found = self._statements.get(name)
        if not found:
            raise ConfigurationError(f"no Cypher statements named {name!r} for {self.engine}")
        return [statement.text for statement in found]

    def by_name(self) -> dict[str, list[Statement]]:
        """Every statement, by name (a copy: a caller may extend it into a new library)."""
        return {name: list(found) for name, found in self._statements.items()}

    def names(self) -> list[str]:
        return sorted(self._statements)

    def statements(self) -> list[Statement]:
        return [s for name in self.names() for s in self._statements[name]]
