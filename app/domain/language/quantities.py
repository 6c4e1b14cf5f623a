"""A number and its unit read as one quantity in base units, so "5 minutes" and "300
seconds" compare equal."""

from __future__ import annotations

import itertools

from thoughtgraph.domain.language import lexicon as lx
from thoughtgraph.domain.language.statements import Token


def quantity(tokens: list[Token]) -> float | None:
    """ "5 minutes" -> 300.0 (seconds), "2 GB" -> 2e9 (bytes); None for anything else."""
    ordered = sorted(tokens, key=lambda t: t.position)
    for number, unit in itertools.pairwise(ordered):
        scale = lx.DURATION_S.get(unit.norm) or lx.SIZE_B.get(unit.norm)
        if number.value_type == "number" and scale is not None:
            try:
                return float(number.norm.lstrip("$€£").rstrip("%")) * scale
            except ValueError:
                return None
    return None
