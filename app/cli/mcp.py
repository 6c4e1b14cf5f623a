"""``thoughtgraph mcp``: the MCP server as a process, over stdio or streamable HTTP.

The process opens its services through ``open_runtime`` like every other. On the
embedded engine the data dir has one owner: when ``thoughtgraph serve`` (or another
process) holds it, this one attaches to the running engine, as workers do; otherwise it
starts and owns the engine itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal

import structlog
import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.types import ASGIApp

from thoughtgraph.api.access import AccessPolicy
from thoughtgraph.api.http.app import comma_list, healthz, readyz, trusted_hosts
from thoughtgraph.api.mcp.access import Callers, KeyGate, UnauthenticatedError
from thoughtgraph.api.mcp.server import ThoughtgraphMCP, build_server
from thoughtgraph.api.mcp.settings import McpSettings
from thoughtgraph.api.mcp.tools.env import RuntimeServices
from thoughtgraph.cli.attach import attaches
from thoughtgraph.garbage_collection import tune_for_serving
from thoughtgraph.ports.jobs import JobQueue
from thoughtgraph.runtime import Runtime, open_runtime

log = structlog.get_logger(__name__)

PROBE_PATHS = ("/healthz", "/readyz")


def job_queue(settings: McpSettings, attached: bool) -> JobQueue:
    """Scans after writes go to the workers whenever one will consume them: the owning
    service's own worker when attached on one machine, or any with ``TG_BROKER_URL``."""
    from thoughtgraph.workers.app import build_job_queue
    from thoughtgraph.workers.processes import serve_runs_worker

    expected = attached and serve_runs_worker(settings, None)
    return build_job_queue(settings, worker_expected=expected)


def run_mcp(settings: McpSettings, transport: str) -> int:
    access = AccessPolicy.from_settings(settings)
    key = settings.mcp_key.get_secret_value() if settings.mcp_key else None
    callers = Callers(access, stdio_key=key if transport == "stdio" else None)
    if transport == "stdio":
        if callers.stdio_principal() is None:
            raise UnauthenticatedError(
                "API keys are required: set TG_MCP_KEY to a valid key for this server "
                "(missing, unknown or revoked)"
            )
    else:
        access.refuse_open_exposure(settings.mcp_host)
    attached = attaches(settings)
    # Ctrl-C, or SIGTERM over HTTP: the normal ways to stop it; everything is closed by then.
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run(settings, callers, attached, transport))
    return 0


async def _run(settings: McpSettings, callers: Callers, attached: bool, transport: str) -> None:
    queue = job_queue(settings, attached)
    if transport == "stdio":
        await _run_stdio(settings, callers, attached, queue)
        return
    async with open_runtime(settings, attach=attached, queue=queue) as runtime:
        _log_ready(runtime, callers, attached)
        tune_for_serving()
        server = build_server(
            runtime.services, callers, max_response_bytes=settings.max_response_bytes
        )
        await _serve_http(http_app(server, runtime, settings, callers.access), settings)
        log.info("mcp.stopping")


async def _run_stdio(
    settings: McpSettings, callers: Callers, attached: bool, queue: JobQueue
) -> None:
    """Serve stdio at once while the runtime opens (the store, the embedding model: what
    a client waited for before ``initialize`` answered); requests but the listings wait
    for it. A runtime that fails to open ends the server with its error, as before."""
    opening = RuntimeServices()
    server = build_server(opening, callers, max_response_bytes=settings.max_response_bytes)
    serving = asyncio.create_task(_serve_stdio(server))
    try:
        async with open_runtime(settings, attach=attached, queue=queue) as runtime:
            _log_ready(runtime, callers, attached)
            tune_for_serving()
            opening.provide(runtime.services)
            await serving
    finally:
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving
    log.info("mcp.stopping")


def _log_ready(runtime: Runtime, callers: Callers, attached: bool) -> None:
    log.info(
        "mcp.ready",
        engine=runtime.store.engine,
        attached=attached,
        embedder=runtime.embedder.name,
        keys_required=callers.access.keys_required,
    )


async def _serve_stdio(server: ThoughtgraphMCP) -> None:
    """Until the client closes stdin; SIGTERM (a client giving up on us) and SIGINT stop
    it too, after which the runtime closes as usual (the engine stops, the lock goes)."""
    task = asyncio.create_task(server.run_stdio_async())
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, task.cancel)
    with contextlib.suppress(asyncio.CancelledError):
        await task


async def _serve_http(app: ASGIApp, settings: McpSettings) -> None:
    config = uvicorn.Config(
        app,
        host=settings.mcp_host,
        port=settings.mcp_port,
        log_config=None,
        access_log=False,
        lifespan="on",
        timeout_keep_alive=settings.http_keep_alive_s,
    )
    # uvicorn stops gracefully on SIGTERM, then raises the signal again: let that end
    # the process the way Ctrl-C does, through the runtime's closing.
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        await uvicorn.Server(config).serve()
    finally:
        signal.signal(signal.SIGTERM, previous)


def http_app(
    server: ThoughtgraphMCP, runtime: Runtime, settings: McpSettings, access: AccessPolicy
) -> ASGIApp:
    """The streamable HTTP endpoint at ``mcp_path`` behind the API key gate, and the
    service's liveness and readiness probes (which need no key)."""
    for path, probe in zip(PROBE_PATHS, (healthz, readyz), strict=True):
        server.custom_route(path, methods=["GET"])(probe)
    app: Starlette = server.streamable_http_app(
        streamable_http_path=settings.mcp_path,
        max_request_body_size=settings.max_request_bytes,
        transport_security=transport_security(settings),
        host=settings.mcp_host,
    )
    app.state.services = runtime.services
    return KeyGate(app, access, open_paths=PROBE_PATHS)


def transport_security(settings: McpSettings) -> TransportSecuritySettings:
    """Host and Origin checks against DNS rebinding: the Host names the GraphQL service
    trusts (TG_TRUSTED_HOSTS, else loopback and the address listened on), with any port,
    and browser origins on them or in TG_CORS_ORIGINS."""
    hosts = trusted_hosts(settings.model_copy(update={"api_host": settings.mcp_host}))
    allowed_hosts = [pattern for host in hosts for pattern in (host, f"{host}:*")]
    origins = [f"{scheme}://{pattern}" for scheme in ("http", "https") for pattern in allowed_hosts]
    if settings.cors_origins:
        origins.extend(comma_list(settings.cors_origins))
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed_hosts,
        allowed_origins=origins,
    )
