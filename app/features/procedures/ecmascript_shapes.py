"""JavaScript and TypeScript functions read into shapes (thoughtgraph.domain.code_shapes)
with tree-sitter and its JavaScript and TypeScript grammars (wheels from PyPI): nothing is
run. The TypeScript grammar extends the JavaScript one, so one reader serves both; types
(annotations, ``as``, generics) add nodes the facets never look at."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

import tree_sitter
import tree_sitter_javascript
import tree_sitter_typescript

from thoughtgraph.domain import code_shapes as shapes
from thoughtgraph.domain.code_shapes import Facet, FunctionShape
from thoughtgraph.domain.procedures import UnparseableCodeError

FUNCTIONS = frozenset(
    {
        "function_declaration",
        "function_expression",
        "function",
        "arrow_function",
        "method_definition",
        "generator_function_declaration",
    }
)
STRINGS = frozenset({"string", "template_string"})


@dataclass(frozen=True)
class Dialect:
    language: str  # the shapes' language: patterns group within one
    title: str  # in the error naming a file that does not parse
    grammar: Callable[[], object]  # the grammar wheel's language pointer


JAVASCRIPT = Dialect("javascript", "JavaScript", tree_sitter_javascript.language)
TYPESCRIPT = Dialect("typescript", "TypeScript", tree_sitter_typescript.language_typescript)
TSX = Dialect("typescript", "TypeScript (TSX)", tree_sitter_typescript.language_tsx)


@cache
def _language(dialect: Dialect) -> tree_sitter.Language:
    return tree_sitter.Language(dialect.grammar())


def javascript_shapes(path: str, content: str, *, field: str) -> list[FunctionShape]:
    return _shapes(JAVASCRIPT, path, content, field=field)


def typescript_shapes(path: str, content: str, *, field: str) -> list[FunctionShape]:
    return _shapes(TYPESCRIPT, path, content, field=field)


def tsx_shapes(path: str, content: str, *, field: str) -> list[FunctionShape]:
    return _shapes(TSX, path, content, field=field)


def _shapes(dialect: Dialect, path: str, content: str, *, field: str) -> list[FunctionShape]:
    """Every function's shape; UNPARSEABLE_CODE (naming ``field``) when the grammar finds
    an error anywhere in the file."""
    tree = tree_sitter.Parser(_language(dialect)).parse(content.encode("utf-8"))
    if tree.root_node.has_error:
        line = _first_error_line(tree.root_node)
        raise UnparseableCodeError(
            f"{path} is not valid {dialect.title}" + (f" (line {line})" if line else ""),
            field=field,
        )
    return [
        FunctionShape(
            path=path,
            language=dialect.language,
            name=_name(node),
            line=node.start_point[0] + 1,
            facets=shapes.ordered(_facets(node)),
        )
        for node in _descendants(tree.root_node)
        if node.is_named and node.type in FUNCTIONS
    ]


def _facets(function: tree_sitter.Node) -> Iterator[Facet]:
    route = _route(function)
    if route is not None:
        yield route
    body = list(_own_nodes(function))
    for node in body:
        if node.type == "call_expression" and shapes.is_validation(_callee(node)):
            yield shapes.validation_facet(_callee(node))
            break
    for node in body:
        handler = node.child_by_field_name("handler") if node.type == "try_statement" else None
        if handler is not None:
            yield _error_handling(handler)
            break
    response = _response(function)
    if response is not None:
        yield response


def _route(function: tree_sitter.Node) -> Facet | None:
    """``router.post('/path', ..., handler)``: the handler is the call's last argument."""
    arguments = function.parent
    call = arguments.parent if arguments is not None else None
    if arguments is None or call is None or call.type != "call_expression":
        return None
    args = arguments.named_children
    if not args or args[-1] != function or args[0].type not in STRINGS:
        return None
    callee = _callee(call)
    if "." not in callee or not shapes.is_route(callee):
        return None
    return shapes.route_facet(shapes.last_name(callee), decorator=False)


def _error_handling(catch: tree_sitter.Node) -> Facet:
    statuses = [
        status
        for node in _descendants(catch)
        if node.type == "call_expression" and (status := _status_call(node)) is not None
    ]
    return shapes.error_facet("try/catch", [], statuses)


def _response(function: tree_sitter.Node) -> Facet | None:
    """The last responder call (``res.json``, ``res.send``...) outside a catch clause."""
    calls = [
        node
        for node in _own_nodes(function, skip={"catch_clause"})
        if node.type == "call_expression" and shapes.is_responder(_callee(node))
    ]
    if not calls:
        return None
    last = max(calls, key=lambda n: n.start_byte)
    chain, status = [shapes.last_name(_callee(last))], None
    member = last.child_by_field_name("function")
    inner = member.child_by_field_name("object") if member is not None else None
    while inner is not None and inner.type == "call_expression":
        found = _status_call(inner)
        status = found if found is not None else status
        chain.insert(0, shapes.last_name(_callee(inner)))
        member = inner.child_by_field_name("function")
        inner = member.child_by_field_name("object") if member is not None else None
    return shapes.response_facet(chain, _object_keys(last), status)


def _status_call(call: tree_sitter.Node) -> int | None:
    """The number of ``x.status(400)`` / ``x.sendStatus(400)``."""
    if shapes.last_name(_callee(call)).lower() not in {"status", "sendstatus"}:
        return None
    arguments = call.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments and arguments.named_children else None
    if first is not None and first.type == "number" and _text(first).isdigit():
        return int(_text(first))
    return None


def _object_keys(call: tree_sitter.Node) -> list[str]:
    arguments = call.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments and arguments.named_children else None
    if first is None or first.type != "object":
        return []
    keys = []
    for member in first.named_children:
        key = member.child_by_field_name("key") if member.type == "pair" else member
        if key is not None and key.type in {"property_identifier", "shorthand_property_identifier"}:
            keys.append(_text(key))
        elif key is not None and key.type == "string":
            keys.append(_text(key).strip("'\"`"))
    return keys


def _callee(call: tree_sitter.Node) -> str:
    """``a.b.c`` of a call's callee; calls inside the chain read as their callee."""
    node = call.child_by_field_name("function")
    parts: list[str] = []
    while node is not None:
        if node.type == "member_expression":
            prop = node.child_by_field_name("property")
            parts.insert(0, _text(prop) if prop is not None else "")
            node = node.child_by_field_name("object")
        elif node.type == "call_expression":
            node = node.child_by_field_name("function")
        else:
            if node.type in {"identifier", "this"}:
                parts.insert(0, _text(node))
            break
    return ".".join(parts)


def _name(function: tree_sitter.Node) -> str:
    name = function.child_by_field_name("name")
    if name is not None:
        return _text(name)
    parent = function.parent
    declared = parent.child_by_field_name("name") if parent is not None else None
    return _text(declared) if declared is not None else "<anonymous>"


def _own_nodes(
    function: tree_sitter.Node, *, skip: frozenset[str] | set[str] = frozenset()
) -> Iterator[tree_sitter.Node]:
    """The function body's nodes in source order, not those of functions nested in it."""
    body = function.child_by_field_name("body")
    stack = [body] if body is not None else []
    while stack:
        node = stack.pop()
        if (node.is_named and node.type in FUNCTIONS) or node.type in skip:
            continue
        yield node
        stack.extend(reversed(node.children))


def _descendants(root: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def _first_error_line(root: tree_sitter.Node) -> int | None:
    for node in _descendants(root):
        if node.is_error or node.is_missing:
            return node.start_point[0] + 1
    return None


def _text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")
