"""Guidance read beside the write that stores the new original, over the real embedded
engine: it never points at the new thought itself, the write's error wins, and a failed
read never costs the agent its stored thought."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.features.thoughts.conftest import AXIS, stored_thought
from tests.support import LoopThread
from thoughtgraph.domain.errors import StoreError
from thoughtgraph.domain.models import TimeView, now_ms
from thoughtgraph.domain.scopes import Viewer
from thoughtgraph.features.services import Services
from thoughtgraph.features.thoughts.guidance import guidance_for
from thoughtgraph.features.thoughts.service import ThoughtInput


def _view() -> TimeView:
    return TimeView(now_ms=now_ms(), viewer=Viewer.everyone())


def test_guidance_never_points_at_the_thought_written_beside_it(
    services: tuple[LoopThread, Services],
    ns: str,
) -> None:
    """The read may run after the write has committed: the new thought is in the index,
    identical to itself, and must not be offered as its own near-duplicate."""
    loop, svc = services
    new = stored_thought(loop, svc, ns, "the thought being written")
    assert loop.run(guidance_for(svc.repos, ns, AXIS, _view(), new_id=new)) is None
    assert loop.run(guidance_for(svc.repos, ns, AXIS, _view())) is not None  # it is there
    twin = stored_thought(loop, svc, ns, "an earlier near-duplicate")
    found = loop.run(guidance_for(svc.repos, ns, AXIS, _view(), new_id=new))
    assert found is not None and found.similar_thought_id == twin


def _contribution(ns: str) -> ThoughtInput:
    return ThoughtInput(content="stored despite", agent_id="a", agent_name="A", namespace=ns)


def _failing(error: Exception) -> Callable[..., Awaitable[Any]]:
    """A repository method that raises ``error`` when awaited."""

    async def fail(*args: Any, **kwargs: Any) -> Any:
        raise error

    return fail


def test_a_failed_guidance_read_leaves_the_stored_thought_without_guidance(
    services: tuple[LoopThread, Services],
    ns: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loop, svc = services
    monkeypatch.setattr(svc.repos.thoughts, "nearest", _failing(StoreError("read failed")))
    contribution = loop.run(svc.thoughts.contribute(_contribution(ns)))
    assert contribution.guidance is None
    stored = loop.run(svc.repos.thoughts.get_many(ns, [contribution.thought.id]))
    assert stored[contribution.thought.id].content == "stored despite"


def test_the_writes_error_wins_over_the_reads(
    services: tuple[LoopThread, Services],
    ns: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loop, svc = services
    before = loop.run(svc.history.revision(ns))
    monkeypatch.setattr(svc.repos.thoughts, "nearest", _failing(ValueError("read failed")))
    monkeypatch.setattr(svc.repos.thoughts, "create", _failing(StoreError("the write failed")))
    with pytest.raises(StoreError, match="the write failed"):
        loop.run(svc.thoughts.contribute(_contribution(ns)))
    assert loop.run(svc.history.revision(ns)) == before
