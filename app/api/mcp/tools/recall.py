"""Recall: a question answered from memory, read under the
caller's agent allowlist as GraphQL's ``recall`` is."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from thoughtgraph.api.mcp.compact import listing, one_line
from thoughtgraph.api.mcp.tools.env import READ_ONLY, Agent, Namespace, ToolEnv
from thoughtgraph.api.mcp.tools.shapes import SearchHitOut, Shape
from thoughtgraph.domain.language.temporal import Granularity
from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.features.search import recall as recall_service


class ResolvedDateOut(Shape):
    thought_id: str
    expression: str  # as written in the thought
    date: dt.date
    range_start: dt.date
    range_end: dt.date  # inclusive
    granularity: Granularity


class RecallOut(Shape):
    question: str
    answer: str
    confidence: float
    reasoning: str
    temporal: bool  # the question asks for a time: the hits' dates were resolved
    requires_inference: bool
    resolutions: list[ResolvedDateOut]
    source_ids: list[str]  # always among the hits
    hits: list[SearchHitOut]
    answered_by: str  # the model, or "extractive" (offline)

    @classmethod
    def of(cls, found: recall_service.RecallAnswer) -> RecallOut:
        return cls.copy_of(
            found,
            resolutions=[
                ResolvedDateOut.copy_of(hit.resolution, thought_id=hit.thought_id)
                for hit in found.resolutions
            ],
            source_ids=list(found.sources),
            hits=[SearchHitOut.of(hit) for hit in found.hits],
        )

    def as_text(self) -> str:
        dated = [f"{r.thought_id}: {r.expression!r} = {r.date}" for r in self.resolutions]
        lines = [
            f"answer ({self.answered_by}, confidence {self.confidence:.2f}): {self.answer}",
            *([f"reasoning: {one_line(self.reasoning)}"] if self.reasoning else []),
            *([f"dates: {'; '.join(dated)}"] if dated else []),
            f"sources: {', '.join(self.source_ids) or 'none'}",
        ]
        return "\n".join([*lines, listing("hits", (hit.line() for hit in self.hits))])


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def recall(
        ctx: Context[Any, Any],
        question: Annotated[str, Field(description="The question, in plain words.")],
        namespace: Namespace = DEFAULT_NAMESPACE,
        k: Annotated[
            int, Field(description=f"Thoughts to answer from, 1 to {recall_service.MAX_RECALL_K}.")
        ] = recall_service.DEFAULT_K,
        current_only: Annotated[
            bool, Field(description="Leave out superseded and refined thoughts.")
        ] = False,
        agent: Agent = None,
        categories: Annotated[
            list[str] | None, Field(description="Narrow the allowlist to these categories.")
        ] = None,
        resolve_dates: Annotated[
            bool | None,
            Field(description="Resolve relative dates (default: for when-questions)."),
        ] = None,
    ) -> RecallOut:
        """Answer a question from the closest thoughts: reasoned by the configured model,
        or the best hit as written offline; when-questions get the hits' relative dates
        ("yesterday", "last week") resolved against when each was written."""
        principal = env.caller(ctx)
        found = await env.services.recall.recall(
            namespace,
            question,
            k=k,
            current_only=current_only,
            caller=principal,
            agent=agent,
            categories=categories,
            resolve_dates=resolve_dates,
        )
        return RecallOut.of(found)

    server.add_tool(recall, annotations=READ_ONLY)
