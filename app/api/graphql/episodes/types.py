"""Output and input types of episodes."""

from __future__ import annotations

from datetime import datetime

import strawberry

from thoughtgraph.api.graphql.enums import Scope
from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.api.graphql.thoughts.inputs import optional_ms
from thoughtgraph.api.graphql.thoughts.types import Thought, load_thoughts
from thoughtgraph.domain import knowledge, models
from thoughtgraph.domain import validation as check
from thoughtgraph.features.episodes.turns import Turn

THOUGHTS_FIRST = 20  # an explicit null means this default; cost.py sizes `thoughts` by it


@strawberry.type(description="Something a session produced: a commit, a PR, an ADR, a file.")
class Artifact:
    kind: str
    ref: str


@strawberry.input(description="An artifact of the session: kind is commit, pr, adr or file.")
class ArtifactInput:
    kind: str
    ref: str

    def to_domain(self) -> knowledge.Artifact:
        return knowledge.Artifact(kind=self.kind, ref=self.ref)


@strawberry.input(
    description=(
        'One turn of a conversation: it becomes the thought "speaker: text", by the'
        " speaker (an agent of its own), valid from `at`."
    )
)
class TurnInput:
    speaker: str = strawberry.field(description="Who said it (up to 100 characters).")
    text: str = strawberry.field(description="What was said.")
    at: datetime | None = strawberry.field(
        default=None, description="When it was said (the episode's time when left out)."
    )

    def to_domain(self) -> Turn:
        return Turn(speaker=self.speaker, text=self.text, at_ms=optional_ms(self.at))


async def resolve_episode_thoughts(
    root: Episode, info: Info, first: int | None = THOUGHTS_FIRST
) -> list[Thought]:
    size = THOUGHTS_FIRST if first is None else first
    # Bounded like every page although the ids are at hand: the guard prices it by `first`.
    check.require_int_range("first", size, 1, check.MAX_PAGE_SIZE)
    return await load_thoughts(info, root.namespace, root.thought_ids[:size])


@strawberry.type(description="A session's narrative, kept with the thoughts extracted from it.")
class Episode:
    id: strawberry.ID
    namespace: str
    title: str
    narrative: str = strawberry.field(description="The transcript as it was ingested.")
    summary: str
    compressed: str = strawberry.field(description="The episode in one line.")
    index_label: str
    artifacts: list[Artifact]
    thought_ids: list[strawberry.ID]
    created_at: datetime
    extractor: str = strawberry.field(description="`offline`, or the model that extracted.")
    scope: Scope = strawberry.field(description="Whose memory it is (so are its thoughts).")
    owner_id: str | None = strawberry.field(description="The user a PRIVATE episode is of.")
    thoughts = strawberry.field(
        resolver=resolve_episode_thoughts,
        description="The thoughts extracted from it, in transcript order (first 1 to 100).",
    )

    @classmethod
    def from_domain(cls, episode: knowledge.Episode) -> Episode:
        return cls(
            id=strawberry.ID(episode.id),
            namespace=episode.namespace,
            title=episode.title,
            narrative=episode.narrative,
            summary=episode.summary,
            compressed=episode.compressed,
            index_label=episode.index_label,
            artifacts=[Artifact(kind=a.kind, ref=a.ref) for a in episode.artifacts],
            thought_ids=[strawberry.ID(tid) for tid in episode.thought_ids],
            created_at=models.ms_to_datetime(episode.created_at_ms),
            extractor=episode.extractor,
            scope=episode.scope,
            owner_id=episode.owner_id,
        )
