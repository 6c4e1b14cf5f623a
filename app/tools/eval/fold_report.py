"""Per-fold tables: for each row (a way of answering), per category the share of
questions it answered (all evidence in the top 10, or in the context) on each left-out
conversation, then the mean and the min-max across the folds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from thoughtgraph.tools.eval.folds import folds_by, spread
from thoughtgraph.tools.eval.locomo import CATEGORIES, HEADLINE_CATEGORIES

COLUMNS: tuple[tuple[str, tuple[int, ...]], ...] = (
    *((CATEGORIES[c], (c,)) for c in HEADLINE_CATEGORIES),
    ("1-4", HEADLINE_CATEGORIES),
    (CATEGORIES[5], (5,)),
)
_WIDTH = 14


@dataclass(frozen=True)
class Outcome:
    """One question answered one way: did every evidence turn come back?"""

    sample_id: str
    category: int
    hit: bool


def share(outcomes: Sequence[Outcome], categories: Sequence[int]) -> float | None:
    chosen = [o for o in outcomes if o.category in categories]
    return 100.0 * sum(o.hit for o in chosen) / len(chosen) if chosen else None


def fold_shares(outcomes: Sequence[Outcome]) -> dict[str, list[float | None]]:
    """Held-out conversation -> per column its share (None: no question of the kind)."""
    return {
        str(fold.held_out): [share(fold.test, cats) for _, cats in COLUMNS]
        for fold in folds_by(lambda o: o.sample_id, outcomes)
    }


def render_folds(title: str, rows: Sequence[tuple[str, Sequence[Outcome]]]) -> str:
    """A block per row: a line per left-out conversation, then mean and [min-max]."""
    header = f"{'':<26}" + "".join(f"{name:>{_WIDTH}}" for name, _ in COLUMNS)
    lines = [title, header]
    for name, outcomes in rows:
        per_fold = fold_shares(outcomes)
        lines.append(f"{name}")
        for held_out, shares in per_fold.items():
            n = sum(1 for o in outcomes if o.sample_id == held_out)
            label = f"  {held_out} (n={n})"
            lines.append(f"{label:<26}" + "".join(_cell(s) for s in shares))
        columns = list(zip(*per_fold.values(), strict=True)) if per_fold else []
        present = [[v for v in column if v is not None] for column in columns]
        means = [spread(values) if values else None for values in present]
        lines.append(f"{'  mean':<26}" + "".join(_cell(m.mean if m else None) for m in means))
        lines.append(
            f"{'  [min-max]':<26}"
            + "".join(f"{f'[{m.low:.1f}-{m.high:.1f}]' if m else '-':>{_WIDTH}}" for m in means)
        )
    return "\n".join(lines)


def _cell(value: float | None) -> str:
    return f"{'-':>{_WIDTH}}" if value is None else f"{value:>{_WIDTH}.1f}"
