"""The HTTP application: its routes (GraphQL, GraphiQL, probes, metrics, the Browser guide)
over services that ``open_services`` opens in the lifespan and closes after it; nothing
with I/O is opened at import time (``thoughtgraph.server`` passes the runtime's).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import structlog
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from thoughtgraph.api.access import LOOPBACK_NAMES, AccessPolicy
from thoughtgraph.api.explorer.page import ExplorerPage
from thoughtgraph.api.graphiql.page import GraphiQLPage
from thoughtgraph.api.graphql.app import create_graphql_app
from thoughtgraph.api.http.limits import BodySizeLimit, CancelOnDisconnect
from thoughtgraph.api.http.neo4j_browser import neo4j_browser_files
from thoughtgraph.api.http.observability import metrics_endpoint
from thoughtgraph.domain.errors import ThoughtgraphError
from thoughtgraph.features.services import Services
from thoughtgraph.settings import Settings

log = structlog.get_logger(__name__)


async def healthz(request: Request) -> Response:
    """Liveness: the service is up and serving requests. It does not ask the engine (a
    restarting engine is not a reason to restart the service) and shows no paths or pids."""
    services: Services | None = getattr(request.app.state, "services", None)
    if services is None:
        return JSONResponse({"status": "starting"}, status_code=503)
    schema = services.ops.store.schema
    return JSONResponse(
        {
            "status": "ok",
            "engine": services.ops.store.engine,
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
    rebuilt its indexes). ``writable`` is false while writes are refused (a full disk);
    ``degraded`` says what is served in a lesser way (searches by words alone while the
    vector indexes are built after a start), with status ``degraded``."""
    services: Services | None = getattr(request.app.state, "services", None)
    if services is None:
        return JSONResponse({"status": "starting", "ready": False}, status_code=503)
    health = await services.ops.store.health()
    if not health.ready:
        log.info("service.not_ready", reason=health.reason, detail=health.detail)
    status = "degraded" if health.degraded else "ready"
    body = {
        "status": status if health.ready else "not_ready",
        "ready": health.ready,
        "writable": health.writable,
        "engine": health.engine,
        "reason": health.reason,
        "degraded": health.degraded,
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


ServicesOpener = Callable[[], AbstractAsyncContextManager[Services]]


def create_http_app(
    settings: Settings, open_services: ServicesOpener, browser_label: Callable[[str], str]
) -> Starlette:
    """The service's routes; the services are opened when the application starts.
    ``browser_label``: the label Neo4j Browser styles a namespace's thoughts by."""

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
        async with open_services() as services:
            store = services.ops.store
            app.state.services = services
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
                embedder=services.embedder.name,
                dimension=services.embedder.dimension,
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
            *ExplorerPage().routes(),  # the memory explorer, /explore
            neo4j_browser_files(settings.cypher_dir / "browser", browser_label),
        ],
        lifespan=lifespan,
    )
