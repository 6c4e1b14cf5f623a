"""ThoughtService over the real embedded engine: inheritance from stored weights, and
that every failure path leaves the graph untouched."""

from __future__ import annotations

import pytest

from tests.features.thoughts.conftest import stored_thought
from tests.support import LoopThread
from thoughtgraph.domain.errors import ThoughtNotFoundError
from thoughtgraph.domain.models import ThoughtType
from thoughtgraph.features.services import Services
from thoughtgraph.features.thoughts.service import ThoughtInput


def _seed(loop: LoopThread, services: Services, ns: str, weight: float) -> str:
    return stored_thought(loop, services, ns, f"seeded with weight {weight}", weight=weight)


def test_pheromone_is_inherited_from_stored_weights(
    services: tuple[LoopThread, Services], ns: str
) -> None:
    loop, svc = services
    heavy, light = _seed(loop, svc, ns, 6.0), _seed(loop, svc, ns, 2.0)
    data = ThoughtInput(content="new insight", agent_id="a", agent_name="A", namespace=ns)
    refinement = loop.run(svc.thoughts.refine(data, heavy)).thought
    assert refinement.type is ThoughtType.REFINEMENT
    assert refinement.pheromone_weight == 3.0
    merged = loop.run(svc.thoughts.consolidate(data, [heavy, light])).thought
    assert merged.pheromone_weight == 2.0
    assert loop.run(svc.thoughts.refine(data, light)).thought.pheromone_weight == 1.0
    stored = loop.run(svc.repos.thoughts.get_many(ns, [refinement.id, merged.id]))
    assert stored[refinement.id].pheromone_weight == 3.0
    assert stored[merged.id].source_ids == (heavy, light)


def test_unknown_sources_write_nothing(services: tuple[LoopThread, Services], ns: str) -> None:
    loop, svc = services
    known = _seed(loop, svc, ns, 1.0)
    before = loop.run(svc.history.revision(ns))
    data = ThoughtInput(content="x", agent_id="a", agent_name="A", namespace=ns)
    ghost = "00000000-0000-4000-8000-00000000dead"
    with pytest.raises(ThoughtNotFoundError) as caught:
        loop.run(svc.thoughts.consolidate(data, [known, ghost]))
    assert caught.value.missing_ids == [ghost]
    assert caught.value.extensions == {"code": "THOUGHT_NOT_FOUND", "ids": [ghost]}
    assert loop.run(svc.history.revision(ns)) == before
