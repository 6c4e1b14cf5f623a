"""Ingesting a session transcript as an episode."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.enums import Scope
from thoughtgraph.api.graphql.episodes.types import ArtifactInput, Episode, TurnInput
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.features.access import actor_of


async def resolve_ingest_episode(
    info: Info,
    transcript: str | None = None,
    namespace: str = DEFAULT_NAMESPACE,
    title: str | None = None,
    artifacts: list[ArtifactInput] | None = None,
    turns: list[TurnInput] | None = None,
    session_id: str | None = None,
    scope: Scope | None = None,
    user_id: str | None = None,
) -> Episode:
    episode = await info.context.services.episodes.ingest(
        namespace,
        transcript,
        title=title,
        artifacts=[artifact.to_domain() for artifact in artifacts or ()],
        actor=actor_of(info.context.principal),
        turns=None if turns is None else [turn.to_domain() for turn in turns],
        session_id=session_id,
        scope=scope,
        user_id=user_id,
        caller=info.context.principal,
    )
    return Episode.from_domain(episode)


@strawberry.type
class EpisodeMutation:
    ingest_episode = strawberry.mutation(
        resolver=resolve_ingest_episode,
        description=(
            "Keep a session transcript as an episode and extract the thoughts worth"
            " remembering from it; the same transcript again returns the same episode. Or"
            " give the conversation as `turns` instead (up to 1,000): each becomes the"
            ' thought "speaker: text" by the speaker, in `sessionId` (the episode\'s id'
            " when left out), valid from the turn's `at`; nothing is written when a turn is"
            " invalid, and the same turns again return the same episode."
        ),
    )
