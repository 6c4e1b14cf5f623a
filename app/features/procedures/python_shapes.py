"""Python functions read into shapes (thoughtgraph.domain.code_shapes) with the standard
``ast`` module: nothing is imported or run."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from thoughtgraph.domain import code_shapes as shapes
from thoughtgraph.domain.code_shapes import Facet, FunctionShape
from thoughtgraph.domain.procedures import UnparseableCodeError

LANGUAGE = "python"
_Function = ast.FunctionDef | ast.AsyncFunctionDef


def python_shapes(path: str, content: str, *, field: str) -> list[FunctionShape]:
    """Every function's shape; UNPARSEABLE_CODE (naming ``field``) when it does not parse."""
    try:
        tree = ast.parse(content, filename=path)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        raise UnparseableCodeError(
            f"{path} is not valid Python" + (f" (line {line})" if line else ""), field=field
        ) from None
    return [
        FunctionShape(
            path=path,
            language=LANGUAGE,
            name=node.name,
            line=node.lineno,
            facets=shapes.ordered(_facets(node)),
        )
        for node in ast.walk(tree)
        if isinstance(node, _Function)
    ]


def _facets(function: _Function) -> Iterator[Facet]:
    for decorator in function.decorator_list:
        route = _route(decorator)
        if route is not None:
            yield route
    body = list(_own_nodes(function))
    for node in body:
        if isinstance(node, ast.Call) and shapes.is_validation(_dotted(node.func)):
            yield shapes.validation_facet(_dotted(node.func))
            break
    for node in body:
        if isinstance(node, ast.Try) and node.handlers:
            yield _error_handling(node)
            break
    response = _response(function)
    if response is not None:
        yield response


def _route(decorator: ast.expr) -> Facet | None:
    if not isinstance(decorator, ast.Call) or not shapes.is_route(_dotted(decorator.func)):
        return None
    verb = shapes.last_name(_dotted(decorator.func)).lower()
    if verb == "route":  # Flask: methods=["POST"], GET when not given
        methods = next((k.value for k in decorator.keywords if k.arg == "methods"), None)
        names = [
            e.value
            for e in (methods.elts if isinstance(methods, ast.List | ast.Tuple) else [])
            if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
        verb = names[0].lower() if names else "get"
    return shapes.route_facet(verb, decorator=True)


def _error_handling(node: ast.Try) -> Facet:
    types = [
        caught
        for h in node.handlers
        if h.type is not None
        for caught in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type])
    ]
    caught = [shapes.last_name(_dotted(t)) for t in types if _dotted(t)] or ["Exception"]
    statuses = [
        status
        for handler in node.handlers
        for inner in ast.walk(handler)
        if isinstance(inner, ast.Return) and (status := _status_of(inner.value)) is not None
    ]
    return shapes.error_facet("try/except", caught, statuses)


def _response(function: _Function) -> Facet | None:
    """The last return outside an except handler, by line."""
    returns = [n for n in _own_nodes(function, skip_handlers=True) if isinstance(n, ast.Return)]
    if not returns:
        return None
    last = max(returns, key=lambda r: (r.lineno, r.col_offset))
    value = last.value
    status = _status_of(value)
    if isinstance(value, ast.Tuple) and value.elts:
        value = value.elts[0]
    if isinstance(value, ast.Call) and shapes.is_responder(_dotted(value.func)):
        return shapes.response_facet([_dotted(value.func)], _keys(value), status)
    if isinstance(value, ast.Dict):
        return shapes.response_facet(["dict"], _dict_keys(value), status)
    return None


def _own_nodes(function: _Function, *, skip_handlers: bool = False) -> Iterator[ast.AST]:
    """The function's nodes in source order, not those of functions nested in it."""
    stack: list[ast.AST] = list(reversed(function.body))
    while stack:
        node = stack.pop()
        if isinstance(node, _Function | ast.Lambda | ast.ClassDef):
            continue
        if skip_handlers and isinstance(node, ast.ExceptHandler):
            continue
        yield node
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _status_of(value: ast.expr | None) -> int | None:
    if isinstance(value, ast.Tuple) and len(value.elts) >= 2:
        code = value.elts[1]
        if isinstance(code, ast.Constant) and isinstance(code.value, int):
            return code.value
    return None


def _keys(call: ast.Call) -> list[str]:
    first = call.args[0] if call.args else None
    if isinstance(first, ast.Dict):
        return _dict_keys(first)
    return [k.arg for k in call.keywords if k.arg is not None]


def _dict_keys(value: ast.Dict) -> list[str]:
    return [k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]


def _dotted(node: ast.expr | None) -> str:
    """``a.b.c`` for names and attributes; a call's callee for ``Schema().load``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    return ""
