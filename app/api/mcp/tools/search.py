"""Reading: lineage-aware semantic search, and a thought's lineage."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from thoughtgraph.api.mcp.tools.env import READ_ONLY, Agent, Namespace, ToolEnv
from thoughtgraph.api.mcp.tools.shapes import LineageOut, SearchOut, epoch_ms
from thoughtgraph.domain.models import DEFAULT_NAMESPACE, ThoughtKind
from thoughtgraph.domain.retrieval import DEFAULT_SEARCH_K, RetrievalMode, SearchFilter
from thoughtgraph.domain.validation import MAX_K, MAX_LINEAGE_DEPTH


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def search(
        ctx: Context[Any, Any],
        query: Annotated[str, Field(description="What to look for, in plain words.")],
        k: Annotated[int, Field(description=f"How many hits, 1 to {MAX_K}.")] = DEFAULT_SEARCH_K,
        threshold: Annotated[
            float, Field(description="Leave out hits less similar than this (-1 to 1).")
        ] = 0.0,
        namespace: Namespace = DEFAULT_NAMESPACE,
        current_only: Annotated[
            bool, Field(description="Leave out superseded and refined thoughts.")
        ] = False,
        valid_at: Annotated[
            datetime | None, Field(description="What was true in the world at this time.")
        ] = None,
        known_at: Annotated[
            datetime | None, Field(description="What the service knew at this time.")
        ] = None,
        mode: Annotated[
            RetrievalMode,
            Field(description="Retention tiers reached: reflexive, standard, deep, exhaustive."),
        ] = RetrievalMode.STANDARD,
        kinds: Annotated[
            list[ThoughtKind] | None, Field(description="Only thoughts of these kinds.")
        ] = None,
        categories: Annotated[
            list[str] | None, Field(description="Only these categories (within the allowlist).")
        ] = None,
        agent: Agent = None,
        expand: Annotated[
            bool | None,
            Field(
                description="Follow keyword sub-queries, session neighbours and the people "
                "the query names: true always, false never; left out, when the hits come "
                "from conversation sessions."
            ),
        ] = None,
        hybrid: Annotated[
            bool,
            Field(description="Full-text candidates and a keyword bonus too (false: vector only)."),
        ] = True,
    ) -> SearchOut:
        """The k best thoughts for the query (full-text and vector candidates, scored by
        meaning, a keyword bonus and use), filtered in the store, in the tiers `mode`
        reaches. Superseded ones are marked and ranked below their
        successors; `current_only` leaves them out. Only categories the reading agent's
        allowlist allows come back."""
        principal = env.caller(ctx)
        services = env.services
        view = None
        if current_only or valid_at is not None or known_at is not None:
            view = services.search.view(
                current_only=current_only,
                valid_at_ms=epoch_ms(valid_at),
                known_at_ms=epoch_ms(known_at),
            )
        hits = await services.search.search_for(
            principal,
            namespace,
            query,
            agent=agent,
            k=k,
            threshold=threshold,
            view=view,
            filter=SearchFilter(kinds=tuple(kinds or ()), categories=tuple(categories or ())),
            mode=mode,
            hybrid=hybrid,
            expand=expand,
        )
        return SearchOut.of(hits)

    async def lineage(
        ctx: Context[Any, Any],
        thought_id: Annotated[str, Field(description="The thought whose lineage to trace.")],
        max_depth: Annotated[
            int, Field(description=f"Levels each way, 1 to {MAX_LINEAGE_DEPTH}.")
        ] = MAX_LINEAGE_DEPTH,
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> LineageOut:
        """Sources (negative depths) and refinements (positive depths) of a thought;
        THOUGHT_NOT_FOUND when it does not exist."""
        principal = env.caller(ctx)
        return LineageOut.of(
            await env.services.lineage.lineage(namespace, thought_id, max_depth, caller=principal)
        )

    server.add_tool(search, annotations=READ_ONLY)
    server.add_tool(lineage, annotations=READ_ONLY)
