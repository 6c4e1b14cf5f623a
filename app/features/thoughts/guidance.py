"""Guidance for a new original: the existing thought it nearly repeats, if any, so that
the agent can refine that one instead of adding a near-duplicate."""

from __future__ import annotations

from collections.abc import Sequence

from thoughtgraph.domain.models import Guidance, TimeView
from thoughtgraph.domain.rules import GUIDANCE_SIMILARITY, guidance_message
from thoughtgraph.features.repositories import Repositories


async def guidance_for(
    repos: Repositories, namespace: str, embedding: Sequence[float], view: TimeView
) -> Guidance | None:
    """The nearest thought the view sees, when more similar than GUIDANCE_SIMILARITY."""
    hits = await repos.thoughts.nearest(namespace, embedding, 1, GUIDANCE_SIMILARITY, view)
    # The threshold is "more than 0.85"; the store's filter is inclusive.
    if not hits or hits[0].similarity <= GUIDANCE_SIMILARITY:
        return None
    similar = hits[0]
    return Guidance(
        similar_thought_id=similar.thought.id,
        similarity=similar.similarity,
        message=guidance_message(similar.thought.id, similar.thought.preview),
    )
