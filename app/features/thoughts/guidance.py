"""Guidance for a new original: the existing thought it nearly repeats, if any, so that
the agent can refine that one instead of adding a near-duplicate."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import TypeVar

import structlog

from thoughtgraph.domain.models import Guidance, TimeView
from thoughtgraph.domain.rules import GUIDANCE_SIMILARITY, guidance_message
from thoughtgraph.features.repositories import Repositories

log = structlog.get_logger(__name__)

Written = TypeVar("Written")


async def guidance_for(
    repos: Repositories,
    namespace: str,
    embedding: Sequence[float],
    view: TimeView,
    *,
    new_id: str | None = None,
) -> Guidance | None:
    """The nearest thought the view sees, when more similar than GUIDANCE_SIMILARITY.
    ``new_id``: the thought being written beside this read, which it may already see
    (and never points at)."""
    hits = await repos.thoughts.nearest(namespace, embedding, 2, GUIDANCE_SIMILARITY, view)
    hits = [hit for hit in hits if hit.thought.id != new_id]
    # The threshold is "more than 0.85"; the store's filter is inclusive.
    if not hits or hits[0].similarity <= GUIDANCE_SIMILARITY:
        return None
    similar = hits[0]
    return Guidance(
        similar_thought_id=similar.thought.id,
        similarity=similar.similarity,
        message=guidance_message(similar.thought.id, similar.thought.preview),
    )


async def beside_write(
    write: Awaitable[Written], guidance: Awaitable[Guidance | None] | None
) -> tuple[Written, Guidance | None]:
    """The write and the guidance read at once: the engine answers the read while the
    write runs. The write's error wins; a read that fails once the thought is stored leaves
    the contribution without guidance (advice, logged) rather than turning it into an
    error the agent would retry into a duplicate."""
    if guidance is None:
        return await write, None
    read = asyncio.ensure_future(guidance)
    try:
        written = await write
    except BaseException:
        read.cancel()
        await asyncio.gather(read, return_exceptions=True)
        raise
    try:
        return written, await read
    except Exception:
        log.warning("guidance.failed", exc_info=True)
        return written, None
