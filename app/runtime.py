"""One place that opens everything a process needs: the API, a Celery worker, the CLI
(and the MCP server next). Settings come in; store, embedder, clock, LLM client and
services come out, opened in order and closed in reverse. Nothing is opened at import.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import structlog

from thoughtgraph.container import build_services
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.services import Services
from thoughtgraph.llm.embedders import TextEmbedder, build_embedder
from thoughtgraph.llm.embedders.spaces import EmbedderBuilder, SpaceEmbedder, settings_with
from thoughtgraph.observability.embedder import MeasuredEmbedder
from thoughtgraph.observability.telemetry import Telemetry
from thoughtgraph.ports.clock import Clock, build_clock
from thoughtgraph.ports.jobs import JobQueue, NoJobQueue
from thoughtgraph.settings import Settings
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.store.factory import open_store

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class Runtime:
    settings: Settings
    store: CypherGraphStore
    embedder: TextEmbedder
    clock: Clock
    queue: JobQueue
    services: Services

    @property
    def repos(self) -> Repositories:
        return self.services.repos

    @property
    def telemetry(self) -> Telemetry:
        return self.services.telemetry


@asynccontextmanager
async def open_runtime(
    settings: Settings,
    *,
    attach: bool = False,
    embedder: TextEmbedder | None = None,
    queue: JobQueue | None = None,
    telemetry: Telemetry | None = None,
) -> AsyncIterator[Runtime]:
    """Open the store (``attach``: to the engine another process owns, as workers do),
    bootstrap its schema, and build the services over it. ``telemetry``: the caller's
    (a worker keeps one across runtimes); else the runtime builds and closes its own."""
    configured = embedder or await build_embedder(settings)
    jobs = queue or NoJobQueue()
    clock = build_clock(settings.clock_file)
    measured = telemetry or Telemetry.from_settings(settings)
    measured.watch_queue(jobs)
    try:
        async with open_store(settings, attach=attach) as store:
            store.observer = measured
            measured.watch_store(store)
            builder = EmbedderBuilder(settings, configured)
            chosen, effective = await _active_embedder(store, builder, settings)
            await store.bootstrap(embedding_dimension=chosen.dimension, embedder=chosen.name)
            active = (await store.spaces()).active  # bootstrap read it last
            services = build_services(
                store,
                MeasuredEmbedder(SpaceEmbedder(store, builder, active, chosen), measured.metrics),
                settings=effective,
                clock=clock,
                queue=jobs,
                telemetry=measured,
                embedders=builder,
            )
            try:
                yield Runtime(
                    settings=effective,
                    store=store,
                    embedder=chosen,
                    clock=clock,
                    queue=jobs,
                    services=services,
                )
            finally:
                await services.close()
    finally:
        jobs.close()
        if telemetry is None:
            measured.close()


async def _active_embedder(
    store: CypherGraphStore, builder: EmbedderBuilder, settings: Settings
) -> tuple[TextEmbedder, Settings]:
    """The embedder of the store's active vector space and the settings naming it: the
    configured one, unless a re-embed switched the store to another (docs/reembedding.md)."""
    configured = await builder({})
    space = (await store.spaces(fresh=True)).active
    if space.settings is None or space.embedder == configured.name:
        return configured, settings
    log.warning(
        "store.reembedded",
        configured=configured.name,
        serving_with=space.embedder,
        hint="set TG_EMBEDDER (and its model and dimension) to the store's embedder",
    )
    return await builder.for_space(space), settings_with(settings, space.settings)
