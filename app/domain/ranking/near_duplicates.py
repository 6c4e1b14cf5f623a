"""Newer first among near-duplicates: when two hits say almost the same thing about the
same subject, the one the service learned later takes the better of their two places,
before any judge has decided that it replaces the other.

Near-duplicate is measured on the texts (content-word overlap, Jaccard), so it needs no
embeddings and is the same on every engine; only hits already in the result move, and
only with each other: every other hit keeps its place. A pair where either is superseded
has been decided (by a judge or a person) and keeps the order the ranking gave it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

from thoughtgraph.domain.models import SearchHit
from thoughtgraph.domain.ranking.stopwords import STOPWORDS

NEAR_DUPLICATE_OVERLAP = 0.5  # content words shared / all content words of the two
_WORD = re.compile(r"[a-z0-9]+")

H = TypeVar("H", bound=SearchHit)


def _content(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in STOPWORDS)


def near_duplicates(a: str, b: str, *, overlap: float = NEAR_DUPLICATE_OVERLAP) -> bool:
    left, right = _content(a), _content(b)
    union = left | right
    return bool(union) and len(left & right) / len(union) >= overlap


def newer_first(hits: Sequence[H], *, overlap: float = NEAR_DUPLICATE_OVERLAP) -> list[H]:
    """``hits`` with each group of near-duplicates reordered newest first, in the places
    the group held (scores stay as they were)."""
    ordered = list(hits)
    words = [_content(hit.thought.content) for hit in ordered]
    for i in range(len(ordered)):
        for j in range(i + 1, len(ordered)):
            union = words[i] | words[j]
            if not union or len(words[i] & words[j]) / len(union) < overlap:
                continue
            first, second = ordered[i].thought, ordered[j].thought
            if first.superseded_by is not None or second.superseded_by is not None:
                continue  # decided already (a judge or a person): the ranking says so
            if second.created_at_ms > first.created_at_ms:
                ordered[i], ordered[j] = ordered[j], ordered[i]
                words[i], words[j] = words[j], words[i]
    return ordered
