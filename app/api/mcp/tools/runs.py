"""Consolidation runs: queue one (dedupe, topics, summaries, supersession, forgetting)
and follow it, as GraphQL's ``runConsolidation`` and ``consolidationRun``."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from thoughtgraph.api.mcp.tools.env import READ_ONLY, WRITES, Namespace, ToolEnv
from thoughtgraph.api.mcp.tools.shapes import Shape, iso
from thoughtgraph.domain.errors import NotFoundError
from thoughtgraph.domain.knowledge import ConsolidationRun, RunCounts, RunStatus, RunUsage
from thoughtgraph.domain.models import DEFAULT_NAMESPACE

# The trigger a run records when an agent asked for it (GraphQL's is "api").
MCP_TRIGGER = "mcp"


class RunOut(Shape):
    id: str
    namespace: str
    status: RunStatus
    dry_run: bool
    trigger: str
    requested_at: str | None
    started_at: str | None
    finished_at: str | None
    attempts: int
    counts: RunCounts
    usage: RunUsage
    error: str | None

    @classmethod
    def of(cls, run: ConsolidationRun) -> RunOut:
        return cls.copy_of(
            run,
            requested_at=iso(run.requested_at_ms),
            started_at=iso(run.started_at_ms),
            finished_at=iso(run.finished_at_ms),
        )

    def as_text(self) -> str:
        counted = ", ".join(f"{name} {n}" for name, n in self.counts.model_dump().items() if n)
        dry = " (dry run)" if self.dry_run else ""
        tail = f": {counted}" if counted else ""
        failed = f"; error: {self.error}" if self.error else ""
        return f"consolidation run {self.id} {self.status}{dry}{tail}{failed}"


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def run_consolidation(
        ctx: Context[Any, Any],
        namespace: Namespace = DEFAULT_NAMESPACE,
        dry_run: Annotated[
            bool, Field(description="Count what it would do, change nothing.")
        ] = False,
    ) -> RunOut:
        """Queue a consolidation run of the namespace (dedupe near-duplicates, assign and
        summarise topics, supersede, forget what is due) and return it, queued; a worker
        runs it. Follow it with consolidation_run."""
        run = await env.services.consolidation.request(
            namespace, dry_run=dry_run, trigger=MCP_TRIGGER, caller=env.caller(ctx)
        )
        return RunOut.of(run)

    async def consolidation_run(
        ctx: Context[Any, Any],
        run_id: Annotated[str, Field(description="The run, as run_consolidation returned it.")],
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> RunOut:
        """A consolidation run: its status and, once finished, what it counted;
        NOT_FOUND when the namespace has no such run."""
        found = await env.services.consolidation.run(namespace, run_id, caller=env.caller(ctx))
        if found is None:
            raise NotFoundError("consolidation run", run_id)
        return RunOut.of(found)

    server.add_tool(run_consolidation, annotations=WRITES)
    server.add_tool(consolidation_run, annotations=READ_ONLY)
