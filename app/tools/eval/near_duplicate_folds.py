"""The near-duplicate cut-offs (app/domain/ranking/near_duplicates.py) chosen per fold on
the update set, leave one domain out, by the share of changed facts whose two statements
count as near-duplicates minus the share of compatible look-alikes that do (a reorder the
ranking did not need) on the other domains; the left-out domain's rates printed. Two
protocols: the shipped one chooses the word overlap alone, then the vector cosine with
the overlap at its shipped value; the other chooses both together. Part of
``thoughtgraph eval updates``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product

from thoughtgraph.domain.ranking.near_duplicates import (
    NEAR_DUPLICATE_OVERLAP,
    content_words,
    overlap_of,
)
from thoughtgraph.tools.eval.folds import choose_on_train, folds_by, spread
from thoughtgraph.tools.eval.updates import EvalPair

OVERLAPS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
COSINES = (None, 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65)  # None: by words alone
Cutoffs = tuple[float, float | None]


class _Rates:
    def __init__(self, cosines: Mapping[str, float]) -> None:
        self._cosines = cosines

    def caught(self, pair: EvalPair, cutoffs: Cutoffs) -> bool:
        overlap, cosine = cutoffs
        if overlap_of(content_words(pair.older), content_words(pair.newer)) >= overlap:
            return True
        return cosine is not None and self._cosines[pair.id] >= cosine

    def rate(self, chosen: Sequence[EvalPair], kind: str, cutoffs: Cutoffs) -> float:
        of_kind = [p for p in chosen if p.kind == kind]
        return sum(self.caught(p, cutoffs) for p in of_kind) / len(of_kind) if of_kind else 0.0

    def objective(self, cutoffs: Cutoffs, chosen: Sequence[EvalPair]) -> float:
        return self.rate(chosen, "update", cutoffs) - self.rate(chosen, "compatible", cutoffs)


def render_near_duplicate_folds(pairs: Sequence[EvalPair], cosines: Mapping[str, float]) -> str:
    """``cosines``: each pair's cosine of its two statements' vectors, by pair id."""
    rates = _Rates(cosines)
    domained = [p for p in pairs if p.domain]
    protocols: dict[str, list[Cutoffs]] = {
        f"overlap {NEAR_DUPLICATE_OVERLAP} (shipped, chosen alone), cosine chosen per fold "
        "(shipped)": [(NEAR_DUPLICATE_OVERLAP, c) for c in COSINES],
        "overlap and cosine chosen together": list(product(OVERLAPS, COSINES)),
    }
    lines = [
        "Near-duplicate cut-offs, leave one domain out (changed facts caught on the left-out"
        " domain; compatible look-alikes reordered):"
    ]
    for label, candidates in protocols.items():
        lines += ["", label, f"{'left-out domain':<18}{'overlap':>8}{'cosine':>8}"
                  f"{'caught':>9}{'reordered':>11}"]  # fmt: skip
        caught, reordered = [], []
        for fold in folds_by(lambda p: p.domain, domained):
            choice = choose_on_train(candidates, rates.objective, fold)
            overlap, cosine = choice.value
            caught.append(100 * rates.rate(fold.test, "update", choice.value))
            reordered.append(100 * rates.rate(fold.test, "compatible", choice.value))
            shown = "-" if cosine is None else f"{cosine:.2f}"
            lines.append(
                f"{fold.held_out!s:<18}{overlap:>8.1f}{shown:>8}{caught[-1]:>8.1f}%"
                f"{reordered[-1]:>10.1f}%"
            )
        lines.append(f"{'caught, mean [min-max]':<26}{spread(caught)}")
        lines.append(f"{'reordered, mean [min-max]':<26}{spread(reordered)}")
    return "\n".join(lines)
