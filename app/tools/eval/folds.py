"""Folds for honest figures: leave one group out (a LoCoMo conversation, an update-set
domain), choose anything tuned on the other groups, report it on the one left out.

Use::

    from thoughtgraph.tools.eval.folds import choose_on_train, folds_by

    for fold in folds_by(lambda q: q.sample_id, questions):
        chosen = choose_on_train(
            candidates=[0.2, 0.5, 0.8],
            score=lambda weight, items: all_at_10(items, weight),
            fold=fold,
        )
        print(fold.held_out, chosen.value, chosen.train_score, chosen.test_score)

``choose_on_train`` never looks at the held-out items to choose; ``test_score`` is the
only figure a table may report as the parameter's quality. ``spread`` gives the mean and
the min-max across folds that every table prints.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
P = TypeVar("P")


@dataclass(frozen=True)
class Fold(Generic[T]):
    held_out: Hashable  # the group left out
    train: tuple[T, ...]
    test: tuple[T, ...]


def folds_by(key: Callable[[T], Hashable], items: Iterable[T]) -> Iterator[Fold[T]]:
    """One fold per group (first-seen order): its items are the test set, every other
    group's the training set. A single group gives one fold with an empty training set."""
    listed = list(items)
    groups = list(dict.fromkeys(key(item) for item in listed))
    for group in groups:
        yield Fold(
            held_out=group,
            train=tuple(item for item in listed if key(item) != group),
            test=tuple(item for item in listed if key(item) == group),
        )


@dataclass(frozen=True)
class Choice(Generic[P]):
    value: P
    train_score: float
    test_score: float


def choose_on_train(
    candidates: Sequence[P], score: Callable[[P, Sequence[T]], float], fold: Fold[T]
) -> Choice[P]:
    """The candidate with the best score on the fold's training items (the first on a
    tie), and its score on the held-out items."""
    if not candidates:
        raise ValueError("choose_on_train needs at least one candidate")
    best = max(candidates, key=lambda c: score(c, fold.train))
    return Choice(
        value=best, train_score=score(best, fold.train), test_score=score(best, fold.test)
    )


@dataclass(frozen=True)
class Spread:
    mean: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.mean:.1f} [{self.low:.1f}-{self.high:.1f}]"


def spread(values: Sequence[float]) -> Spread:
    if not values:
        return Spread(0.0, 0.0, 0.0)
    return Spread(sum(values) / len(values), min(values), max(values))
