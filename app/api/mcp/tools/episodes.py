"""Ingesting a conversation as an episode: a transcript (extracted), or structured turns,
each of which becomes a thought by its speaker, in the session, valid from its time."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from thoughtgraph.api.mcp.compact import listing, one_line
from thoughtgraph.api.mcp.tools.env import WRITES, Namespace, ToolEnv
from thoughtgraph.api.mcp.tools.shapes import Shape, epoch_ms, iso
from thoughtgraph.api.mcp.tools.thoughts import ScopeArg, UserId
from thoughtgraph.domain.knowledge import Artifact, Episode
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.domain.scopes import Scope
from thoughtgraph.features.access import actor_of
from thoughtgraph.features.episodes.turns import Turn


class TurnIn(BaseModel):
    speaker: str = Field(description="Who said it (up to 100 characters).")
    text: str = Field(description="What was said.")
    at: datetime | None = Field(
        default=None, description="When it was said (the episode's time when left out)."
    )

    def to_domain(self) -> Turn:
        return Turn(speaker=self.speaker, text=self.text, at_ms=epoch_ms(self.at))


class ArtifactIn(BaseModel):
    kind: str = Field(description="commit, pr, adr or file.")
    ref: str


class EpisodeOut(Shape):
    id: str
    namespace: str
    title: str
    summary: str
    compressed: str
    index_label: str
    thought_ids: list[str]
    created_at: str | None
    extractor: str
    scope: Scope
    owner_id: str | None

    @classmethod
    def of(cls, episode: Episode) -> EpisodeOut:
        return cls.copy_of(
            episode,
            thought_ids=list(episode.thought_ids),
            created_at=iso(episode.created_at_ms),
        )

    def as_text(self) -> str:
        header = f"episode {self.id} {self.title!r} ({self.extractor}): {one_line(self.summary)}"
        return "\n".join([header, listing("thoughts", self.thought_ids)])


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def ingest_episode(
        ctx: Context[Any, Any],
        turns: Annotated[
            list[TurnIn] | None,
            Field(
                description=(
                    "The conversation as turns (up to 1,000): each becomes the thought"
                    " 'speaker: text' by the speaker, valid from its time. Nothing is"
                    " written when a turn is invalid."
                )
            ),
        ] = None,
        transcript: Annotated[
            str | None,
            Field(description="Or a plain transcript: the thoughts are extracted from it."),
        ] = None,
        session_id: Annotated[
            str | None,
            Field(description="The turns' session (the episode's id when left out)."),
        ] = None,
        title: str | None = None,
        artifacts: list[ArtifactIn] | None = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
        scope: ScopeArg = None,
        user_id: UserId = None,
    ) -> EpisodeOut:
        """Keep a conversation as an episode: give `turns` (speaker, text, time) or a
        `transcript`, not both. The same conversation again returns the same episode."""
        principal = env.caller(ctx)
        episode = await env.services.episodes.ingest(
            namespace,
            transcript,
            title=title,
            artifacts=[Artifact(kind=a.kind, ref=a.ref) for a in artifacts or ()],
            actor=actor_of(principal),
            turns=None if turns is None else [turn.to_domain() for turn in turns],
            session_id=session_id,
            scope=scope,
            user_id=user_id,
            caller=principal,
        )
        return EpisodeOut.of(episode)

    server.add_tool(ingest_episode, annotations=WRITES.model_copy(update={"idempotent_hint": True}))
