"""How many thoughts each query word matches, and how many a namespace holds, remembered
for a minute per process.

app/store/fulltext.py plans a full-text query from these counts; counting costs a
read of up to UNION_BUDGET + 1 matches per common word, a few milliseconds a search in a
large namespace, for a figure that moves slowly. A count only decides whether a word is
required or only ranks, so a minute-old one serves as well. A word that matched nothing
is not remembered: a thought written since may carry it, and it must be found. The
namespace's size is BM25's N (app/domain/ranking/keywords.py), which a minute moves
even less.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence

TTL_S = 60.0
MAX_ENTRIES = 10_000


class TermCounts:
    def __init__(
        self, *, clock: Callable[[], float] = time.monotonic, max_entries: int = MAX_ENTRIES
    ) -> None:
        self._clock = clock
        self._max_entries = max_entries
        self._counts: OrderedDict[tuple[str, str], tuple[int, float]] = OrderedDict()
        self._sizes: OrderedDict[str, tuple[int, float]] = OrderedDict()

    def known(self, namespace: str, terms: Sequence[str]) -> dict[str, int]:
        """The remembered, still fresh counts among ``terms``."""
        now = self._clock()
        found: dict[str, int] = {}
        for term in terms:
            entry = self._counts.get((namespace, term))
            if entry is None:
                continue
            count, at = entry
            if now - at > TTL_S:
                del self._counts[(namespace, term)]
                continue
            found[term] = count
        return found

    def remember(self, namespace: str, counts: Mapping[str, int]) -> None:
        now = self._clock()
        for term, count in counts.items():
            if count <= 0:
                continue
            key = (namespace, term)
            self._counts[key] = (count, now)
            self._counts.move_to_end(key)
        while len(self._counts) > self._max_entries:
            self._counts.popitem(last=False)

    def known_size(self, namespace: str) -> int | None:
        """The namespace's remembered size, if still fresh."""
        entry = self._sizes.get(namespace)
        if entry is None or self._clock() - entry[1] > TTL_S:
            return None
        return entry[0]

    def remember_size(self, namespace: str, size: int) -> None:
        self._sizes[namespace] = (size, self._clock())
        self._sizes.move_to_end(namespace)
        while len(self._sizes) > self._max_entries:
            self._sizes.popitem(last=False)
