"""What a runtime measures with: its metrics registry and its tracer, in one object."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator

from app.domain.judgement import LLMUsage
from app.observability.metrics import Metrics
from app.observability.queue_depth import QueueDepthCollector, QueueDepthSource
from app.observability.tracing import Tracing
from app.settings import Settings

# LLM calls made outside any namespace's budget (episode extraction's meter has none).
NO_NAMESPACE = "(none)"


class Telemetry:
    def __init__(self, metrics: Metrics | None = None, tracing: Tracing | None = None) -> None:
        self.metrics = metrics or Metrics()
        self.tracing = tracing or Tracing()
        self._queue_collector: QueueDepthCollector | None = None

    @classmethod
    def from_settings(cls, settings: Settings, *, service_name: str = "thoughtgraph") -> Telemetry:
        return cls(
            Metrics(),
            Tracing.build(
                settings.otlp_endpoint, service_name=service_name, engine=settings.engine
            ),
        )

    @contextlib.contextmanager
    def statement(self, name: str, *, write: bool) -> Iterator[None]:
        """Time one engine statement (and trace it when tracing is on)."""
        mode = "write" if write else "read"
        started = time.perf_counter()
        with self.tracing.span(f"cypher {name}", {"db.operation.name": name, "tg.mode": mode}):
            try:
                yield
            except BaseException:
                self.metrics.statement_errors.labels(name).inc()
                raise
            finally:
                self.metrics.statement_latency.labels(name, mode).observe(
                    time.perf_counter() - started
                )

    def watch_queue(self, queue: object) -> None:
        """Report ``queue``'s depth at scrape time, if it can tell (a Celery queue can)."""
        if self._queue_collector is not None:
            self.metrics.registry.unregister(self._queue_collector)
            self._queue_collector = None
        if isinstance(queue, QueueDepthSource):
            self._queue_collector = QueueDepthCollector(queue)
            self.metrics.registry.register(self._queue_collector)

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
