"""Runtimes over the session's real stores for the knowledge-maintenance tests: the jobs
run in-process here; tests/processes/test_maintenance_worker.py runs them on a Celery worker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.openai_server import FakeOpenAIServer
from tests.support import LoopThread
from thoughtgraph.container import build_services
from thoughtgraph.domain.units import DAY_MS
from thoughtgraph.features.thoughts.service import ThoughtInput
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.ports.clock import OffsetFileClock
from thoughtgraph.ports.jobs import NoJobQueue
from thoughtgraph.runtime import Runtime
from thoughtgraph.settings import Settings
from thoughtgraph.store.cypher_store import CypherGraphStore


def make_runtime(
    store: CypherGraphStore, embedder: TextEmbedder, tmp_path: Path, **overrides: Any
) -> Runtime:
    settings = Settings(
        data_dir=tmp_path / "data",
        clock_file=tmp_path / "clock",
        scan_on_write=False,
        **overrides,
    )
    clock = OffsetFileClock(tmp_path / "clock")
    queue = NoJobQueue()
    services = build_services(store, embedder, settings=settings, clock=clock, queue=queue)
    return Runtime(
        settings=settings,
        store=store,
        embedder=embedder,
        clock=clock,
        queue=queue,
        services=services,
    )


def model_settings(server: FakeOpenAIServer, model: str) -> dict[str, Any]:
    """Settings overrides that send every model call to ``server`` as ``model``, uncached."""
    return {
        "llm_model": model,
        "llm_api_base": server.base_url,
        "llm_api_key": "test",
        "llm_cache": False,
    }


def contribute(loop: LoopThread, runtime: Runtime, ns: str, content: str, **fields: Any) -> str:
    data = ThoughtInput(
        content=content, agent_id="agent-1", agent_name="Agent", namespace=ns, **fields
    )
    return loop.run(runtime.services.thoughts.contribute(data)).thought.id


def advance_days(runtime: Runtime, days: float) -> None:
    clock = runtime.clock
    assert isinstance(clock, OffsetFileClock)
    clock.advance(int(days * DAY_MS))
