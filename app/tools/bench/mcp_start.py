"""How long an MCP client waits for ``thoughtgraph mcp`` over stdio: from spawning the
process until ``initialize`` has answered, and until ``tools/list`` has too. A client
starts one such process per session, so this is what every agent session pays first:
importing the service (the store and the embedding model open in the background, and
the first tool call waits for them: app/cli/mcp.py).

On the embedded engine each start gets an empty data dir of its own (the start includes
creating the store); on Neo4j the process connects to the configured server. The rest of
the configuration (the embedder above all) is the bench's own, from the environment.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import TextIO

from thoughtgraph.settings import Settings
from thoughtgraph.tools.bench.report import Row

RUNS = 3
LABEL = "mcp over stdio: start until initialize / tools/list answered (median)"


@dataclass(frozen=True)
class McpStart:
    initialized_s: float
    listed_s: float
    tools: int


def _environment(settings: Settings, data_dir: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env["TG_LOG_LEVEL"] = "WARNING"
    env.update(settings.child_environment())
    if data_dir is not None:
        env["TG_DATA_DIR"] = data_dir
    return env


async def _start_once(env: dict[str, str], errlog: TextIO) -> McpStart:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    command = StdioServerParameters(
        command=sys.executable, args=["-m", "thoughtgraph", "mcp"], env=env
    )
    started = time.perf_counter()
    async with (
        stdio_client(command, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        initialized = time.perf_counter() - started
        listed = await session.list_tools()
        return McpStart(initialized, time.perf_counter() - started, len(listed.tools))


def time_mcp_start(settings: Settings) -> McpStart:
    """One timed start, in a data dir of its own on the embedded engine."""
    data_dir = None if settings.neo4j_uri else tempfile.mkdtemp(prefix="tg-bench-mcp-")
    try:
        with open(os.devnull, "w") as quiet:  # the server's log is not the report's
            return asyncio.run(_start_once(_environment(settings, data_dir), quiet))
    finally:
        if data_dir is not None:
            shutil.rmtree(data_dir, ignore_errors=True)


def measure_mcp_start(settings: Settings, runs: int = RUNS) -> list[Row]:
    print(f"bench: starting `thoughtgraph mcp` over stdio {runs}x", file=sys.stderr, flush=True)
    starts = [time_mcp_start(settings) for _ in range(runs)]
    initialized = statistics.median(start.initialized_s for start in starts)
    listed = statistics.median(start.listed_s for start in starts)
    value = f"{initialized:.2f} s / {listed:.2f} s ({starts[0].tools} tools, {runs} starts)"
    return [Row(None, LABEL, value=value)]
