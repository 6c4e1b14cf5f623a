"""The ``thoughtgraph`` command: serve, config, bench."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from app.domain.errors import ThoughtgraphError
from app.logging import configure_logging
from app.settings import Settings


def _serve(settings: Settings) -> int:
    import uvicorn

    from app.main import create_app
    from app.store.factory import check_store_available

    # Fail fast with a clear message before the model loads and uvicorn starts.
    check_store_available(settings)
    app = create_app(settings)
    config = uvicorn.Config(
        app,
        host=settings.api_host,
        port=settings.api_port,
        log_config=None,  # keep our logging setup
        access_log=False,  # a line per request drowns the structured service logs
        lifespan="on",
    )
    server = uvicorn.Server(config)
    try:
        server.run()
    except KeyboardInterrupt:
        # uvicorn re-raises Ctrl-C after its graceful shutdown (lifespan closed, engine
        # stopped); that is the normal way to stop the service.
        pass
    except SystemExit:
        pass  # uvicorn exits this way when the lifespan failed; reported below
    if not server.started:
        error = getattr(app.state, "startup_error", None)
        reason = f"[{error.code}] {error.message}" if error else "see the log above"
        print(f"thoughtgraph: error: the service did not start: {reason}", file=sys.stderr)
        return 1
    return 0


def _config(settings: Settings) -> int:
    print(json.dumps(settings.masked(), indent=2, sort_keys=True))
    return 0


def _bench(settings: Settings, args: argparse.Namespace) -> int:
    from app.bench import run_bench

    sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    return run_bench(settings, sizes=sizes, queries=args.queries, embedder_sentences=args.sentences)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="thoughtgraph", description="Knowledge-graph memory service for AI agents."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("serve", help="start the engine (embedded unless TG_NEO4J_URI) and the API")
    commands.add_parser("config", help="print the effective settings, secrets masked")
    bench = commands.add_parser("bench", help="measure latency and throughput; prints a table")
    bench.add_argument("--sizes", default="1000,10000,100000", help="thought counts to load")
    bench.add_argument("--queries", type=int, default=200, help="timed queries per measurement")
    bench.add_argument("--sentences", type=int, default=512, help="sentences for the embedder")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = Settings()
        configure_logging(settings.log_level, settings.log_format)
        if args.command == "serve":
            return _serve(settings)
        if args.command == "config":
            return _config(settings)
        return _bench(settings, args)
    except ThoughtgraphError as exc:
        print(f"thoughtgraph: error [{exc.code}]: {exc.message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
