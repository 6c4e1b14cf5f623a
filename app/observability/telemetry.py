"""What a runtime measures with: its metrics registry and its tracer, in one object."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any, TypeVar

from prometheus_client.registry import Collector

from thoughtgraph.domain.judgement import LLMUsage
from thoughtgraph.observability.metrics import Metrics
from thoughtgraph.observability.queue_depth import QueueDepthCollector, QueueDepthSource
from thoughtgraph.observability.tracing import Tracing
from thoughtgraph.observability.write_groups import WriteGroupCollector, WriteGroupSource
from thoughtgraph.settings import Settings

C = TypeVar("C", bound=Collector)

# LLM calls made outside any namespace's budget (episode extraction's meter has none).
NO_NAMESPACE = "(none)"


class _StatementTimer:
    """Times one statement at a time per ``started()``: a new measurement each call."""

    __slots__ = ("_errors", "_latency")

    def __init__(self, latency: Any, errors: Any) -> None:
        self._latency = latency
        self._errors = errors

    def started(self) -> _Timing:
        return _Timing(self._latency, self._errors)


class _Timing:
    __slots__ = ("_errors", "_latency", "_started")

    def __init__(self, latency: Any, errors: Any) -> None:
        self._latency = latency
        self._errors = errors
        self._started = 0.0

    def __enter__(self) -> None:
        self._started = time.perf_counter()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._latency.observe(time.perf_counter() - self._started)
        if exc_type is not None:
            self._errors.inc()


class Telemetry:
    def __init__(self, metrics: Metrics | None = None, tracing: Tracing | None = None) -> None:
        self.metrics = metrics or Metrics()
        self.tracing = tracing or Tracing()
        self._queue_collector: QueueDepthCollector | None = None
        self._write_group_collector: WriteGroupCollector | None = None
        self._statement_timers: dict[tuple[str, bool], _StatementTimer] = {}

    @classmethod
    def from_settings(cls, settings: Settings, *, service_name: str = "thoughtgraph") -> Telemetry:
        return cls(
            Metrics(),
            Tracing.build(
                settings.otlp_endpoint, service_name=service_name, engine=settings.engine
            ),
        )

    def statement(self, name: str, *, write: bool) -> AbstractContextManager[object]:
        """Time one engine statement (and trace it when tracing is on). Runs around every
        statement, so the timer is a plain object over cached label children."""
        key = (name, write)
        timer = self._statement_timers.get(key)
        if timer is None:
            mode = "write" if write else "read"
            timer = self._statement_timers[key] = _StatementTimer(
                self.metrics.statement_latency.labels(name, mode),
                self.metrics.statement_errors.labels(name),
            )
        if not self.tracing.enabled:
            return timer.started()
        return self._traced(timer, name, "write" if write else "read")

    @contextlib.contextmanager
    def _traced(self, timer: _StatementTimer, name: str, mode: str) -> Iterator[None]:
        with (
            self.tracing.span(f"cypher {name}", {"db.operation.name": name, "tg.mode": mode}),
            timer.started(),
        ):
            yield

    def watch_queue(self, queue: object) -> None:
        """Report ``queue``'s depth at scrape time, if it can tell (a Celery queue can)."""
        collector = QueueDepthCollector(queue) if isinstance(queue, QueueDepthSource) else None
        self._queue_collector = self._swap(self._queue_collector, collector)

    def watch_store(self, store: object) -> None:
        """Report how ``store`` grouped its writes at scrape time, if it groups them."""
        collector = WriteGroupCollector(store) if isinstance(store, WriteGroupSource) else None
        self._write_group_collector = self._swap(self._write_group_collector, collector)

    def _swap(self, old: C | None, new: C | None) -> C | None:
        """``new`` registered in place of ``old`` (either may be None)."""
        if old is not None:
            self.metrics.registry.unregister(old)
        if new is not None:
            self.metrics.registry.register(new)
        return new

    def close(self) -> None:
        self.tracing.close()

    def llm_call(
        self,
        *,
        namespace: str | None,
        prompt: str,
        model: str,
        status: str,
        seconds: float,
        usage: LLMUsage | None,
    ) -> None:
        """An LLM provider call (app/llm/client.py's observer)."""
        m = self.metrics
        space = namespace or NO_NAMESPACE
        m.llm_calls.labels(space, prompt, model, status).inc()
        m.llm_latency.labels(prompt, model).observe(seconds)
        if usage is not None:
            m.llm_tokens.labels(space, model, "prompt").inc(usage.prompt_tokens)
            m.llm_tokens.labels(space, model, "completion").inc(usage.completion_tokens)
            m.llm_cost.labels(space, model).inc(usage.cost_usd)

    def writing_check(self, *, prompt: str, style: str, outcome: str, attempt: str) -> None:
        """A text of an LLM answer checked against its writing style (app/llm/client.py)."""
        self.metrics.writing_checks.labels(prompt, style, outcome, attempt).inc()
