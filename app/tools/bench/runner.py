"""The benchmark run: load, measure each layer at each size, then time the local embedder."""

from __future__ import annotations

import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from starlette.applications import Starlette

from thoughtgraph.domain.scopes import Viewer
from thoughtgraph.domain.validation import MAX_LINEAGE_DEPTH
from thoughtgraph.features.thoughts.service import ThoughtInput
from thoughtgraph.progress import progress
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.store.beam import MIN_CANDIDATES, OVERSAMPLE
from thoughtgraph.tools.bench.checkpoints import CheckpointBench
from thoughtgraph.tools.bench.client import LINEAGE_QUERY, SEARCH_QUERY, GraphQLClient
from thoughtgraph.tools.bench.data import DIMENSION, QueryFactory, ThoughtFactory
from thoughtgraph.tools.bench.embedder import measure_local_embedder
from thoughtgraph.tools.bench.footprint import footprint_row
from thoughtgraph.tools.bench.ingest import IngestBench
from thoughtgraph.tools.bench.isolation import ISOLATION_K, SMALL_SIZE, IsolationProbe
from thoughtgraph.tools.bench.maintenance import Maintenance, MaintenanceSections
from thoughtgraph.tools.bench.mcp_start import measure_mcp_start
from thoughtgraph.tools.bench.reembed import ReembedBench
from thoughtgraph.tools.bench.report import (
    Row,
    SizeResults,
    Target,
    evaluate_targets,
    format_table,
    format_targets,
    machine_lines,
)
from thoughtgraph.tools.bench.restart import Restart, restart, restart_row, restart_targets
from thoughtgraph.tools.bench.retrieval import RetrievalLatencies, measure_hybrid, retrieval_targets
from thoughtgraph.tools.bench.service import BenchSetupError, ServiceThread
from thoughtgraph.tools.bench.timing import Latency, time_async, time_sync, warmup_count

SEARCH_K = 10
RAW_K = max(SEARCH_K * OVERSAMPLE, MIN_CANDIDATES)  # what vector_search asks the index for
LOAD_BATCH = 1000
CHAIN_DEPTH = MAX_LINEAGE_DEPTH  # an original and 10 refinements, each of the one before


def _progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


class Bench:
    def __init__(
        self,
        settings: Settings,
        *,
        sizes: Sequence[int],
        queries: int,
        sentences: int,
        maintenance: Maintenance | None = None,
        ingest: int = 0,
        restart: bool = True,
        reembed: int = 0,
    ) -> None:
        self.settings = settings
        self.restart = restart  # stop and start the service after each size, timed
        self.restarts: list[Restart] = []
        self.ingest = ingest  # thoughts for the batch ingest rows (0: skipped)
        self.reembed = reembed  # thoughts for the re-embedding row (0: skipped)
        self.ingest_targets: list[Target] = []
        self.sizes = sorted(set(sizes))
        self.queries = queries
        self.sentences = sentences
        self.maintenance = MaintenanceSections(settings, maintenance or Maintenance.none())
        self.warmup = warmup_count(queries)
        self.namespace = f"bench-{secrets.token_hex(4)}"
        self.rows: list[Row] = []
        self.results: dict[int, SizeResults] = {}
        self.retrieval: dict[int, RetrievalLatencies] = {}
        self.checkpoints = CheckpointBench(
            f"{self.namespace}-checkpoints", iterations=queries, warmup=self.warmup
        )
        self.isolation = IsolationProbe(
            f"{self.namespace}-small", iterations=queries, warmup=self.warmup
        )

    # --- the whole run ---------------------------------------------------------------
    def run(self) -> None:
        data_dir: Path | None = None
        if not self.settings.neo4j_uri and self.sizes:
            data_dir = Path(tempfile.mkdtemp(prefix="tg-bench-"))
        try:
            self._print_header(data_dir)
            if self.sizes:
                self._graph_measurements(data_dir)
        finally:
            if data_dir is not None:
                shutil.rmtree(data_dir, ignore_errors=True)
        if self.sentences > 0:
            self.rows += measure_local_embedder(
                self.settings, sentences=self.sentences, queries=self.queries, warmup=self.warmup
            )
            self.rows += measure_mcp_start(self.settings)  # mostly the model's load
        if self.ingest > 0:
            section = IngestBench(self.settings, self.ingest)
            self.rows += section.run()
            self.ingest_targets = section.targets()
        if self.reembed > 0:
            self.rows += ReembedBench(self.settings, self.reembed).run()
        self.maintenance.run()

    def _print_header(self, data_dir: Path | None) -> None:
        lines = machine_lines(self.settings, data_dir)
        if not self.sizes:
            print("\n".join([*lines, ""]), flush=True)
            return
        if self.settings.neo4j_uri:
            lines.append(
                f"note:    the bench runs against Neo4j, in the dedicated namespace"
                f" {self.namespace!r}: other data is left alone, and the bench data stays"
                " there afterwards; the raw vector query is global to the index, so any"
                " other data in the database is part of it"
            )
        lines += [
            f"setup:   synthetic thoughts with seeded random unit vectors ({DIMENSION} dims),"
            f" {LOAD_BATCH} per bulk_create_originals call; each row times {self.queries}"
            f" calls after {self.warmup} untimed warm-up call{'s' if self.warmup != 1 else ''}",
            f"         search k={SEARCH_K}; the store asks the vector index for"
            f" max(k*{OVERSAMPLE}, {MIN_CANDIDATES}) = {RAW_K} candidates, so the raw engine"
            f" query uses k={RAW_K}",
            "         service and GraphQL search embed random query texts with the hash"
            " embedder (microseconds), so they time the service, not a model",
            f"         lineage is traced from the first thought of a {CHAIN_DEPTH}-deep"
            f" refinement chain ({CHAIN_DEPTH + 1} nodes)",
            f"         isolation: a namespace of {SMALL_SIZE} thoughts is searched (store"
            f" vector_search k={ISOLATION_K}) alone, then beside the big namespace at each N;"
            " 'exact' counts answers equal to the brute-force top k",
            "",
        ]
        print("\n".join(lines), flush=True)

    # --- graph: load and query at each size ------------------------------------------
    def _graph_measurements(self, data_dir: Path | None) -> None:
        from thoughtgraph.llm.embedders import HashEmbedder
        from thoughtgraph.server import create_app

        update: dict[str, object] = {
            "embedder": EmbedderKind.HASH,
            "embedding_dimension": DIMENSION,
            "api_host": "127.0.0.1",
        }
        if data_dir is not None:
            update["data_dir"] = data_dir
        settings = self.settings.model_copy(update=update)
        embedder = HashEmbedder(DIMENSION, batch_size=settings.embedding_batch_size)

        def make_app() -> Starlette:
            return create_app(settings, embedder=embedder)

        service = ServiceThread(make_app())
        _progress(f"starting the service on {service.base_url} ({settings.engine})")
        try:
            service.start()
            chain_root = self._make_chain(service)
            self._measure_small_namespace_alone(service)
            _progress("measuring checkpoint save and load (50 KB)")
            self.rows += self.checkpoints.measure(service)
            thoughts = ThoughtFactory()
            queries = QueryFactory()
            for size in self.sizes:
                self._load(service, thoughts, size)
                with GraphQLClient(service.base_url) as client:
                    self._measure(service, client, queries, size, chain_root)
                if self.restart:
                    _progress(f"restarting the service on {size:,} thoughts")
                    timeout_s = settings.falkordb_load_timeout_s + 60
                    service, measured = restart(
                        service, make_app, self.namespace, size, timeout_s=timeout_s
                    )
                    self.restarts.append(measured)
                    self.rows.append(restart_row(measured))
        finally:
            _progress("stopping the service")
            service.stop()

    def _make_chain(self, service: ServiceThread) -> str:
        thoughts = service.services.thoughts

        def data(step: int) -> ThoughtInput:
            return ThoughtInput(
                content=f"lineage chain step {step}: a thought refined again and again",
                agent_id="bench-lineage",
                agent_name="Bench Lineage",
                namespace=self.namespace,
            )

        root = service.call(thoughts.contribute(data(0))).thought.id
        previous = root
        for step in range(1, CHAIN_DEPTH + 1):
            refined = service.call(
                thoughts.refine(data(step), previous, reason=f"refinement number {step}")
            )
            previous = refined.thought.id
        return root

    def _measure_small_namespace_alone(self, service: ServiceThread) -> None:
        _progress(f"loading and measuring a namespace of {SMALL_SIZE} thoughts alone")
        self.isolation.load(service)
        alone = self.isolation.measure(service)
        self.rows.append(
            Row(
                None,
                f"small namespace ({SMALL_SIZE}) search alone",
                alone.latency,
                value=f"exact top-{ISOLATION_K}: {alone.exact_answers}/{alone.queries}",
            )
        )

    def _load(self, service: ServiceThread, factory: ThoughtFactory, size: int) -> None:
        missing = size - factory.made
        if missing <= 0:
            return
        _progress(f"loading {missing:,} thoughts (to N={size:,})")
        repos = service.services.repos
        spent = 0.0
        with progress("bench: loading", missing) as shown:
            for batch in factory.batches(size, LOAD_BATCH):
                started = time.perf_counter()
                created = service.call(repos.thoughts.bulk_create_originals(self.namespace, batch))
                spent += time.perf_counter() - started
                if created != len(batch):
                    raise BenchSetupError(f"bulk load created {created} of {len(batch)} thoughts")
                shown.advance(len(batch))
        rate = f"{missing / spent:,.0f} thoughts/s" if spent > 0 else "-"
        self.rows.append(Row(size, f"load (bulk_create_originals, {LOAD_BATCH}/call)", value=rate))
        self.rows.append(footprint_row(size, service.services.ops.store.describe()))

    def _measure(
        self,
        service: ServiceThread,
        client: GraphQLClient,
        queries: QueryFactory,
        size: int,
        chain_root: str,
    ) -> None:
        _progress(f"measuring at N={size:,}")
        services = service.services
        repos = services.repos
        ns = self.namespace
        count = self.warmup + self.queries
        times = {"iterations": self.queries, "warmup": self.warmup}

        def add(label: str, latency: Latency) -> Latency:
            self.rows.append(Row(size, label, latency))
            return latency

        # The engine alone: the namespace's index query with no filter and no projection.
        vectors = queries.vectors(count)
        if not service.call(repos.thoughts.raw_nearest_ids(ns, vectors[0], RAW_K)):
            raise BenchSetupError("the raw vector query returned nothing")

        async def raw_query(i: int) -> None:
            await repos.thoughts.raw_nearest_ids(ns, vectors[i], RAW_K)

        raw = add(
            f"raw engine vector query (k={RAW_K})", service.call(time_async(raw_query, **times))
        )

        # The store: what SearchService asks of it, minus the embedding.
        async def store_query(i: int) -> None:
            hits = await repos.thoughts.nearest(ns, vectors[i], SEARCH_K, 0.0)
            await repos.lineage.refiners(ns, [hit.thought.id for hit in hits], Viewer.everyone())

        store_search = add(
            f"store search (vector_search k={SEARCH_K} + refiners)",
            service.call(time_async(store_query, **times)),
        )

        texts = queries.texts(count)

        async def service_query(i: int) -> None:
            await services.search.search(ns, texts[i], k=SEARCH_K)

        add(
            "service search (SearchService, hash embedder)",
            service.call(time_async(service_query, **times)),
        )

        retrieval = measure_hybrid(service, ns, texts, iterations=self.queries, warmup=self.warmup)
        for label, latency in retrieval.rows():
            add(label, latency)
        self.retrieval[size] = retrieval

        def search_variables(i: int, hybrid: bool = True) -> dict[str, object]:
            return {"query": texts[i], "k": SEARCH_K, "namespace": ns, "hybrid": hybrid}

        if not client.execute(SEARCH_QUERY, search_variables(0))["search"]:
            raise BenchSetupError("GraphQL search returned no hits")
        graphql_search = add(
            "GraphQL search over HTTP (hybrid, the default)",
            time_sync(lambda i: client.execute(SEARCH_QUERY, search_variables(i)), **times),
        )
        self.retrieval[size] = retrieval.with_graphql(graphql_search)
        self.rows.append(
            Row(
                size,
                "HTTP and GraphQL layers' share of that search (GraphQL p50 - service p50)",
                value=f"{self.retrieval[size].layers_ms:.3f} ms",
            )
        )
        # What the service adds to the engine's own query: the same vector search.
        graphql_vector = add(
            "GraphQL vector search over HTTP (hybrid: false)",
            time_sync(lambda i: client.execute(SEARCH_QUERY, search_variables(i, False)), **times),
        )

        # Lineage from the chain's first thought: every one of the 10 levels.
        nodes = len(service.call(services.lineage.lineage(ns, chain_root)).chain)
        if nodes != CHAIN_DEPTH + 1:
            raise BenchSetupError(f"lineage found {nodes} nodes, expected {CHAIN_DEPTH + 1}")

        async def lineage_query(i: int) -> None:
            await services.lineage.lineage(ns, chain_root)

        add(
            f"lineage, {CHAIN_DEPTH}-deep chain (LineageService)",
            service.call(time_async(lineage_query, **times)),
        )
        variables = {"id": chain_root, "namespace": ns}
        if len(client.execute(LINEAGE_QUERY, variables)["lineage"]["chain"]) != nodes:
            raise BenchSetupError("GraphQL lineage did not return the whole chain")
        graphql_lineage = add(
            f"lineage, {CHAIN_DEPTH}-deep chain (GraphQL over HTTP)",
            time_sync(lambda i: client.execute(LINEAGE_QUERY, variables), **times),
        )

        ratio = graphql_vector.p50_ms / raw.p50_ms
        self.rows.append(
            Row(size, "ratio GraphQL vector search / raw query (p50)", value=f"{ratio:.2f}x")
        )

        beside = self.isolation.measure(service)
        isolation_ratio = self.isolation.ratio(beside)
        self.rows.append(
            Row(
                size,
                f"small namespace ({SMALL_SIZE}) search beside N",
                beside.latency,
                value=f"{isolation_ratio:.2f}x alone; exact top-{ISOLATION_K}:"
                f" {beside.exact_answers}/{beside.queries}",
            )
        )
        self.results[size] = SizeResults(
            raw,
            store_search,
            graphql_search,
            graphql_vector,
            graphql_lineage,
            isolation_ratio=isolation_ratio,
            isolation_exact=beside.all_exact,
        )

    # --- output -----------------------------------------------------------------------
    def print_report(self) -> None:
        embedded = not self.settings.neo4j_uri
        lines = format_table(self.rows) if self.rows else []
        targets = evaluate_targets(self.results, embedded=embedded)
        targets += retrieval_targets(self.retrieval)
        targets += restart_targets(self.restarts, embedded=embedded)
        targets += self.checkpoints.targets(embedded=embedded)
        section_lines = self.maintenance.report_lines()
        if section_lines:
            lines += ["", *section_lines] if lines else section_lines
        targets += self.ingest_targets + self.maintenance.targets()
        if targets:
            lines += ["", "targets:", *format_targets(targets)]
        print("\n".join(lines), flush=True)
