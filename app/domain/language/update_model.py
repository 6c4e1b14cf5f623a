"""A small calibrated model over structural features of a pair: does the newer statement
replace the older one?

The rules (:mod:`rules_judge`) read one shape at a time; this model weighs what they see
together with shape-free evidence: how much of the older statement the newer keeps, which
words changed and of what kind (numbers, versions, names), change and additive cues, the
rule verdict itself, and the cosine of the two embeddings. Logistic regression (numpy, L2)
fitted by ``thoughtgraph eval updates --fit``; its weights and decision threshold ship as
data in ``update_weights.py`` (written by the fit, a Python module so it needs no
package-data entry). The threshold is chosen on the training folds for precision: at most
a fixed share of compatible pairs above it. Deterministic, microseconds a pair.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from thoughtgraph.domain.judgement import PairRelation
from thoughtgraph.domain.language import lexicon as lx
from thoughtgraph.domain.language.displacement import displaces_older_value
from thoughtgraph.domain.language.rules_judge import Finding, judge_texts
from thoughtgraph.domain.language.state_change import ends_older_state
from thoughtgraph.domain.language.words import TEXT_CACHE_SIZE, lasting_now, plain_words

MODEL_FILE = "update_weights.py"
_NUMBER = re.compile(r"\d")
_VERSION = re.compile(r"^v?\d+(\.\d+)+$|^v\d+$")
_REASON_CUES = (
    "because",
    "since",
    "due to",
    "to avoid",
    "to keep",
    "so that",
    "following",
    "after",
    "under the new",
    "as part of",
    "for the",
)
_ENDED_CUES = (
    "back from",
    "returned",
    "ended",
    "finished",
    "over",
    "recovered",
    "resumed",
    "left",
    "moved to",
    "joined",
    "stepped down",
    "handed over",
    "took over",
)

FEATURES: tuple[str, ...] = (
    "bias",
    "similarity",
    "rule_update",
    "rule_conflict",
    "rule_confidence",
    "kept_of_older",
    "new_in_newer",
    "head_overlap",
    "number_changed",
    "version_changed",
    "name_changed",
    "only_additions",
    "change_cue",
    "negating_cue",
    "negation_flip",
    "additive_cue",
    "reason_cue",
    "ended_cue",
    "state_ended",
    "value_displaced",
    "length_ratio",
    "opinion_cue",
)


@dataclass(frozen=True)
class UpdateModel:
    weights: tuple[float, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    threshold: float
    conflict_above: float  # a flagged pair without a change cue above this is an update

    def probability(self, features: np.ndarray) -> np.ndarray:
        z = (features - np.asarray(self.mean)) / np.asarray(self.scale)
        z[..., 0] = 1.0
        result: np.ndarray = 1.0 / (1.0 + np.exp(-(z @ np.asarray(self.weights))))
        return result

    def to_json(self) -> str:
        payload = {
            "features": list(FEATURES),
            "weights": [round(w, 6) for w in self.weights],
            "mean": [round(m, 6) for m in self.mean],
            "scale": [round(s, 6) for s in self.scale],
            "threshold": round(self.threshold, 6),
            "conflict_above": round(self.conflict_above, 6),
        }
        return json.dumps(payload, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> UpdateModel:
        data = json.loads(text)
        if tuple(data["features"]) != FEATURES:
            raise ValueError("update_weights.py was fitted on other features; re-fit it")
        return cls(
            weights=tuple(data["weights"]),
            mean=tuple(data["mean"]),
            scale=tuple(data["scale"]),
            threshold=float(data["threshold"]),
            conflict_above=float(data["conflict_above"]),
        )


def shipped_model() -> UpdateModel:
    from thoughtgraph.domain.language.update_weights import MODEL

    return UpdateModel.from_json(MODEL)


def write_model(model: UpdateModel, note: str) -> Path:
    """Write the fitted model where :func:`shipped_model` reads it."""
    path = model_path()
    path.write_text(
        f'"""Fitted by ``thoughtgraph eval updates --fit`` ({note}); do not edit by hand."""\n\n'
        f'MODEL = """\\\n{model.to_json()}"""\n'
    )
    return path


def model_path() -> Path:
    return Path(__file__).resolve().with_name(MODEL_FILE)  # the source, not a build link


def _has(text: str, cues: tuple[str, ...] | frozenset[str]) -> bool:
    padded = f" {' '.join(plain_words(text))} "
    return any(f" {cue} " in padded for cue in cues)


@functools.lru_cache(maxsize=TEXT_CACHE_SIZE)  # a scan reads each text against many others
def _has_change_cue(text: str) -> bool:
    words = plain_words(text)
    return _has(
        " ".join(w for i, w in enumerate(words) if not lasting_now(words, i)), lx.CHANGE_CUES
    )


_SENTENCE_END = (".", "!", "?", ":", ";")


def _names(text: str) -> set[str]:
    """Capitalised words but the first of each sentence (and after a speaker's colon):
    "Thanks, Maria! They help" names Maria, not "Thanks" or "They"."""
    names = set()
    for match in re.finditer(r"\S+", text):
        before = text[: match.start()].rstrip()
        if match.group(0)[:1].isupper() and before and not before.endswith(_SENTENCE_END):
            names.add(match.group(0).strip(".,;:!?"))
    return names


def features(
    older: str, newer: str, similarity: float, finding: Finding | None = None
) -> np.ndarray:
    """The feature vector of one pair (in :data:`FEATURES` order)."""
    found = finding if finding is not None else judge_texts(older, newer)
    old_words, new_words = plain_words(older), plain_words(newer)
    old_content = {w for w in old_words if w not in lx.STOP_WORDS}
    new_content = {w for w in new_words if w not in lx.STOP_WORDS}
    only_old, only_new = old_content - new_content, new_content - old_content
    kept = len(old_content & new_content) / len(old_content) if old_content else 0.0
    fresh = len(only_new) / len(new_content) if new_content else 0.0
    head_old = [w for w in old_words if w not in lx.STOP_WORDS][:3]
    head_new = {w for w in new_words if w not in lx.STOP_WORDS}
    head = sum(w in head_new for w in head_old) / len(head_old) if head_old else 0.0
    names_old, names_new = _names(older), _names(newer)
    old_neg = _has(older, lx.NEGATIONS)
    new_neg = _has(newer, lx.NEGATIONS) or _has(newer, lx.NEGATING_CUES)
    values = [
        1.0,
        similarity,
        float(found.relation is PairRelation.UPDATE),
        float(found.relation is PairRelation.CONFLICT),
        found.confidence if found.relation is not PairRelation.COMPATIBLE else -found.confidence,
        kept,
        fresh,
        head,
        float(
            any(_NUMBER.search(w) for w in only_old) and any(_NUMBER.search(w) for w in only_new)
        ),
        float(any(_VERSION.match(w) for w in only_old | only_new)),
        float(bool(names_old - names_new) and bool(names_new - names_old)),
        float(not only_old),
        float(_has_change_cue(newer) and not _has_change_cue(older)),
        float(_has(newer, lx.NEGATING_CUES)),
        float(old_neg != new_neg),
        float(_has(newer, lx.ADDITIVE_CUES) and not _has(older, lx.ADDITIVE_CUES)),
        float(_has(newer, _REASON_CUES)),
        float(_has(newer, _ENDED_CUES)),
        float(ends_older_state(older, newer)),
        float(displaces_older_value(older, newer)),
        min(len(new_words), 60) / max(len(old_words), 1),
        float(_has(newer, ("think", "feel", "love", "like", "prefer", "seems", "great", "nice"))),
    ]
    return np.asarray(values, dtype=np.float64)


def fit(
    x: np.ndarray,
    y: np.ndarray,
    *,
    max_compatible_flagged: float,
    l2: float = 1.0,
    steps: int = 3000,
) -> UpdateModel:
    """Logistic regression by gradient descent on standardised features; the threshold is
    the lowest score that keeps the training compatible pairs flagged at or below
    ``max_compatible_flagged`` (precision first)."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    mean[0], scale[0] = 0.0, 1.0
    scale = np.where(scale < 1e-9, 1.0, scale)
    z = (x - mean) / scale
    w = np.zeros(x.shape[1])
    n = len(y)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        grad = z.T @ (p - y) / n + l2 * np.r_[0.0, w[1:]] / n
        w -= 0.5 * grad
    model = UpdateModel(tuple(w.tolist()), tuple(mean.tolist()), tuple(scale.tolist()), 0.5, 1.0)
    compatible = model.probability(x.copy())[y == 0]
    allowed = int(np.floor(max_compatible_flagged * len(compatible)))
    threshold = lowest_threshold(compatible, allowed)
    return UpdateModel(model.weights, model.mean, model.scale, max(threshold, 0.5), 1.0)


def lowest_threshold(scores: np.ndarray, allowed: int) -> float:
    """The lowest threshold that leaves at most ``allowed`` of ``scores`` at or above it:
    just above the highest score past the allowed ones; 0.5 when every score may reach
    it, 1.0 when none may (``allowed`` below 0)."""
    if allowed < 0:
        return 1.0
    ranked = np.sort(scores)[::-1]
    return float(ranked[allowed]) + 1e-6 if len(ranked) > allowed else 0.5
