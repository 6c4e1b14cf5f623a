"""The update model's threshold is calibrated on what the shipped judge flags: the
compatible pairs it leaves to the model, after the flags its rules path spends
(app/tools/eval/updates_folds.py)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from thoughtgraph.tools.eval.updates import EvalPair
from thoughtgraph.tools.eval.updates_folds import (
    ALLOWANCES,
    MAX_FLAGGED_OUT_OF_FOLD,
    Featured,
    OutOfFold,
    calibrated_fit,
)

_GROUPS = 4
_PER_GROUP = 100  # half updates, half compatibles: 200 compatibles allow 2 flags at 1%


def _featured(seed: int = 7) -> Featured:
    rng = np.random.default_rng(seed)
    n = _GROUPS * _PER_GROUP
    y = np.tile(np.r_[np.ones(_PER_GROUP // 2), np.zeros(_PER_GROUP // 2)], _GROUPS)
    # One informative feature (bias first, as the model's features are), overlapping classes.
    signal = rng.normal(loc=np.where(y == 1, 1.0, -1.0), scale=1.2)
    x = np.column_stack([np.ones(n), signal, rng.normal(size=n)])
    pairs = [
        EvalPair(
            id=f"p{i}",
            kind="update" if y[i] else "compatible",
            older="o",
            newer="n",
            domain=f"d{i // _PER_GROUP}",
        )
        for i in range(n)
    ]
    return Featured(pairs, x, y, np.full(n, 0.9), np.zeros(n), np.zeros(n), np.ones(n))


def _empty_extra() -> Featured:
    return Featured([], np.zeros((0, 3)), np.zeros(0), np.zeros(0), *[np.zeros(0)] * 3)


def _groups(featured: Featured) -> np.ndarray:
    return np.asarray([p.domain for p in featured.pairs])


def test_compatibles_the_judge_never_leaves_to_the_model_lower_the_threshold() -> None:
    plain = _featured()
    model = calibrated_fit(plain, _groups(plain), _empty_extra())
    compatible_scores = model.probability(plain.x.copy())[plain.y == 0]
    # The most update-like compatibles are about different things: the veto keeps them
    # out, so they must not hold the threshold up.
    vetoed = np.zeros(len(plain.y))
    worst = np.argsort(np.where(plain.y == 0, model.probability(plain.x.copy()), -1.0))[-10:]
    vetoed[worst] = 1.0
    gated = replace(plain, different=vetoed)
    lowered = calibrated_fit(gated, _groups(gated), _empty_extra())
    assert 0.5 <= lowered.threshold < model.threshold
    assert lowered.weights == model.weights
    assert (compatible_scores >= model.threshold).sum() <= 2


def test_flags_of_the_rules_path_spend_the_allowance() -> None:
    plain = _featured()
    model = calibrated_fit(plain, _groups(plain), _empty_extra())
    allowed = int(np.floor(MAX_FLAGGED_OUT_OF_FOLD * (plain.y == 0).sum()))
    assert allowed == 2
    # Two compatibles of several claim sentences that the rules flag: nothing is left for
    # the model, whose threshold rises above every compatible it decides.
    single = np.ones(len(plain.y))
    rules = np.zeros(len(plain.y))
    spent = np.flatnonzero(plain.y == 0)[:2]
    single[spent], rules[spent] = 0.0, 1.0
    gated = replace(plain, single=single, rules=rules)
    raised = calibrated_fit(gated, _groups(gated), _empty_extra())
    assert raised.threshold > model.threshold
    # Three flagged by the rules overspend it: the model flags nothing.
    spent = np.flatnonzero(plain.y == 0)[:3]
    single[spent], rules[spent] = 0.0, 1.0
    over = calibrated_fit(
        replace(plain, single=single, rules=rules), _groups(plain), _empty_extra()
    )
    assert over.threshold == 1.0


def test_the_allowance_keeps_a_margin_when_the_target_overflags_new_groups() -> None:
    """A threshold set to let exactly the target through on the rows it is set on lets
    more through on a group it never saw; the allowance is narrowed, on the training
    groups alone, until each group judged by the others' threshold stays within it."""
    rng = np.random.default_rng(3)
    scores, groups, y = [], [], []
    for group in range(3):
        compatibles = np.full(400, 0.1)
        compatibles[:8] = rng.uniform(0.55, 0.95, 8)  # the look-alikes that read as changes
        scores += [*compatibles, *np.full(400, 0.9)]
        groups += [f"g{group}"] * 800
        y += [0] * 400 + [1] * 400
    n = len(y)
    scored = OutOfFold(
        np.asarray(scores), np.asarray(y), np.ones(n, bool), np.zeros(n, bool), np.asarray(groups)
    )
    assert scored.flagged_held_out(ALLOWANCES[0]) > MAX_FLAGGED_OUT_OF_FOLD
    chosen = scored.widest_allowance_that_holds()
    assert chosen < ALLOWANCES[0]
    assert scored.flagged_held_out(chosen) <= MAX_FLAGGED_OUT_OF_FOLD
    assert scored.threshold(chosen) > scored.threshold(ALLOWANCES[0])
