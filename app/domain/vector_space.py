"""What the vectors of a store are: made by an embedder, or placeholders of a service
without one (TG_EMBEDDER=none, full-text search only; docs/reembedding.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from thoughtgraph.domain.errors import InvalidInputError

# The name an embedder-less service records for its placeholder vectors: "none:<dimension>".
TEXT_ONLY_PREFIX = "none:"


def is_text_only(embedder_name: str) -> bool:
    """Whether vectors (or a store) recorded under this embedder name are placeholders."""
    return embedder_name.startswith(TEXT_ONLY_PREFIX)


@dataclass(frozen=True)
class VectorSpace:
    """One slot's vectors: the embedder that made them and its dimension. ``settings``:
    the embedder settings a re-embed chose (kind, model, dimension, API base), which every
    process uses to build the same embedder; None for the space the store was built in,
    whose embedder is the configured one."""

    slot: int
    embedder: str
    dimension: int
    settings: dict[str, Any] | None = None


@dataclass(frozen=True)
class VectorSpaces:
    """The store's record of its spaces: the active one, the one a re-embed is filling,
    and the one a switch retired until its indexes and vectors are dropped."""

    active: VectorSpace
    next: VectorSpace | None = None
    retired_slot: int | None = None
    started_at: int | None = None
    switched_at: int | None = None

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> VectorSpaces:
        active = VectorSpace(
            slot=int(row.get("activeSlot") or 0),
            embedder=str(row.get("embedder") or ""),
            dimension=int(row.get("dimension") or 0),
            settings=_settings(row.get("activeSettings")),
        )
        following = None
        if row.get("nextSlot") is not None:
            following = VectorSpace(
                slot=int(row["nextSlot"]),
                embedder=str(row.get("nextEmbedder") or ""),
                dimension=int(row.get("nextDimension") or 0),
                settings=_settings(row.get("nextSettings")),
            )
        retired = row.get("retiredSlot")
        return cls(
            active=active,
            next=following,
            retired_slot=None if retired is None else int(retired),
            started_at=_optional_int(row.get("startedAt")),
            switched_at=_optional_int(row.get("switchedAt")),
        )

    def space(self, slot: int) -> VectorSpace | None:
        for space in (self.active, self.next):
            if space is not None and space.slot == slot:
                return space
        return None


def settings_text(settings: Mapping[str, Any]) -> str:
    """Embedder settings as the store records them (a property holds no map)."""
    return json.dumps(dict(settings), sort_keys=True)


def _settings(value: Any) -> dict[str, Any] | None:
    if not value:
        return None
    parsed = json.loads(str(value))
    return dict(parsed) if isinstance(parsed, dict) else None


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)


def mean_direction(vectors: Sequence[npt.ArrayLike]) -> list[float]:
    """The unit vector along the sum of ``vectors``' directions: a topic's vector from its
    members' (features.topics), made again after an import or a re-embed."""
    units = [np.asarray(v, dtype=np.float64) for v in vectors]
    units = [v / (np.linalg.norm(v) or 1.0) for v in units]
    total = np.sum(units, axis=0)
    return [float(x) for x in total / (np.linalg.norm(total) or 1.0)]


EMBEDDER_KINDS = ("local", "litellm", "hash", "none")
MAX_DIMENSION = 8192


def embedder_overrides(
    kind: str,
    *,
    model: str | None = None,
    dimension: int | None = None,
    api_base: str | None = None,
) -> dict[str, Any]:
    """The settings a re-embed records for its embedder (never a key: each process uses
    its own), checked: what ``thoughtgraph reembed`` and the admin mutation accept."""
    if kind not in EMBEDDER_KINDS:
        raise InvalidInputError(
            f"unknown embedder {kind!r}; one of {', '.join(EMBEDDER_KINDS)}", field="embedder"
        )
    if dimension is not None and not 1 <= dimension <= MAX_DIMENSION:
        raise InvalidInputError(
            f"dimension must be between 1 and {MAX_DIMENSION}", field="dimension"
        )
    if kind == "hash" and dimension is None:
        raise InvalidInputError("the hash embedder needs a dimension", field="dimension")
    if kind == "litellm" and not model:
        raise InvalidInputError("a litellm embedder needs a model", field="model")
    # Every field, None where not given: nothing of the configured embedder's carries over.
    return {
        "embedder": kind,
        "embedding_model": model,
        "embedding_dimension": dimension,
        "embedding_api_base": api_base,
    }
