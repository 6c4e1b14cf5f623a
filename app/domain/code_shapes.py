"""The shape of a function, whatever its language, and the repeated shapes across a code
base that become code patterns (seed 002, memory type 3: AST-aware, not text).

A parser (features/procedures) reads each function into facets, in a fixed slot order:
``route`` (the route decorator or registration and its verb), ``validation`` (the first
call that validates or parses input), ``error_handling`` (try/except or try/catch and the
status codes its handler answers with) and ``response`` (the last response the function
gives outside its error handler). Names of objects are dropped (``*``), so
``users.post`` and ``orders.post`` read the same; literal values are dropped except status
codes and the keys of a response's object. Functions with the same facets in the same
language form a group; a group found in at least ``MIN_PLACES`` functions with at least
``MIN_FACETS`` facets is a pattern. Pure: no parsing here.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from thoughtgraph.domain.procedures import ARROW, MAX_HINT_CHARS, TemplateSlot

SLOT_ORDER = ("route", "validation", "error_handling", "response")
HTTP_VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "options", "all"})
ROUTE_NAMES = HTTP_VERBS | {"route"}  # Flask's @app.route(..., methods=[...])
VALIDATION_NAMES = frozenset(
    {"validate", "parse", "safeparse", "load", "model_validate", "validate_json"}
)
VALIDATION_PREFIXES = ("validate", "check_", "parse_")
RESPONDER_NAMES = frozenset(
    {"json", "send", "sendstatus", "end", "render", "jsonify", "response", "make_response"}
    | {"jsonresponse", "render_template"}
)
MIN_PLACES = 2
MIN_FACETS = 3
# Deterministic pattern ids: the same shape in the same namespace is the same pattern.
_PATTERN_IDS = uuid.UUID("6f1e4c1a-6d7b-4b53-9a55-2f3c0b8d7e21")


@dataclass(frozen=True)
class Facet:
    slot: str  # one of SLOT_ORDER
    value: str  # the normalised structure (a template line)
    head: str  # its word in a hint ("post", "validate", "try/except", "jsonify")


@dataclass(frozen=True)
class FunctionShape:
    path: str
    language: str
    name: str
    line: int
    facets: tuple[Facet, ...]

    @property
    def signature(self) -> tuple[str, tuple[tuple[str, str], ...]]:
        return self.language, tuple((f.slot, f.value) for f in self.facets)


@dataclass(frozen=True)
class ShapeGroup:
    """Functions sharing one shape: a code pattern once stored."""

    language: str
    facets: tuple[Facet, ...]
    places: tuple[FunctionShape, ...]

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(sorted({place.path for place in self.places}))

    @property
    def template(self) -> tuple[TemplateSlot, ...]:
        return tuple(TemplateSlot(slot=f.slot, value=f.value) for f in self.facets)

    @property
    def trigger(self) -> str:
        """When the pattern applies: a new endpoint of its verb, else new code of its kind."""
        route = next((f for f in self.facets if f.slot == "route"), None)
        if route is not None:
            return f"new {self.language} {route.head} endpoint"
        return f"new {self.language} handler"

    @property
    def hint(self) -> str:
        """``endpoint: post→validate→try/except→jsonify``: the trigger's last word and
        each facet's head."""
        hint = f"{self.trigger.split()[-1]}: " + ARROW.join(f.head for f in self.facets)
        return hint[:MAX_HINT_CHARS]

    def pattern_id(self, namespace: str) -> str:
        key = f"{namespace}\x1f{self.language}\x1f" + "\x1f".join(
            f"{f.slot}={f.value}" for f in self.facets
        )
        return str(uuid.uuid5(_PATTERN_IDS, key))


def ordered(facets: Iterable[Facet]) -> tuple[Facet, ...]:
    """One facet per slot (the first found), in slot order."""
    by_slot: dict[str, Facet] = {}
    for facet in facets:
        by_slot.setdefault(facet.slot, facet)
    return tuple(by_slot[slot] for slot in SLOT_ORDER if slot in by_slot)


def group_shapes(
    shapes: Sequence[FunctionShape],
    *,
    min_places: int = MIN_PLACES,
    min_facets: int = MIN_FACETS,
) -> list[ShapeGroup]:
    """Repeated shapes, the most places first (ties by signature, so the order is stable)."""
    groups: dict[tuple[str, tuple[tuple[str, str], ...]], list[FunctionShape]] = {}
    for shape in shapes:
        if len(shape.facets) >= min_facets:
            groups.setdefault(shape.signature, []).append(shape)
    found = [
        ShapeGroup(
            language=places[0].language,
            facets=places[0].facets,
            places=tuple(sorted(places, key=lambda p: (p.path, p.line))),
        )
        for places in groups.values()
        if len(places) >= min_places
    ]
    return sorted(found, key=lambda g: (-len(g.places), g.language, repr(g.facets)))


# --- facet builders (the parsers call these with what they read) -------------------------
def last_name(dotted: str) -> str:
    return dotted.rsplit(".", 1)[-1]


def wildcard(dotted: str) -> str:
    """``UserSchema.validate`` → ``*.validate``: the object's name is not the shape."""
    return f"*.{last_name(dotted)}" if "." in dotted else dotted


def is_route(name: str) -> bool:
    return last_name(name).lower() in ROUTE_NAMES


def is_validation(name: str) -> bool:
    word = last_name(name).lower()
    return word in VALIDATION_NAMES or word.startswith(VALIDATION_PREFIXES)


def is_responder(name: str) -> bool:
    return last_name(name).lower() in RESPONDER_NAMES


def route_facet(verb: str, *, decorator: bool) -> Facet:
    verb = verb.lower()
    value = f"@*.{verb}(path)" if decorator else f"*.{verb}(path, handler)"
    return Facet("route", value, verb)


def validation_facet(callee: str) -> Facet:
    return Facet("validation", f"{wildcard(callee)}(input)", last_name(callee))


def error_facet(construct: str, caught: Sequence[str], statuses: Sequence[int]) -> Facet:
    """``try/except ValidationError → 400``: the construct, what it catches, what it answers."""
    value = construct + (" " + "|".join(sorted(set(caught))) if caught else "")
    if statuses:
        value += " → " + "|".join(str(s) for s in sorted(set(statuses)))
    return Facet("error_handling", value, construct)


def response_facet(chain: Sequence[str], keys: Sequence[str], status: int | None) -> Facet:
    """``status(201).json({data})``: the responder chain, the object's keys, the status."""
    call = ".".join(chain)
    value = f"{call}({{{', '.join(sorted(keys))}}})" if keys else f"{call}(…)"
    if status is not None:
        value += f", {status}"
    return Facet("response", value, last_name(chain[-1]) if chain else "return")
