"""The service as an ASGI application: ``create_app(settings)`` opens the runtime (store,
embedder, services) when the application starts and serves the API over it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog
from starlette.applications import Starlette

from thoughtgraph.api.http.app import create_http_app
from thoughtgraph.features.context.tokens import import_tokenizers
from thoughtgraph.features.services import Services
from thoughtgraph.garbage_collection import tune_for_serving
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.ports.jobs import JobQueue
from thoughtgraph.runtime import open_runtime
from thoughtgraph.settings import Settings
from thoughtgraph.store.neo4j_names import namespace_label

log = structlog.get_logger(__name__)


def create_app(
    settings: Settings,
    *,
    embedder: TextEmbedder | None = None,
    job_queue: JobQueue | None = None,
    tune_collector: bool = False,
) -> Starlette:
    """Build the service. ``embedder`` lets a caller share an already loaded model;
    ``job_queue`` carries background work to the workers (none: nothing is queued);
    ``tune_collector`` (a process of its own, as `thoughtgraph serve`) sets the garbage
    collector for serving once started (thoughtgraph.garbage_collection)."""

    @asynccontextmanager
    async def open_services() -> AsyncIterator[Services]:
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
                if tune_collector:
                    tune_for_serving()
                yield runtime.services
        finally:
            with contextlib.suppress(Exception):
                await importing

    return create_http_app(settings, open_services, namespace_label)
