"""Which slot of a statement a differing value fills. Two values can replace each other
only in one slot: "booked for 45 minutes" / "booked in the Maple room" say how long and
where, and "is in the hallway" / "is a TP-Link Archer" say where and what."""

from __future__ import annotations

from thoughtgraph.domain.language import lexicon as lx
from thoughtgraph.domain.language.quantities import quantity
from thoughtgraph.domain.language.statements import VERB, Statement, Token, said

# Prepositions of place and time stand in for each other ("in Lisbon" / "at the office").
_SAME_SLOT = {"at": "in", "on": "in"}
_GOVERNING = lx.PREPOSITIONS - {"and", "or"}


def different_slots(
    old: Statement, new: Statement, only_old: list[Token], only_new: list[Token]
) -> str | None:
    """Why the words that differ fill two slots, or None when they may fill one: a measure
    against no number, or values governed by different prepositions (or one by none)."""
    differ_old = [t for t in only_old if t.kind != VERB]
    differ_new = [t for t in only_new if t.kind != VERB]
    if not differ_old or not differ_new or same_unit(old, new, differ_old, differ_new):
        return None
    differing = f"{said(differ_old)} vs {said(differ_new)}"
    if _measure_against_none(differ_old, differ_new) or _measure_against_none(
        differ_new, differ_old
    ):
        return f"A measure and a name fill two slots: {differing}"
    if _slot(old, differ_old) != _slot(new, differ_new):
        return f"Said in two slots: {differing}"
    return None


def same_unit(
    old: Statement, new: Statement, values_old: list[Token], values_new: list[Token]
) -> bool:
    """Each side's differing value is a number followed by the same unit ("5 degrees" / "3
    degrees", "second grade" / "third grade"): one slot, however the verb puts it."""
    unit_old, unit_new = _units(old, values_old), _units(new, values_new)
    return bool(unit_old) and unit_old == unit_new


def _units(statement: Statement, values: list[Token]) -> set[str]:
    after = {t.position - 1: t for t in statement.tokens}
    return {
        after[t.position].norm for t in values if t.value_type == "number" and t.position in after
    }


def two_items(values_old: list[Token], values_new: list[Token]) -> bool:
    """Both the name and the number differ ("iOS 16" / "Android 10"): two products, each
    with its own version, more likely than one value changed twice."""

    def kinds(tokens: list[Token]) -> set[str]:
        return {"name" if t.value_type in ("name", "ident") else str(t.value_type) for t in tokens}

    return {"name", "number"} <= kinds(values_old) & kinds(values_new)


def same_quantity(values_old: list[Token], values_new: list[Token]) -> bool:
    """ "5 minutes" / "300 seconds": one quantity in other units."""
    old, new = quantity(values_old), quantity(values_new)
    return old is not None and new is not None and abs(old - new) <= 1e-9 * max(old, new, 1)


def counted(differing: list[Token]) -> bool:
    """Whether the differing words hold a count: a number that opens its phrase ("100
    requests per second"), not one that ends a name ("room 12", "gate 4"). Without a
    change cue, plain words ("counted per API key") do not replace a count."""
    positions = {t.position for t in differing}
    return any(t.value_type == "number" and t.position - 1 not in positions for t in differing)


def _measure_against_none(measure: list[Token], other: list[Token]) -> bool:
    """A duration or a size ("45 minutes") against words with no number at all."""
    return quantity(measure) is not None and not any(t.value_type == "number" for t in other)


def _slot(statement: Statement, differing: list[Token]) -> str | None:
    """The preposition governing the first differing words; "run on c6i.xlarge" read as
    the particle "on" and what follows it (a lone "on" / "off" is a state, no slot)."""
    first = differing[0]
    if first.value_type == "state" and first.norm in lx.PARTICLES and len(differing) > 1:
        return _SAME_SLOT.get(first.norm, first.norm)
    return _governor(statement, first)


def _governor(statement: Statement, token: Token) -> str | None:
    """The preposition the token's phrase opens with ("in" for "the hallway" in "is in the
    hallway"), or None for a phrase the verb takes directly ("is a TP-Link")."""
    words = statement.words
    for index in range(token.position - 1, statement.boundary, -1):
        lower = words[index].lower
        if lower in _GOVERNING:
            return _SAME_SLOT.get(lower, lower)
        if words[index].punct or lower in lx.COPULAS or lower in lx.VERB_FORM_BASE:
            return None
    return None
