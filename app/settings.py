"""Service settings, read from the environment (prefix ``TG_``) and an optional ``.env``.

Settings are built by the caller (CLI, app lifespan, worker start) and passed in;
nothing here runs at import time.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PACKAGE_DIR = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_DIR.parent  # in a source checkout (or editable install)


class EmbedderKind(StrEnum):
    LOCAL = "local"  # sentence-transformers all-MiniLM-L6-v2, shipped offline
    LITELLM = "litellm"  # any hosted embedding model litellm knows
    HASH = "hash"  # deterministic pseudo-random unit vectors: benchmarks and wiring tests only
    # No embedder: full-text search only (docs/reembedding.md); thoughts keep placeholder
    # vectors until `thoughtgraph reembed` gives them real ones.
    NONE = "none"


class FsyncPolicy(StrEnum):
    EVERYSEC = "everysec"  # at most ~1 s of acknowledged writes lost on an OS crash or power cut
    ALWAYS = "always"  # fsync before every reply: nothing acknowledged is lost, slower writes


def default_data_dir() -> Path:
    return Path.home() / ".local" / "share" / "thoughtgraph"


def default_cypher_dir() -> Path:
    """The statement library: ``app/cypher`` in an installed wheel, where the build puts the
    repository's top-level ``cypher/`` (pyproject.toml maps it), else that ``cypher/`` itself
    (a source checkout or an editable install, which have no ``app/cypher``)."""
    packaged = PACKAGE_DIR / "cypher"
    return packaged if packaged.is_dir() else REPO_ROOT / "cypher"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="TG_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    data_dir: Path = Field(default_factory=default_data_dir)
    cypher_dir: Path = Field(default_factory=default_cypher_dir)

    # Neo4j: used when neo4j_uri is set, otherwise the embedded FalkorDB engine runs.
    neo4j_uri: str | None = None
    neo4j_user: str = "neo4j"
    neo4j_password: SecretStr = SecretStr("")
    neo4j_database: str = "neo4j"

    # Embedded FalkorDB engine.
    falkordb_graph: str = "thoughtgraph"
    falkordb_fsync: FsyncPolicy = FsyncPolicy.EVERYSEC
    falkordb_start_timeout_s: float = 20.0
    # How long a start may take while the engine loads its data. It rebuilds every index
    # as it loads and answers nothing meanwhile: seconds after a clean stop, which drops
    # the vector indexes (app/store/falkordb/restarts.py); minutes on a large store after
    # a crash (docs/guide/embedded-engine.md, "Restarts").
    falkordb_load_timeout_s: float = 900.0
    # How long a start waits for the vector indexes a clean stop dropped, before it serves
    # with searches by words alone (readiness says "degraded") until they are built.
    falkordb_index_build_wait_s: float = 2.0
    # Writes are refused (STORE_FULL) while the data dir's disk has less free space than
    # this, so the engine never meets a full disk mid-write.
    min_free_disk_bytes: int = 64 * 1024 * 1024
    # How often the service looks at its engine process, restarting it if it died.
    engine_watch_interval_s: float = 0.5

    embedder: EmbedderKind = EmbedderKind.LOCAL
    embedding_model: str | None = None  # litellm model name; ignored by `local`
    embedding_dimension: int | None = None  # required by `hash`, optional for `litellm`
    embedding_api_base: str | None = None
    embedding_api_key: SecretStr | None = None
    embedding_batch_size: int = 32

    # LLM (through litellm). Without llm_model every LLM feature takes its deterministic
    # offline path: rule-based contradiction judge, extractive summaries and extraction.
    llm_model: str | None = None
    llm_api_base: str | None = None
    llm_api_key: SecretStr | None = None
    llm_temperature: float = 0.0
    llm_max_tokens: int = 1024
    llm_timeout_s: float = 30.0
    llm_retries: int = 4  # provider rate limits (429) and transient errors, with backoff
    llm_pairs_per_call: int = 8  # pairs judged in one prompt
    llm_max_calls_per_run: int = 50  # per namespace and run; beyond it the rules judge
    llm_cache: bool = True  # answers cached by input hash in <data_dir>/llm-cache.sqlite3

    # Knowledge maintenance (topics, links, contradictions, consolidation, forgetting).
    related_min_strength: float = 0.6  # RELATED_TO only at or above this similarity
    related_top_k: int = 5
    topic_assign_similarity: float = 0.7
    topic_summary_min_unsummarised: int = 5  # lazy: summarise only topics with this many new
    topic_summary_max_words: int = 150
    dedupe_similarity: float = 0.92
    contradiction_candidates: int = 20  # most similar thoughts judged against a new one
    contradiction_min_similarity: float = 0.55
    rejudge_after_days: int = 14  # a judged pair is not judged again before this
    consolidation_window_hours: int = 72
    consolidation_min_importance: int = 3
    consolidation_min_access_count: int = 5  # "frequently retrieved"
    consolidation_batch_size: int = 200
    # A run reads the namespace's vectors once and finds each page's neighbours in memory
    # (float32, 1.5 KB a thought at 384 dimensions); larger namespaces ask the engine.
    consolidation_memory_neighbours_max: int = 200_000
    forget_after_days: int = 60  # not accessed for this long, not pinned, low importance
    forget_below_importance: int = 3
    purge_after_days: int = 30  # soft-deleted thoughts are purged this long after
    superseded_rank_factor: float = 0.5  # a superseded hit's score is multiplied by this
    # An insight's (kind insight: what the insights job inferred about a person) score is
    # multiplied by this, so it never outranks what was said as plainly.
    insight_rank_factor: float = Field(default=0.5, ge=0, le=1)

    # Context assembly (app/context). Tokens are counted with context_tokenizer_model's
    # tokenizer through litellm, offline; unset: llm_model's, else gpt-4o's (o200k_base).
    context_budget: int = 8000
    context_session_budget: int = 2000  # the session-start block, tags included
    context_tokenizer_model: str | None = None
    # An open contradiction heads the Critical tier only at or above this judge confidence
    # (chosen leave-one-conversation-out: docs/design/contradictions.md, "Claims only").
    context_contradiction_min_confidence: float = 0.7
    # Retrieval: retention scores and tiers, usage weights.
    retention_half_life_days: float = Field(default=30.0, gt=0)
    retention_activation_boost: float = Field(default=0.1, ge=0)  # per retrieval
    retention_cite_weight: float = Field(default=3.0, ge=0)  # a citation, in retrievals
    retention_ignore_penalty: float = Field(default=0.5, ge=0)  # each ignore divides by 1+this
    retention_hot_threshold: float = 0.6  # retention at or above: hot
    retention_warm_threshold: float = 0.3  # at or above: warm
    retention_cold_threshold: float = 0.1  # at or above: cold; below: archived

    # Workers (Celery). broker_url None: the embedded engine's Redis (single machine).
    broker_url: str | None = None
    scan_on_write: bool = True
    # Scans asked for by writes within this window go out as one task per namespace: one
    # scan of the namespace's new thoughts instead of a task per write.
    scan_coalesce_s: float = 0.5
    scan_page_size: int = 200  # thoughts in one page of a scan of new thoughts
    # The safety net under that request: this often every namespace's thoughts written
    # since its scan cursor are scanned, so a request lost with a crashed service (or a
    # broker that was down) is made good within a period. 0: off.
    scan_sweep_every_s: float = 60.0
    # Background work yields the CPU to requests: the worker process (and its pool) runs
    # at this nice level (0: as the service). A scan is never urgent; a write is.
    worker_nice: int = 10
    consolidation_every_s: float = 24 * 3600.0
    contradiction_scan_every_s: float = 3600.0
    decay_every_s: float = 24 * 3600.0
    worker_concurrency: int = 1
    # Whether `thoughtgraph serve` runs its own worker and beat (--worker/--no-worker win);
    # None: on with the embedded engine (single-machine mode), off with Neo4j.
    serve_worker: bool | None = None
    # Tests only: a file holding an offset in ms added to the wall clock, shared by every
    # process of a deployment, so tests can move time forward (forgetting, purge).
    clock_file: Path | None = None

    api_host: str = "127.0.0.1"
    api_port: int = 8000
    # Seconds an idle HTTP connection stays open (the API's and MCP's). Longer than the
    # clients' own idle limit (httpx: 5 s), so that a client closes first: when both are
    # 5 s, a request sent at that moment meets a closing socket (a reset, "ReadError").
    http_keep_alive_s: int = Field(default=75, ge=1)

    # Access. API keys live in keys_file (default: <data_dir>/keys.json). With none, a
    # loopback-bound service is open; require_keys forces keys even there.
    keys_file: Path | None = None
    require_keys: bool = False
    # Agents' category allowlists and context modes (YAML; see app/domain/allowlist.py).
    # None: every read is unrestricted. A bad file stops the start.
    allowlist_file: Path | None = None
    # Each namespace's scope for a write that names none, as "namespace=scope" pairs,
    # comma-separated ("*": every other namespace), e.g. "*=shared,notes=private".
    # Default: shared everywhere (see app/domain/scopes.py).
    scope_defaults: str | None = None
    # Person fields (app/domain/consent.py): comma-separated categories added to the
    # sensitive ones (name, preferred_name, pronouns, city, language: the person approves
    # a change) and to the benign ones (tone, goals: two signals apply a change), and how
    # long a request waits for its decision.
    consent_sensitive_fields: str | None = None
    consent_benign_fields: str | None = None
    consent_expiry_days: float = Field(default=7.0, gt=0)
    consent_expiry_every_s: float = 3600.0  # the expiry job's period; 0: off
    # A checkpoint's data (app/domain/checkpoints.py): at most this many bytes (UTF-8).
    # Escaped again inside a request's JSON it may double: the default stays within
    # max_request_bytes.
    checkpoint_max_bytes: int = Field(default=480_000, ge=1)
    # Re-embedding (docs/reembedding.md): seconds between the switch and dropping the old
    # vectors, for work that began in the old space to finish: at least a pin's 60 s, the
    # 1 s the record may be cached and a statement's timeout (10 s by default), 71 s.
    reembed_grace_s: float = Field(default=75.0, ge=0)
    # Multi-fact extraction (contribute with extract: true, an LLM configured): only a
    # contribution this long is split; each user (or agent) gets this many calls a day.
    extraction_min_chars: int = Field(default=120, ge=1)
    extraction_daily_cap: int = Field(default=50, ge=0)
    # Insights about people (app/features/insights; without llm_model the job writes
    # none): how often beat runs it in every namespace; 0: off.
    insights_every_s: float = 6 * 3600.0
    trusted_hosts: str | None = None  # comma-separated Host names; default: loopback + api_host
    cors_origins: str | None = None  # comma-separated origins; CORS is off without it
    graphiql: bool | None = None  # default: on while the service is open, off with keys
    introspection: bool | None = None  # default: as graphiql
    log_level: str = "INFO"
    log_format: str = "console"  # console | json

    # Operating the service (app/observability). /metrics is served by the API; a worker
    # serves its own on worker_metrics_port (+ its pool process index), when set.
    worker_metrics_port: int | None = None
    otlp_endpoint: str | None = None  # OTLP/HTTP collector; tracing is off without it
    # Operational events: each namespace keeps its newest this many; 0: none.
    ops_events_keep: int = Field(default=10_000, ge=0)

    # Every engine statement is stopped after this long (both engines).
    statement_timeout_s: float = 10.0

    # Request and GraphQL guards.
    max_request_bytes: int = 1_000_000
    max_query_depth: int = 12
    max_aliases: int = 30
    max_tokens: int = 2000
    max_query_cost: int = 10_000
    # Operations costing this much or more run a few at a time (api.graphql.guards).
    heavy_query_cost: int = 200
    max_concurrent_heavy_queries: int = Field(
        default_factory=lambda: max(1, (os.cpu_count() or 2) // 2)
    )
    max_waiting_heavy_queries: int = 64  # beyond: TOO_BUSY
    max_response_bytes: int = 5_000_000

    @field_validator("data_dir", "cypher_dir")
    @classmethod
    def _expand(cls, value: Path) -> Path:
        return value.expanduser().resolve()

    @property
    def key_file_path(self) -> Path:
        return (self.keys_file or self.data_dir / "keys.json").expanduser().resolve()

    @property
    def engine(self) -> str:
        return "neo4j" if self.neo4j_uri else "falkordb"

    def child_environment(self) -> dict[str, str]:
        """The TG_ variables that give a child process (a worker, ``thoughtgraph mcp``, an
        evaluation run) this embedder and graph engine; the caller adds the rest."""
        env = {"TG_EMBEDDER": self.embedder.value}
        if self.embedding_dimension is not None:
            env["TG_EMBEDDING_DIMENSION"] = str(self.embedding_dimension)
        if self.neo4j_uri:
            env.update(
                TG_NEO4J_URI=self.neo4j_uri,
                TG_NEO4J_USER=self.neo4j_user,
                TG_NEO4J_PASSWORD=self.neo4j_password.get_secret_value(),
                TG_NEO4J_DATABASE=self.neo4j_database,
            )
        return env

    def masked(self) -> dict[str, Any]:
        """Effective settings as plain data, with every secret replaced by ``***``."""
        shown: dict[str, Any] = {}
        for name, value in self.model_dump().items():
            if isinstance(value, SecretStr):
                shown[name] = "***" if value.get_secret_value() else ""
            elif isinstance(value, Path):
                shown[name] = str(value)
            elif isinstance(value, StrEnum):
                shown[name] = value.value
            else:
                shown[name] = value
        shown["engine"] = self.engine
        return shown
