"""The ``thoughtgraph`` command: serve, mcp, worker, beat, config, bench, dev-neo4j."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from thoughtgraph.cli import keys as cli_keys
from thoughtgraph.cli import reembed as cli_reembed
from thoughtgraph.cli import transfer as cli_transfer
from thoughtgraph.domain.errors import ThoughtgraphError
from thoughtgraph.logging import configure_logging
from thoughtgraph.settings import Settings
from thoughtgraph.tools.eval import cli as cli_eval


def _serve(settings: Settings, args: argparse.Namespace) -> int:
    import uvicorn

    from thoughtgraph.api.access import AccessPolicy
    from thoughtgraph.server import create_app
    from thoughtgraph.store.factory import check_store_available
    from thoughtgraph.workers.processes import WorkerAlongside, WorkerChild, serve_runs_worker

    with_worker = serve_runs_worker(settings, args.worker)
    if with_worker:
        from thoughtgraph.workers.broker import broker_url_for

        broker_url_for(settings)  # no broker on Neo4j: say so before anything starts
    # Fail fast with a clear message before the model loads and uvicorn starts.
    check_store_available(settings)
    AccessPolicy.from_settings(settings).refuse_open_exposure(settings.api_host)
    from thoughtgraph.workers.app import build_job_queue

    # Background work (scans after writes, runs asked for over GraphQL) goes to the
    # workers whenever one will consume it.
    queue = build_job_queue(settings, worker_expected=with_worker)
    app = create_app(settings, job_queue=queue, tune_collector=True)
    worker = WorkerChild(settings) if with_worker else None
    config = uvicorn.Config(
        WorkerAlongside(app, worker) if worker else app,
        host=settings.api_host,
        port=settings.api_port,
        log_config=None,  # keep our logging setup
        access_log=False,  # a line per request drowns the structured service logs
        lifespan="on",
        timeout_keep_alive=settings.http_keep_alive_s,
    )
    server = uvicorn.Server(config)
    # uvicorn shuts down gracefully on SIGTERM, then raises it again to end the process
    # the default way, which skipped the clean-up below and exited -15: end it as Ctrl-C.
    signal.signal(signal.SIGTERM, _exit_cleanly)
    try:
        server.run()
    except KeyboardInterrupt:
        # uvicorn re-raises Ctrl-C after its graceful shutdown (lifespan closed, engine
        # stopped); that is the normal way to stop the service.
        pass
    except SystemExit:
        pass  # uvicorn exits this way when the lifespan failed; reported below
    finally:
        if worker is not None:
            worker.stop()  # normally stopped already, before the engine closed
    if not server.started:
        error = getattr(app.state, "startup_error", None)
        reason = f"[{error.code}] {error.message}" if error else "see the log above"
        print(f"thoughtgraph: error: the service did not start: {reason}", file=sys.stderr)
        return 1
    return 0


def _exit_cleanly(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def _mcp(args: argparse.Namespace) -> int:
    from thoughtgraph.api.mcp.settings import McpSettings
    from thoughtgraph.cli.mcp import run_mcp

    flags = {"mcp_host": args.host, "mcp_port": args.port, "data_dir": args.data_dir}
    settings = McpSettings(**{name: value for name, value in flags.items() if value is not None})
    configure_logging(settings.log_level, settings.log_format)
    return run_mcp(settings, args.transport)


def _add_mcp_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mcp = commands.add_parser(
        "mcp", help="run the MCP server (stdio for a local client, or streamable HTTP)"
    )
    mcp.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    mcp.add_argument("--host", help="HTTP: interface to listen on (TG_MCP_HOST; 127.0.0.1)")
    mcp.add_argument("--port", type=int, help="HTTP: port to listen on (TG_MCP_PORT; 8765)")
    mcp.add_argument(
        "--data-dir",
        type=Path,
        help="embedded engine's data dir (TG_DATA_DIR); a running service's is attached to",
    )


def _worker(settings: Settings, args: argparse.Namespace) -> int:
    from thoughtgraph.workers.processes import run_worker

    return run_worker(
        settings,
        concurrency=args.concurrency,
        pool=args.pool,
        beat=args.beat,
        visibility_timeout_s=args.visibility_timeout,
    )


def _config(settings: Settings) -> int:
    print(json.dumps(settings.masked(), indent=2, sort_keys=True))
    return 0


def _bench_sizes(text: str) -> list[int]:
    """``1000,10000``; ``none`` (or nothing) skips the section."""
    if text.strip().lower() in ("", "none"):
        return []
    return [int(size) for size in text.split(",") if size.strip()]


def _bench(settings: Settings, args: argparse.Namespace) -> int:
    from thoughtgraph.tools.bench import run_bench
    from thoughtgraph.tools.bench.maintenance import Maintenance

    maintenance = Maintenance(
        consolidation=_bench_sizes(args.consolidation),
        scan_cost=args.scan_cost,
        contributes=args.contributes,
        scan_preload=args.scan_preload,
        vector_cache=args.vector_cache,
        profile_dir=args.profile_dir,
    )
    return run_bench(
        settings,
        sizes=_bench_sizes(args.sizes),
        queries=args.queries,
        embedder_sentences=args.sentences,
        maintenance=maintenance,
        ingest=args.ingest,
        reembed=args.reembed,
        restart=args.restart,
    )


def _dev_neo4j(settings: Settings, args: argparse.Namespace) -> int:
    from thoughtgraph.tools.neo4j.server import DevNeo4jServer

    home = args.data_dir or settings.data_dir / "neo4j-dev"
    server = DevNeo4jServer(
        home, bolt_port=args.bolt_port, http_port=args.http_port, heap=args.heap
    )
    server.start()
    print(f"Neo4j {server.distribution.neo4j_version if server.distribution else ''} is ready")
    print(f"  bolt:    {server.bolt_uri}   (no authentication; loopback only)")
    print(f"  browser: {server.browser_url}")
    print(f"  home:    {server.home}   (data, logs/neo4j.log, logs/console.log)")
    print(f"  use it:  TG_NEO4J_URI={server.bolt_uri} thoughtgraph serve")
    print("Ctrl-C stops it.", flush=True)
    code = server.wait()
    print(f"thoughtgraph: Neo4j stopped (exit {code})", flush=True)
    return 0 if code in (0, 143, -15) else 1


def _settings(args: argparse.Namespace) -> Settings:
    """Command-line flags win over TG_ variables and .env, as in uvicorn and most servers."""
    flags: dict[str, Any] = {}
    if args.command == "serve":
        flags = {"api_host": args.host, "api_port": args.port, "data_dir": args.data_dir}
    elif args.command in ("worker", "beat"):
        flags = {"data_dir": args.data_dir}
    return Settings(**{name: value for name, value in flags.items() if value is not None})


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="thoughtgraph", description="Knowledge-graph memory service for AI agents."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve", help="start the engine (embedded unless TG_NEO4J_URI) and the API"
    )
    serve.add_argument("--host", help="interface to listen on (TG_API_HOST; default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (TG_API_PORT; default 8000)")
    serve.add_argument("--data-dir", type=Path, help="embedded engine's data dir (TG_DATA_DIR)")
    serve.add_argument(
        "--worker",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also run a worker with beat as a child process (default: on with the embedded "
        "engine, whose Redis is the broker; off with Neo4j)",
    )
    _add_mcp_parser(commands)
    _add_worker_parsers(commands)
    commands.add_parser("config", help="print the effective settings, secrets masked")
    bench = commands.add_parser("bench", help="measure latency and throughput; prints a table")
    bench.add_argument(
        "--sizes", default="1000,10000,100000", help="thought counts to load ('none' skips)"
    )
    bench.add_argument("--queries", type=int, default=200, help="timed queries per measurement")
    bench.add_argument("--sentences", type=int, default=512, help="sentences for the embedder")
    bench.add_argument("--ingest", type=int, default=1000, help="thoughts per batch ingest row")
    bench.add_argument(
        "--reembed", type=int, default=2000, help="thoughts for the re-embedding row (0: skip)"
    )
    bench.add_argument(
        "--restart",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="after each size, stop the service and time a start until it answers",
    )
    _add_bench_maintenance_flags(bench)
    cli_keys.add_parser(commands)
    cli_eval.add_parser(commands)
    cli_transfer.add_parsers(commands)
    cli_reembed.add_parser(commands)
    load = commands.add_parser(
        "loadtest", help="open-loop mixed load against a real service; prints a table"
    )
    load.add_argument("--rate", type=float, default=100.0, help="requests offered per second")
    load.add_argument("--duration", type=float, default=300.0, help="seconds of load")
    load.add_argument(
        "--isolation", type=float, default=30.0, help="seconds per write-isolation phase (0: skip)"
    )
    load.add_argument("--url", help="an already running service (default: start one)")
    load.add_argument(
        "--clients",
        type=int,
        help="soak instead: this many clients looping over contribute/search/assembleContext/"
        "lineage for --duration s on a fresh service and namespace, then a read-back",
    )
    load.add_argument(
        "--engine", choices=("falkordb", "neo4j"), help="the soak's engine (default: configured)"
    )
    load.add_argument(
        "--kill-engine-at", type=float, help="soak: SIGKILL the embedded engine this many s in"
    )
    load.add_argument(
        "--kill-worker-mid-consolidation",
        type=int,
        metavar="THOUGHTS",
        help="instead: SIGKILL a worker consolidating this many thoughts (half near-"
        "duplicates), restart it, check the merges",
    )
    neo4j = commands.add_parser(
        "dev-neo4j",
        help="run a local Neo4j Community server from Maven Central (needs Java 17+, Maven)",
    )
    neo4j.add_argument(
        "--data-dir",
        type=Path,
        help="server home: data, logs, conf (default TG_DATA_DIR/neo4j-dev)",
    )
    neo4j.add_argument("--bolt-port", type=int, default=7687, help="0 picks a free port")
    neo4j.add_argument("--http-port", type=int, default=7474, help="0 picks a free port")
    neo4j.add_argument("--heap", default="1g", help="JVM heap, e.g. 512m or 2g")
    return parser


def _add_bench_maintenance_flags(bench: argparse.ArgumentParser) -> None:
    bench.add_argument(
        "--consolidation",
        default="1000,10000",
        help="consolidate a realistic corpus of these sizes, offline ('none' skips)",
    )
    bench.add_argument(
        "--scan-cost",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="contribute p50 with scanning on write (and a real worker) vs off",
    )
    bench.add_argument(
        "--contributes", type=int, default=300, help="timed contributes per scan-cost mode"
    )
    bench.add_argument(
        "--scan-preload", type=int, default=1000, help="thoughts in each scan-cost namespace"
    )
    bench.add_argument(
        "--vector-cache",
        type=Path,
        help="where corpus embeddings are cached (default: a directory under the temp dir)",
    )
    bench.add_argument(
        "--profile-dir",
        type=Path,
        help="cProfile each consolidation run, dump it here and print its top functions",
    )


def _add_worker_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from thoughtgraph.workers.processes import POOLS

    data_dir_help = "the data dir of the service whose engine it attaches to (TG_DATA_DIR)"
    worker = commands.add_parser(
        "worker", help="run a background worker (scans, consolidation, forgetting)"
    )
    worker.add_argument("--data-dir", type=Path, help=data_dir_help)
    worker.add_argument(
        "--concurrency", type=int, help="pool processes (TG_WORKER_CONCURRENCY; default 1)"
    )
    worker.add_argument(
        "--pool",
        choices=POOLS,
        default="prefork",
        help="prefork (default: time limits, crash isolation) or solo (one process)",
    )
    worker.add_argument("--beat", action="store_true", help="also run the scheduler inside")
    worker.add_argument(
        "--visibility-timeout",
        type=float,
        help="seconds before a task held by a dead worker is redelivered (default: over an hour)",
    )
    beat = commands.add_parser("beat", help="run the scheduler that queues periodic maintenance")
    beat.add_argument("--data-dir", type=Path, help=data_dir_help)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "mcp":
            return _mcp(args)
        settings = _settings(args)
        configure_logging(settings.log_level, settings.log_format)
        if args.command == "serve":
            return _serve(settings, args)
        if args.command == "worker":
            return _worker(settings, args)
        if args.command == "beat":
            from thoughtgraph.workers.processes import run_beat

            return run_beat(settings)
        if args.command == "config":
            return _config(settings)
        if args.command == "dev-neo4j":
            return _dev_neo4j(settings, args)
        if args.command == "keys":
            return cli_keys.run(settings, args)
        if args.command == "eval":
            return cli_eval.run(settings, args)
        if args.command in ("export", "import"):
            return cli_transfer.run(settings, args)
        if args.command == "reembed":
            return cli_reembed.run(settings, args)
        if args.command == "loadtest":
            from thoughtgraph.tools.loadtest import run_loadtest, run_soak

            if args.kill_worker_mid_consolidation:
                from thoughtgraph.tools.loadtest.worker_kill import run_worker_kill

                return run_worker_kill(settings, thoughts=args.kill_worker_mid_consolidation)
            if args.clients:
                return run_soak(
                    settings,
                    clients=args.clients,
                    duration_s=args.duration,
                    engine=args.engine or settings.engine,
                    kill_engine_at=args.kill_engine_at,
                )
            return run_loadtest(
                settings,
                rate=args.rate,
                duration_s=args.duration,
                isolation_s=args.isolation,
                url=args.url,
            )
        return _bench(settings, args)
    except ThoughtgraphError as exc:
        print(f"thoughtgraph: error [{exc.code}]: {exc.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
