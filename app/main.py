"""The ASGI application: ``create_app(settings)`` wires store, embedder, services and GraphQL.

Everything with I/O (engine process, driver, model) is opened in the lifespan and closed
after it, never at import time.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from app.access import LOOPBACK_NAMES, AccessPolicy
from app.context.tokens import import_tokenizers
from app.domain.errors import ThoughtgraphError
from app.graphiql.page import GraphiQLPage
from app.graphql.app import create_graphql_app
from app.http_limits import BodySizeLimit, CancelOnDisconnect
from app.jobs.queue import JobQueue
from app.llm.embedders import TextEmbedder
from app.neo4j_browser import neo4j_browser_files
from app.observability.http import metrics_endpoint
from app.runtime import Runtime, open_runtime
from app.services.container import Services
from app.settings import Settings

log = structlog.get_logger(__name__)


async def healthz(request: Request) -> Response:
    """Liveness: the service is up and serving requests. It does not ask the engine (a
    restarting engine is not a reason to restart the service) and shows no paths or pids."""
    services: Services | None = getattr(request.app.state, "services", None)
    if services is None:
        return JSONResponse({"status": "starting"}, status_code=503)
    schema = services.store.schema
    return JSONResponse(
        {
            "status": "ok",
            "engine": services.store.engine,
            "schema": {
                "ready": schema is not None,
                "embeddingDimension": schema.embedding_dimension if schema else None,
            },
            "embedder": {"name": services.embedder.name, "dimension": services.embedder.dimension},
        }
    )


async def readyz(request: Request) -> Response:
    """Readiness: the engine answers, the schema is built and every index is usable, so a
    request now will be served; 503 until then (after an engine restart, until it has
    rebuilt its indexes). ``writable`` is false while writes are refused (a full disk)."""
    services: Services | None = getattr(request.app.state, "services", None)
    if services is None:
        return JSONResponse({"status": "starting", "ready": False}, status_code=503)
    health = await services.store.health()
    if not health.ready:
        log.info("service.not_ready", reason=health.reason, detail=health.detail)
    body = {
        "status": "ready" if health.ready else "not_ready",
        "ready": health.ready,
        "writable": health.writable,
        "engine": health.engine,
        "reason": health.reason,
    }
    return JSONResponse(body, status_code=200 if health.ready else 503)


async def to_graphiql(request: Request) -> Response:
    return RedirectResponse("/graphql")


def comma_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def trusted_hosts(settings: Settings) -> list[str]:
    """The Host names requests may carry (DNS rebinding): the configured ones, or the
    loopback names and the address the service listens on."""
    if settings.trusted_hosts:
        return comma_list(settings.trusted_hosts)
    hosts = list(LOOPBACK_NAMES)
    if settings.api_host not in ("0.0.0.0", "::", *hosts):
        hosts.append(settings.api_host)
    return hosts


def request_middleware(settings: Settings) -> list[Middleware]:
    middleware = [
        Middleware(TrustedHostMiddleware, allowed_hosts=trusted_hosts(settings)),
        Middleware(BodySizeLimit, max_bytes=settings.max_request_bytes),
        Middleware(CancelOnDisconnect),
    ]
    if settings.cors_origins:  # off unless configured
        origins = comma_list(settings.cors_origins)
        middleware.insert(
            1,
            Middleware(
                CORSMiddleware,
                allow_origins=origins,
                allow_methods=["GET", "POST"],
                allow_headers=["authorization", "content-type", "x-api-key"],
            ),
        )
    return middleware


def create_app(
    settings: Settings,
    *,
    embedder: TextEmbedder | None = None,
    job_queue: JobQueue | None = None,
) -> Starlette:
    """Build the service. ``embedder`` lets a caller share an already loaded model;
    ``job_queue`` carries background work to the workers (none: nothing is queued)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.startup_error = None
        try:
            async with _running_services(app):
                yield
        except ThoughtgraphError as exc:
            if getattr(app.state, "services", None) is None:
                app.state.startup_error = exc
                log.error("service.start_failed", code=exc.code, error=exc.message)
            raise

    @asynccontextmanager
    async def _running_services(app: Starlette) -> AsyncIterator[None]:
        # The tokenizer is ready before the service is: on a fresh service every assembled
        # context of the first seconds waited for litellm's import (seconds). The import
        # runs beside the engine's start; the counter then loads from it.
        importing = asyncio.create_task(asyncio.to_thread(import_tokenizers))
        try:
            async with open_runtime(settings, embedder=embedder, queue=job_queue) as runtime:
                try:
                    await runtime.services.context.tokens.warm()
                except Exception as exc:  # assembled contexts will say what is wrong
                    log.warning("context.tokenizer_not_loaded", error=str(exc))
                async with _serving(app, runtime):
                    yield
        finally:
            with contextlib.suppress(Exception):
                await importing

    @asynccontextmanager
    async def _serving(app: Starlette, runtime: Runtime) -> AsyncIterator[None]:
        store = runtime.store
        app.state.services = runtime.services
        if not access.keys_required:
            log.warning(
                "service.open",
                note="no API keys: anyone who can reach this address can read and write",
                host=settings.api_host,
            )
        schema = store.schema
        log.info(
            "service.ready",
            engine=store.engine,
            **store.describe(),
            embedder=runtime.embedder.name,
            dimension=runtime.embedder.dimension,
            schema_created=schema.created_now if schema else None,
        )
        try:
            yield
        finally:
            app.state.services = None
            log.info("service.stopping", engine=store.engine)

    access = AccessPolicy.from_settings(settings)
    graphiql = GraphiQLPage(access, settings.graphiql)
    return Starlette(
        middleware=request_middleware(settings),
        routes=[
            Route("/", to_graphiql),
            Route("/healthz", healthz),
            Route("/readyz", readyz),
            Route("/metrics", metrics_endpoint(access)),
            Route(
                "/graphql",
                create_graphql_app(settings, access, graphiql),
                methods=["GET", "POST"],
            ),
            graphiql.assets_route(),
            neo4j_browser_files(settings.cypher_dir / "browser"),
        ],
        lifespan=lifespan,
    )
