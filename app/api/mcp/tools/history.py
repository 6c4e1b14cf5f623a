"""The change log: one thought's history, and what changed in a namespace after a
revision (an earlier answer's, or assemble_context's), as GraphQL's ``history`` and
``changes``."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from thoughtgraph.api.mcp.compact import listing
from thoughtgraph.api.mcp.tools.env import READ_ONLY, Namespace, ToolEnv
from thoughtgraph.api.mcp.tools.shapes import Shape, iso
from thoughtgraph.domain.changes import ChangeEvent, ChangeKind, SubjectKind
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.domain.validation import DEFAULT_CHANGES, MAX_CHANGES


class ChangeOut(Shape):
    id: str
    revision: int
    kind: ChangeKind
    subject_kind: SubjectKind  # the kind of node changed
    subject_id: str
    source_ids: list[str]  # other nodes the change involved (sources, the newer thought...)
    actor_id: str
    actor_name: str
    key_id: str | None  # the API key that made it; null in open local mode
    at: str | None

    @classmethod
    def of(cls, event: ChangeEvent) -> ChangeOut:
        return cls.copy_of(
            event, source_ids=list(event.source_ids), key_id=event.actor_key_id, at=iso(event.at_ms)
        )

    def line(self) -> str:
        involved = f" with {', '.join(self.source_ids)}" if self.source_ids else ""
        when = (self.at or "-")[:16].replace("T", " ")
        return (
            f"rev {self.revision} {when} {self.kind} {self.subject_kind} {self.subject_id}"
            f"{involved} by {self.actor_name}"
        )


class HistoryOut(BaseModel):
    thought_id: str
    events: list[ChangeOut]  # oldest first

    def as_text(self) -> str:
        return listing(f"history of {self.thought_id}", (e.line() for e in self.events))


class ChangesOut(BaseModel):
    revision: int  # the namespace's revision, read before the events
    events: list[ChangeOut]  # oldest first

    def as_text(self) -> str:
        header = f"changes (now at rev {self.revision})"
        return listing(header, (event.line() for event in self.events), empty="nothing new")


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def history(
        ctx: Context[Any, Any],
        thought_id: Annotated[str, Field(description="The thought whose history to read.")],
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> HistoryOut:
        """A thought's creation and every change to it (refined, superseded, forgotten,
        restored, pinned...), oldest first; THOUGHT_NOT_FOUND when it does not exist."""
        events = await env.services.history.history(namespace, thought_id, caller=env.caller(ctx))
        return HistoryOut(thought_id=thought_id, events=[ChangeOut.of(e) for e in events])

    async def changes(
        ctx: Context[Any, Any],
        since_revision: Annotated[
            int, Field(description="Only changes after this revision (0: from the start).")
        ] = 0,
        limit: Annotated[
            int, Field(description=f"At most this many, 1 to {MAX_CHANGES}.")
        ] = DEFAULT_CHANGES,
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> ChangesOut:
        """What changed in the namespace after `since_revision`, oldest first, and the
        current revision: pass the last event's revision next time."""
        principal = env.caller(ctx)
        service = env.services.history
        # The revision first, as GraphQL does: an event landing in between is returned
        # (and seen again next time) rather than counted and never returned.
        revision = await service.revision(namespace, caller=principal)
        events = await service.changes(namespace, since_revision, limit, caller=principal)
        return ChangesOut(revision=revision, events=[ChangeOut.of(e) for e in events])

    server.add_tool(history, annotations=READ_ONLY)
    server.add_tool(changes, annotations=READ_ONLY)
