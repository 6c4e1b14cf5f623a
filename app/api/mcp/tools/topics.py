"""Topics: a namespace's topics with their summaries, and one topic with its members
(the thoughts gathered under it), as GraphQL's ``topics`` and ``topic { thoughts }``."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from thoughtgraph.api.mcp.compact import day, listing, one_line
from thoughtgraph.api.mcp.tools.env import READ_ONLY, Namespace, ToolEnv
from thoughtgraph.api.mcp.tools.shapes import Shape, ThoughtOut, iso
from thoughtgraph.domain.errors import NotFoundError
from thoughtgraph.domain.knowledge import Topic
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.domain.validation import DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE

First = Annotated[int, Field(description=f"At most this many, 1 to {MAX_PAGE_SIZE}.")]


class TopicOut(Shape):
    id: str
    namespace: str
    name: str
    summary: str | None  # written once enough thoughts gathered; null until then
    thought_count: int
    unsummarised_count: int  # thoughts that joined since the summary was written
    created_at: str | None
    updated_at: str | None
    summarised_at: str | None

    @classmethod
    def of(cls, topic: Topic) -> TopicOut:
        return cls.copy_of(
            topic,
            created_at=iso(topic.created_at_ms),
            updated_at=iso(topic.updated_at_ms),
            summarised_at=iso(topic.summarised_at_ms),
        )

    def line(self) -> str:
        about = one_line(self.summary) if self.summary else "(no summary yet)"
        return (
            f"{self.id} {self.name!r} {self.thought_count} thoughts, "
            f"updated {day(self.updated_at)}: {about}"
        )


class TopicsOut(BaseModel):
    topics: list[TopicOut]

    def as_text(self) -> str:
        return listing("topics", (topic.line() for topic in self.topics))


class TopicMembersOut(BaseModel):
    topic: TopicOut
    thoughts: list[ThoughtOut]  # its current thoughts, newest first

    def as_text(self) -> str:
        lines = (thought.line() for thought in self.thoughts)
        return "\n".join([self.topic.line(), listing("thoughts", lines)])


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def topics(
        ctx: Context[Any, Any],
        namespace: Namespace = DEFAULT_NAMESPACE,
        first: First = DEFAULT_PAGE_SIZE,
    ) -> TopicsOut:
        """The namespace's topics (thoughts close in meaning, under a name and a summary),
        most recently updated first. `topic` lists one's thoughts."""
        found = await env.services.topics.recent(namespace, first, caller=env.caller(ctx))
        return TopicsOut(topics=[TopicOut.of(topic) for topic in found])

    async def topic(
        ctx: Context[Any, Any],
        topic_id: Annotated[str, Field(description="The topic, as `topics` lists it.")],
        namespace: Namespace = DEFAULT_NAMESPACE,
        first: First = DEFAULT_PAGE_SIZE,
    ) -> TopicMembersOut:
        """A topic and its current thoughts (not forgotten or superseded), newest first;
        NOT_FOUND when the namespace has no such topic."""
        principal = env.caller(ctx)
        found = await env.services.topics.get(namespace, topic_id, caller=principal)
        if found is None:
            raise NotFoundError("topic", topic_id)
        members = await env.services.topics.members(namespace, found.id, first, caller=principal)
        return TopicMembersOut(
            topic=TopicOut.of(found), thoughts=[ThoughtOut.of(member) for member in members]
        )

    server.add_tool(topics, annotations=READ_ONLY)
    server.add_tool(topic, annotations=READ_ONLY)
