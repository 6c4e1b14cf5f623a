"""Re-embedding without downtime (docs/reembedding.md).

A run fills the store's other vector slot with a new embedder's vectors, namespace by
namespace, while every request keeps using the active slot; passes repeat until one finds
nothing left (what requests wrote meanwhile has only the active slot's vectors). Then one
write switches the active slot; after a grace period, in which requests pinned before the
switch finish, a last pass catches what they wrote, and the retired slot's vectors and
indexes are dropped.

Every step is safe to repeat: a killed run started again with the same embedder resumes
where it stopped (pages select what still lacks a vector; a switched store finishes its
drop).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from thoughtgraph.domain.access import ALL_NAMESPACES, Action, Principal
from thoughtgraph.domain.errors import InvalidStateError
from thoughtgraph.domain.vector_space import (
    VectorSpace,
    VectorSpaces,
    embedder_overrides,
    mean_direction,
)
from thoughtgraph.features.access import check_access
from thoughtgraph.features.reembedding.repository import KINDS, Missing, ReembeddingRepository
from thoughtgraph.ports.jobs import JobQueue
from thoughtgraph.ports.services import Embeddings
from thoughtgraph.ports.vector_slots import SpaceSchema, other_slot, pinned

log = structlog.get_logger(__name__)

# Builds the embedder that settings overrides (kind, model, dimension, API base) name.
EmbedderFactory = Callable[[Mapping[str, Any]], Awaitable[Embeddings]]
# Told after every batch: namespace, kind, how many vectors were written.
Progressed = Callable[[str, str, int], None]

BATCH = 128
MAX_PASSES = 20


@dataclass
class ReembedReport:
    embedder: str
    dimension: int
    slot: int
    written: Counter[str] = field(default_factory=Counter)
    passes: int = 0
    cleared: Counter[str] = field(default_factory=Counter)
    switched: bool = False
    seconds: float = 0.0  # the whole run, the grace period included
    filling_s: float = 0.0  # reading texts, embedding them and writing the vectors

    @property
    def thoughts_per_second(self) -> float:
        """Re-embedding throughput: thoughts written per second spent filling."""
        return self.written["thoughts"] / self.filling_s if self.filling_s > 0 else 0.0


class ReembeddingService:
    def __init__(
        self,
        repo: ReembeddingRepository,
        schema: SpaceSchema,
        build_embedder: EmbedderFactory,
        queue: JobQueue,
        *,
        batch: int = BATCH,
        grace_s: float,
        api_base: str | None = None,
    ) -> None:
        self._repo = repo
        self._schema = schema
        self._build = build_embedder
        self._queue = queue
        self._batch = batch
        # After the switch, work that pinned the old slot before it finishes before the
        # last pass and the drop (TG_REEMBED_GRACE_S): no statement starts in the old slot
        # later than a pin's PIN_SECONDS after the switch (plus the second the record may
        # be cached), and none runs longer than its timeout.
        self._grace_s = grace_s
        self._api_base = api_base  # the configured one: where a requested model is asked

    async def status(self, *, caller: Principal | None = None) -> VectorSpaces:
        """The store's vector spaces: any caller that may read something may see them."""
        check_access(caller, Action.READ, None)
        return await self._schema.spaces(fresh=True)

    async def request(
        self,
        kind: str,
        *,
        model: str | None = None,
        dimension: int | None = None,
        caller: Principal | None = None,
    ) -> VectorSpaces:
        """Queue a re-embed for a worker (the admin mutation): for admins of every
        namespace only; refused while another embedder's re-embed is under way, or when
        no worker runs here. A hosted model is asked at the service's own API base
        (TG_EMBEDDING_API_BASE): a caller never chooses where the service's key is sent."""
        check_access(caller, Action.ADMIN, ALL_NAMESPACES)
        overrides = embedder_overrides(
            kind, model=model, dimension=dimension, api_base=self._api_base
        )
        spaces = await self.status()
        running = spaces.next
        if running is not None and running.settings != dict(overrides):
            raise InvalidStateError(
                f"a re-embed to {running.embedder} is under way; let it finish first",
                running=running.embedder,
            )
        if not await self._queue.enqueue_reembed(overrides):
            raise InvalidStateError(
                "no worker runs here to re-embed in the background; run `thoughtgraph "
                "reembed` on the service's machine instead"
            )
        return spaces

    async def run(
        self,
        overrides: Mapping[str, Any],
        *,
        progressed: Progressed | None = None,
        grace_s: float | None = None,
    ) -> ReembedReport:
        """Re-embed every vector with the embedder ``overrides`` name and switch to it."""
        started = time.monotonic()
        embedder = await self._build(overrides)
        spaces = await self._schema.spaces(fresh=True)
        target = self._target(spaces, embedder, overrides)
        report = ReembedReport(embedder.name, embedder.dimension, target.slot)
        tell = progressed or _quiet
        if spaces.active.embedder != embedder.name:
            if spaces.retired_slot is not None:  # an earlier switch left its drop unfinished
                await self._retire(spaces.retired_slot, report, tell, wait_s=0.0)
            if spaces.next is None:  # a fresh start: no index of the slot may linger
                for namespace in await self._repo.namespaces():
                    await self._schema.drop_space(namespace, target.slot)
            if not await self._schema.begin_space(target):
                raise InvalidStateError(
                    "another re-embed is under way; run it again with its own embedder to "
                    "resume it, or let it finish",
                    running=str((await self.status()).next),
                )
            await self._fill_until_done(target, embedder, report, tell)
            report.switched = await self._schema.switch_space(target.slot)
            log.info("reembed.switched", embedder=embedder.name, slot=target.slot)
        retired = (await self._schema.spaces(fresh=True)).retired_slot
        if retired is not None:
            wait_s = self._grace_s if grace_s is None else grace_s
            await self._retire(retired, report, tell, wait_s=wait_s)
        report.seconds = time.monotonic() - started
        return report

    def _target(
        self, spaces: VectorSpaces, embedder: Embeddings, overrides: Mapping[str, Any]
    ) -> VectorSpace:
        if spaces.active.embedder == embedder.name:
            return spaces.active  # switched already: only the retired space may be left
        return VectorSpace(
            slot=other_slot(spaces.active.slot),
            embedder=embedder.name,
            dimension=embedder.dimension,
            settings=dict(overrides),
        )

    async def _fill_until_done(
        self, space: VectorSpace, embedder: Embeddings, report: ReembedReport, tell: Progressed
    ) -> None:
        """Passes over every namespace until one writes nothing."""
        for _ in range(MAX_PASSES):
            report.passes += 1
            if not await self._fill(space, embedder, report, tell):
                return
        log.warning("reembed.still_writing", passes=MAX_PASSES)

    async def _fill(
        self, space: VectorSpace, embedder: Embeddings, report: ReembedReport, tell: Progressed
    ) -> int:
        written, started = 0, time.monotonic()
        for namespace in await self._repo.namespaces():
            await self._schema.prepare_space(namespace, space.slot, space.dimension)
            with pinned(space.slot):
                for kind in KINDS:
                    written += await self._fill_kind(namespace, kind, embedder, report, tell)
        report.filling_s += time.monotonic() - started
        return written

    async def _fill_kind(
        self,
        namespace: str,
        kind: str,
        embedder: Embeddings,
        report: ReembedReport,
        tell: Progressed,
    ) -> int:
        written = 0
        cursor: str | None = ""
        while cursor is not None:
            page = await self._repo.missing(namespace, kind, cursor, self._batch)
            vectors = await _vectors(kind, page.items, embedder)
            count = await self._repo.write(namespace, kind, page.items, vectors)
            report.written[kind] += count
            written += count
            tell(namespace, kind, count)
            cursor = page.cursor
        return written

    async def _retire(
        self,
        slot: int,
        report: ReembedReport,
        tell: Progressed,
        *,
        wait_s: float,
    ) -> None:
        """After the grace period: a last pass in the active space (what requests pinned
        to the retired one wrote), then the retired space's vectors cleared and its
        indexes dropped."""
        await asyncio.sleep(wait_s)
        active = (await self._schema.spaces(fresh=True)).active
        report.passes += 1
        await self._fill(active, await self._build(active.settings or {}), report, tell)
        for namespace in await self._repo.namespaces():
            with pinned(slot):
                for kind in KINDS:
                    while cleared := await self._repo.clear(namespace, kind, self._batch * 8):
                        report.cleared[kind] += cleared
            await self._schema.drop_space(namespace, slot)
        await self._schema.forget_retired(slot)
        log.info("reembed.retired", slot=slot)


async def _vectors(kind: str, items: Sequence[Missing], embedder: Embeddings) -> list[list[float]]:
    """Each item's new vector: its text embedded; a topic's is its members' mean
    direction (its name embedded when it has none)."""
    if kind != "topics":
        return await embedder.async_embed_documents([item.text for item in items])
    named = [item for item in items if not item.member_vectors]
    by_name = iter(await embedder.async_embed_documents([item.text for item in named]))
    return [
        mean_direction(item.member_vectors) if item.member_vectors else next(by_name)
        for item in items
    ]


def _quiet(namespace: str, kind: str, count: int) -> None:
    del namespace, kind, count
