"""``GET /metrics``: the runtime's registry in Prometheus' text format.

Once keys are required it takes an admin key (the role for what operates the service):
its labels name every namespace. Rendered in a thread: the queue depth collector asks
the broker while it runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from thoughtgraph.api.access import AccessPolicy
from thoughtgraph.api.http.errors import error_body
from thoughtgraph.domain.access import Action


def metrics_endpoint(access: AccessPolicy) -> Callable[[Request], Awaitable[Response]]:
    async def metrics(request: Request) -> Response:
        principal = access.principal_for(request.headers)
        if principal is None:
            return JSONResponse(
                error_body("An API key is required for /metrics.", "UNAUTHENTICATED"),
                status_code=401,
            )
        if not principal.may(Action.ADMIN, None):
            return JSONResponse(
                error_body("/metrics needs an admin key.", "FORBIDDEN"), status_code=403
            )
        services = getattr(request.app.state, "services", None)
        telemetry = getattr(services, "telemetry", None)
        if telemetry is None:
            return JSONResponse(
                error_body("The service is not ready.", "SERVICE_UNAVAILABLE"), status_code=503
            )
        body = await run_in_threadpool(generate_latest, telemetry.metrics.registry)
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    return metrics
