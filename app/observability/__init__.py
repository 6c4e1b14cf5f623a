"""Operating the service: Prometheus metrics and optional OpenTelemetry tracing.

Nothing here is a module-level singleton: each runtime builds its own ``Telemetry``
(app/observability/telemetry.py: a metrics registry it owns, a tracer when an OTLP
endpoint is configured) and passes it to what it instruments, so two services in one
process never share counters.
"""
