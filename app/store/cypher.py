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

Vector names exist once per vector slot (thoughtgraph.ports.vector_slots): a statement marks
each vector property, label and index name it uses as ``{{ space(Name) }}``, and the
library expands every statement once per slot (app/store/vector_macros.py). ``get`` answers
the text of the slot the current request pinned.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from thoughtgraph.domain.errors import ConfigurationError
from thoughtgraph.ports.vector_slots import SLOTS, current_slot
from thoughtgraph.store.filter_macros import FILTER_MACROS
from thoughtgraph.store.projection_macros import PROJECTION_MACROS
from thoughtgraph.store.search_macros import SEARCH_MACROS
from thoughtgraph.store.vector_macros import VECTOR_MACROS, expand_spaces

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


def _namespace_label(engine: str, var: str) -> str:
    """Adds the namespace's own label (Neo4j; ``$namespaceLabel`` from the adapter), which
    its vector index covers. FalkorDB needs none: the graph is the namespace."""
    return f"SET {var}:$($namespaceLabel)" if engine == "neo4j" else ""


def _fulltext_query_nodes(
    engine: str, index: str, label: str, query: str, best: str | None = None
) -> str:
    """YIELDs ``node, score``; higher is better on both engines. With ``best`` Neo4j's
    index collects only that many of the best matches (the statement must still order
    and limit: FalkorDB's procedure takes no such option and yields every match)."""
    if engine == "falkordb":
        return f"CALL db.idx.fulltext.queryNodes('{label}', {query}) YIELD node, score"
    options = f", {{limit: {best}}}" if best else ""
    return f"CALL db.index.fulltext.queryNodes('{index}', {query}{options}) YIELD node, score"


def _call_with(engine: str, *variables: str) -> str:
    """Opens a subquery that sees ``variables`` (closed by a plain ``}``): Neo4j 5.23+
    takes them as a scope clause (importing WITH is deprecated there), FalkorDB only as
    an importing WITH."""
    names = ", ".join(variables)
    if engine == "falkordb":
        return f"CALL {{ WITH {names}"
    return f"CALL ({names}) {{"


def _use_index(engine: str, var: str, label: str, *properties: str) -> str:
    """After a MATCH: Neo4j's planner told to seek ``label``'s index on ``properties``
    (it cannot know that one equality, a session, is more selective than a time range
    it also has an index for). FalkorDB picks its index itself: nothing."""
    if engine != "neo4j":
        return ""
    return f"USING INDEX {var}:{label}({', '.join(properties)})"


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
    "namespace_label": _namespace_label,
    "fulltext_query_nodes": _fulltext_query_nodes,
    "call_with": _call_with,
    "use_index": _use_index,
    **VECTOR_MACROS,
    **PROJECTION_MACROS,
    **FILTER_MACROS,
    **SEARCH_MACROS,
}


def expand(text: str, engine: str, slot: int = 0) -> str:
    """``text`` as ``engine`` runs it in vector ``slot``: the statement's own ``space``
    marks first (they may sit inside another macro's arguments), then every other macro,
    then the ``space`` marks those macros wrote (see app/store/vector_macros.py)."""
    if slot not in SLOTS:
        raise ConfigurationError(f"no vector slot {slot!r}")

    def replace(match: re.Match[str]) -> str:
        name, raw_args = match.group(1), match.group(2)
        macro = MACROS.get(name)
        if macro is None:
            raise ConfigurationError(f"unknown Cypher macro {name!r}")
        return macro(engine, *_args(raw_args))

    expanded = expand_spaces(_MACRO.sub(replace, expand_spaces(text, slot)), slot)
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
    slot: int = 0


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
    """All statements for one engine, expanded at load once per vector slot and looked up
    by name in the slot the current request pinned (``vector_slots.current_slot``)."""

    def __init__(self, engine: str, statements: dict[str, list[Statement]]) -> None:
        """``statements``: by name, each slot's texts in order (a statement's ``slot``
        says which; a slot a name has no statement for answers nothing for it)."""
        self.engine = engine
        self._spaces: dict[int, dict[str, list[Statement]]] = {slot: {} for slot in SLOTS}
        for name, found in statements.items():
            for statement in found:
                if statement.slot not in self._spaces:
                    raise ConfigurationError(f"{name}: no vector slot {statement.slot!r}")
                self._spaces[statement.slot].setdefault(name, []).append(statement)

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
                    body = _fill(text, values, full)
                    statements[full] = [
                        Statement(full, engine, expand(body, engine, slot), path, slot)
                        for slot in SLOTS
                    ]
                continue
            bodies = _split_statements(text) if name.startswith("schema.") else [text]
            statements[name] = [
                Statement(name, engine, expand(body, engine, slot), path, slot)
                for slot in SLOTS
                for body in bodies
            ]
        return cls(engine, statements)

    def _found(self, name: str, slot: int | None) -> tuple[int, list[Statement]]:
        chosen = current_slot() if slot is None else slot
        if chosen not in self._spaces:
            raise ConfigurationError(f"no vector slot {chosen!r}")
        return chosen, self._spaces[chosen].get(name, [])

    def get(self, name: str, *, slot: int | None = None) -> str:
        """The statement's text in ``slot``, by default the current request's."""
        chosen, found = self._found(name, slot)
        if len(found) != 1:
            raise ConfigurationError(
                f"no single Cypher statement named {name!r} for {self.engine} in slot {chosen}"
            )
        return found[0].text

    def get_all(self, name: str, *, slot: int | None = None) -> list[str]:
        """A multi-statement file's texts in ``slot``, by default the current request's."""
        chosen, found = self._found(name, slot)
        if not found:
            raise ConfigurationError(
                f"no Cypher statements named {name!r} for {self.engine} in slot {chosen}"
            )
        return [statement.text for statement in found]

    def by_name(self, *, slot: int = 0) -> dict[str, list[Statement]]:
        """Every statement of ``slot``, by name (a copy: a caller may extend it into a new
        library, which then answers in that slot only)."""
        return {name: list(found) for name, found in self._spaces[slot].items()}

    def names(self, *, slot: int = 0) -> list[str]:
        return sorted(self._spaces[slot])

    def statements(self, *, slot: int = 0) -> list[Statement]:
        space = self._spaces[slot]
        return [s for name in sorted(space) for s in space[name]]
