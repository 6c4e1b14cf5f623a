"""``GET /metrics``: the runtime's registry in Prometheus' text format.

Behind the same key as the API once keys are required (labels name namespaces). Rendered
in a thread: the queue depth collector asks the broker while it runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from app.access import AccessPolicy
from app.http_errors import error_body


def metrics_endpoint(access: AccessPolicy) -> Callable[[Request], Awaitable[Response]]:
    async def metrics(request: Request) -> Response:
        if access.principal_for(request.headers) is None:
            return JSONResponse(
                error_body("An API key is required for /metrics.", "UNAUTHENTICATED"),
                status_code=401,
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
