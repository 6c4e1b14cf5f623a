"""The service's Prometheus instruments, registered on a registry the runtime owns."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, GCCollector, Histogram

# Seconds: from a cached statement (sub-millisecond) to a slow LLM call.
LATENCY_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
    60.0,
)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
TASK_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0)


class Metrics:
    """Every instrument, on ``registry``. Label values are bounded: operation and statement
    names come from the schema and the statement library, never from free input."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry or CollectorRegistry(auto_describe=True)
        r = self.registry
        # The collector's work by generation (python_gc_*): how often a serving process
        # collects (thoughtgraph.garbage_collection).
        GCCollector(registry=r)
        self.graphql_requests = Counter(
            "tg_graphql_requests",
            "GraphQL operations served, by root fields, type and outcome.",
            ["operation", "type", "status"],
            registry=r,
        )
        self.graphql_latency = Histogram(
            "tg_graphql_request_seconds",
            "Time to serve a GraphQL operation, parse to result.",
            ["operation", "type"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.graphql_errors = Counter(
            "tg_graphql_errors",
            "GraphQL errors by extensions.code.",
            ["operation", "code"],
            registry=r,
        )
        self.statement_latency = Histogram(
            "tg_engine_statement_seconds",
            "Time an engine statement took, by statement name and mode.",
            ["statement", "mode"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.statement_errors = Counter(
            "tg_engine_statement_errors",
            "Engine statements that raised, by statement name.",
            ["statement"],
            registry=r,
        )
        self.embed_latency = Histogram(
            "tg_embedder_seconds",
            "Time to embed one call's texts.",
            ["embedder", "kind"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.embed_batch = Histogram(
            "tg_embedder_batch_size",
            "Texts embedded per call.",
            ["embedder", "kind"],
            buckets=BATCH_BUCKETS,
            registry=r,
        )
        self.worker_tasks = Counter(
            "tg_worker_tasks",
            "Worker tasks finished, by task and state (SUCCESS, FAILURE, RETRY, ...).",
            ["task", "state"],
            registry=r,
        )
        self.worker_task_latency = Histogram(
            "tg_worker_task_seconds",
            "Time a worker task ran.",
            ["task"],
            buckets=TASK_BUCKETS,
            registry=r,
        )
        self.llm_calls = Counter(
            "tg_llm_calls",
            "LLM calls made (provider calls, retries included), by namespace, prompt and outcome.",
            ["namespace", "prompt", "model", "status"],
            registry=r,
        )
        self.llm_tokens = Counter(
            "tg_llm_tokens",
            "LLM tokens used, by namespace and kind (prompt, completion).",
            ["namespace", "model", "kind"],
            registry=r,
        )
        self.llm_cost = Counter(
            "tg_llm_cost_usd",
            "What LLM calls cost in US dollars (0 where litellm knows no price).",
            ["namespace", "model"],
            registry=r,
        )
        self.llm_latency = Histogram(
            "tg_llm_call_seconds",
            "Time one LLM call took.",
            ["prompt", "model"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.writing_checks = Counter(
            "tg_writing_checks",
            "Texts a model wrote, checked against their writing style (domain/writing.py), by "
            "prompt, style, outcome (passed, trimmed, rejected) and attempt (first, repair).",
            ["prompt", "style", "outcome", "attempt"],
            registry=r,
        )
