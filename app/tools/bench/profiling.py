"""Where a maintenance run spends its time: per named statement, and (on request) per
Python function.

The statement timer wraps one store instance's ``_read`` and ``_write`` (nothing else in
the process is touched), so every statement a run sends is timed from the call to its
parsed rows: engine time plus the client's round trip and row parsing. What the run
spends outside statements is its Python work (judging pairs, planning merges, topics)
and the model's (merged thoughts are embedded again).
"""

from __future__ import annotations

import cProfile
import io
import pstats
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from thoughtgraph.store.cypher_store import CypherGraphStore

Row = dict[str, Any]
Statement = Callable[..., Awaitable[list[Row]]]
AsyncCall = Callable[..., Awaitable[Any]]


@dataclass
class StatementStats:
    calls: int = 0
    seconds: float = 0.0
    rows: int = 0


@dataclass
class StatementTimer:
    stats: dict[str, StatementStats] = field(default_factory=dict)

    def attach(self, store: CypherGraphStore) -> None:
        for attribute in ("_read", "_write"):
            original: Statement = getattr(store, attribute)
            setattr(store, attribute, self._timed(original))

    def _timed(self, original: Statement) -> Statement:
        async def timed(
            name: str, params: Mapping[str, Any], *, namespace: str | None
        ) -> list[Row]:
            started = time.perf_counter()
            try:
                rows = await original(name, params, namespace=namespace)
            finally:
                entry = self.stats.setdefault(name, StatementStats())
                entry.calls += 1
                entry.seconds += time.perf_counter() - started
            entry.rows += len(rows)
            return rows

        return timed

    def reset(self) -> None:
        self.stats.clear()

    @property
    def total_seconds(self) -> float:
        return sum(entry.seconds for entry in self.stats.values())

    def top(self, count: int) -> list[tuple[str, StatementStats]]:
        ranked = sorted(self.stats.items(), key=lambda item: item[1].seconds, reverse=True)
        return ranked[:count]


@dataclass
class PhaseTimer:
    """Seconds spent in chosen async methods of chosen objects (the pair judge, the
    model), wrapped on the instance and put back by ``detach``. Phases attached with a
    ``together`` name also count, under that name, the wall time during which any of them
    runs: phases that overlap (a read beside a write) sum to more than that."""

    seconds: dict[str, float] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    _wrapped: list[tuple[object, str]] = field(default_factory=list)
    _running: dict[str, tuple[int, float]] = field(default_factory=dict)  # together: (n, since)

    def attach(
        self, phase: str, target: object, attribute: str, *, together: str | None = None
    ) -> None:
        original: AsyncCall = getattr(target, attribute)

        async def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            if together is not None:
                self._enter(together, started)
            try:
                return await original(*args, **kwargs)
            finally:
                ended = time.perf_counter()
                self._add(phase, ended - started)
                if together is not None:
                    self._leave(together, ended)

        setattr(target, attribute, timed)
        self._wrapped.append((target, attribute))

    def _add(self, phase: str, seconds: float) -> None:
        self.seconds[phase] = self.seconds.get(phase, 0.0) + seconds
        self.calls[phase] = self.calls.get(phase, 0) + 1

    def _enter(self, together: str, now: float) -> None:
        running, since = self._running.get(together, (0, now))
        self._running[together] = (running + 1, since)

    def _leave(self, together: str, now: float) -> None:
        running, since = self._running[together]
        if running > 1:
            self._running[together] = (running - 1, since)
            return
        del self._running[together]
        self._add(together, now - since)

    def detach(self) -> None:
        for target, attribute in self._wrapped:
            delattr(target, attribute)  # the class's method shows through again
        self._wrapped.clear()

    def reset(self) -> None:
        self.seconds.clear()
        self.calls.clear()


class FunctionProfile:
    """cProfile around one measured call (it slows Python code down, so a profiled run's
    time is not the reported one). The loop runs in this thread, so coroutines are seen."""

    def __init__(self, dump_to: Path) -> None:
        self.dump_to = dump_to
        self._profile = cProfile.Profile()

    def __enter__(self) -> FunctionProfile:
        self._profile.enable()
        return self

    def __exit__(self, *exc: object) -> None:
        self._profile.disable()
        self.dump_to.parent.mkdir(parents=True, exist_ok=True)
        self._profile.dump_stats(str(self.dump_to))

    def summary(self, count: int, sort: str = "tottime") -> str:
        out = io.StringIO()
        stats = pstats.Stats(self._profile, stream=out)
        stats.strip_dirs().sort_stats(sort).print_stats(count)
        return out.getvalue()
