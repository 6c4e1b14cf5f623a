"""The near-duplicate overlap (app/domain/ranking/near_duplicates.py) chosen per fold on
the update set, leave one domain out: on the other domains, the share of changed facts
whose two statements count as near-duplicates minus the share of compatible look-alikes
that do (a reorder the ranking did not need); the left-out domain's catch rate printed.
Part of ``thoughtgraph eval updates``."""

from __future__ import annotations

from collections.abc import Sequence

from thoughtgraph.domain.ranking.near_duplicates import content_words, overlap_of
from thoughtgraph.tools.eval.folds import choose_on_train, folds_by, spread
from thoughtgraph.tools.eval.updates import EvalPair

CANDIDATES = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


def _caught(pair: EvalPair, threshold: float) -> bool:
    return overlap_of(content_words(pair.older), content_words(pair.newer)) >= threshold


def _rate(pairs: Sequence[EvalPair], kind: str, threshold: float) -> float:
    chosen = [p for p in pairs if p.kind == kind]
    return sum(_caught(p, threshold) for p in chosen) / len(chosen) if chosen else 0.0


def _objective(threshold: float, pairs: Sequence[EvalPair]) -> float:
    return _rate(pairs, "update", threshold) - _rate(pairs, "compatible", threshold)


def render_near_duplicate_folds(pairs: Sequence[EvalPair]) -> str:
    lines = [
        "Near-duplicate overlap, leave one domain out (changed facts caught on the left-out"
        " domain; compatible look-alikes reordered):",
        f"{'left-out domain':<18}{'chosen':>8}{'caught':>9}{'reordered':>11}",
    ]
    caught = []
    for fold in folds_by(lambda p: p.domain, [p for p in pairs if p.domain]):
        choice = choose_on_train(CANDIDATES, _objective, fold)
        rate = 100 * _rate(fold.test, "update", choice.value)
        caught.append(rate)
        reordered = 100 * _rate(fold.test, "compatible", choice.value)
        lines.append(f"{fold.held_out!s:<18}{choice.value:>8.1f}{rate:>8.1f}%{reordered:>10.1f}%")
    lines.append(f"{'caught, mean [min-max]':<26}{spread(caught)}")
    return "\n".join(lines)
