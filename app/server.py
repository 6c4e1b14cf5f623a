"""The service as an ASGI application: ``create_app(settings)`` opens the runtime (store,
embedder, services) when the application starts and serves the API over it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette

from thoughtgraph.api.http.app import create_http_app
from thoughtgraph.features.services import Services
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.ports.jobs import JobQueue
from thoughtgraph.runtime import open_runtime
from thoughtgraph.settings import Settings


def create_app(
    settings: Settings,
    *,
    embedder: TextEmbedder | None = None,
    job_queue: JobQueue | None = None,
) -> Starlette:
    """Build the service. ``embedder`` lets a caller share an already loaded model;
    ``job_queue`` carries background work to the workers (none: nothing is queued)."""

    @asynccontextmanager
    async def open_services() -> AsyncIterator[Services]:
        async with open_runtime(settings, embedder=embedder, queue=job_queue) as runtime:
            yield runtime.services

    return create_http_app(settings, open_services)
