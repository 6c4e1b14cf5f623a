"""Optional OpenTelemetry tracing over OTLP/HTTP: GraphQL operations and engine statements.

Off unless ``TG_OTLP_ENDPOINT`` is set; then the SDK is imported and a tracer provider is
built for this runtime alone (never the global one, so two services in one process, or
tests, do not share it). Spans go out in batches from a background thread; closing the
runtime flushes what is left. Off, every span is a shared ``nullcontext``: no import, no
allocation per call.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Span, Tracer

TRACES_PATH = "/v1/traces"
_OFF: AbstractContextManager[None] = contextlib.nullcontext()


def traces_url(endpoint: str) -> str:
    """The OTLP/HTTP traces URL for a collector's base endpoint (or the full URL)."""
    endpoint = endpoint.rstrip("/")
    return endpoint if endpoint.endswith(TRACES_PATH) else endpoint + TRACES_PATH


class Tracing:
    """A tracer when configured; ``span`` is a no-op otherwise."""

    def __init__(self, provider: TracerProvider | None = None) -> None:
        self._provider = provider
        self._tracer: Tracer | None = provider.get_tracer("thoughtgraph") if provider else None

    @property
    def enabled(self) -> bool:
        return self._tracer is not None

    @classmethod
    def build(cls, endpoint: str | None, *, service_name: str, engine: str) -> Tracing:
        if not endpoint:
            return cls()
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        resource = Resource.create({"service.name": service_name, "db.system": engine})
        provider = TracerProvider(resource=resource)
        exporter = OTLPSpanExporter(endpoint=traces_url(endpoint), timeout=10)
        provider.add_span_processor(BatchSpanProcessor(exporter))
        return cls(provider)

    def span(
        self, name: str, attributes: Mapping[str, Any] | None = None
    ) -> AbstractContextManager[Span | None]:
        if self._tracer is None:
            return _OFF
        return self._started(name, attributes)

    @contextlib.contextmanager
    def _started(self, name: str, attributes: Mapping[str, Any] | None) -> Iterator[Span]:
        assert self._tracer is not None
        with self._tracer.start_as_current_span(name, attributes=dict(attributes or {})) as span:
            yield span

    def close(self) -> None:
        if self._provider is not None:
            self._provider.shutdown()  # exports what is still queued
