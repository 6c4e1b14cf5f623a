"""Per-request DataLoaders over the services' batch reads, keyed by (namespace, id).

A new ``Loaders`` is built for every request, so cached values never outlive one
operation and never leak between callers. Keys carry the namespace because ids are only
looked up within one: a batch is split per namespace, one service call each.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from strawberry.dataloader import DataLoader

from thoughtgraph.domain.knowledge import Topic
from thoughtgraph.domain.models import Thought
from thoughtgraph.domain.scopes import Viewer
from thoughtgraph.features.access import Principal
from thoughtgraph.features.consolidation.service import ConsolidationService
from thoughtgraph.features.thoughts.browse import BrowseService
from thoughtgraph.features.topics.service import TopicService

ThoughtKey = tuple[str, str]  # (namespace, thought id)
TopicKey = tuple[str, str]  # (namespace, topic id)
RunMergesKey = tuple[str, str, int | None]  # (namespace, run id, merges per run)

#: Largest batch handed to one service call; bigger batches are split by the loader.
MAX_BATCH = 500


def _by_namespace(keys: Sequence[tuple[str, str]]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = defaultdict(list)
    for namespace, thought_id in keys:
        grouped[namespace].append(thought_id)
    return grouped


async def load_thoughts(
    browse: BrowseService, viewer: Viewer, keys: Sequence[ThoughtKey]
) -> list[Thought | None]:
    """One ``get_many`` call per namespace; a missing thought (or one the request's
    caller may not see) loads as None."""
    found: dict[ThoughtKey, Thought] = {}
    for namespace, ids in _by_namespace(keys).items():
        for thought_id, thought in (await browse.get_many(namespace, ids, viewer)).items():
            found[(namespace, thought_id)] = thought
    return [found.get(key) for key in keys]


async def load_refiners(
    browse: BrowseService, viewer: Viewer, keys: Sequence[ThoughtKey]
) -> list[list[str]]:
    """Ids of the thoughts refining or consolidating each key's thought, newest first."""
    found: dict[ThoughtKey, list[str]] = {}
    for namespace, ids in _by_namespace(keys).items():
        for thought_id, refiner_ids in (await browse.refiners(namespace, ids, viewer)).items():
            found[(namespace, thought_id)] = list(refiner_ids)
    return [found.get(key, []) for key in keys]


async def load_topics(topics: TopicService, keys: Sequence[TopicKey]) -> list[Topic | None]:
    """One ``get_many`` call per namespace: every thought of a page shares a few
    topics, which this reads once each."""
    found: dict[TopicKey, Topic] = {}
    for namespace, ids in _by_namespace(keys).items():
        for topic_id, topic in (await topics.get_many(namespace, ids)).items():
            found[(namespace, topic_id)] = topic
    return [found.get(key) for key in keys]


async def load_run_merges(
    consolidation: ConsolidationService, caller: Principal, keys: Sequence[RunMergesKey]
) -> list[list[str]]:
    """The merged thoughts' ids of each run: one call per namespace and size, so the runs
    of a listing are read together."""
    grouped: dict[tuple[str, int | None], list[str]] = defaultdict(list)
    for namespace, run_id, limit in keys:
        grouped[(namespace, limit)].append(run_id)
    found: dict[RunMergesKey, list[str]] = {}
    for (namespace, limit), run_ids in grouped.items():
        for run_id, ids in (
            await consolidation.merges(namespace, run_ids, limit, caller=caller)
        ).items():
            found[(namespace, run_id, limit)] = ids
    return [found.get(key, []) for key in keys]


@dataclass(frozen=True)
class Loaders:
    thoughts: DataLoader[ThoughtKey, Thought | None]
    refiners: DataLoader[ThoughtKey, list[str]]
    topics: DataLoader[TopicKey, Topic | None]
    run_merges: DataLoader[RunMergesKey, list[str]]

    @classmethod
    def build(
        cls,
        browse: BrowseService,
        topics_service: TopicService,
        consolidation: ConsolidationService,
        caller: Principal,
    ) -> Loaders:
        viewer = caller.viewer

        async def thoughts(keys: list[ThoughtKey]) -> list[Thought | None]:
            return await load_thoughts(browse, viewer, keys)

        async def refiners(keys: list[ThoughtKey]) -> list[list[str]]:
            return await load_refiners(browse, viewer, keys)

        async def topics(keys: list[TopicKey]) -> list[Topic | None]:
            return await load_topics(topics_service, keys)

        async def run_merges(keys: list[RunMergesKey]) -> list[list[str]]:
            return await load_run_merges(consolidation, caller, keys)

        return cls(
            thoughts=DataLoader(load_fn=thoughts, max_batch_size=MAX_BATCH),
            refiners=DataLoader(load_fn=refiners, max_batch_size=MAX_BATCH),
            topics=DataLoader(load_fn=topics, max_batch_size=MAX_BATCH),
            run_merges=DataLoader(load_fn=run_merges, max_batch_size=MAX_BATCH),
        )
