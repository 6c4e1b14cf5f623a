"""Re-embedding in place, on both engines: every thought, lineage reason, topic and episode
gets a vector from the new embedder in the store's other slot, the store switches to it,
the old vectors and indexes go, and a later re-embed goes back into the first slot. The
hash embedders of different dimensions make any mixing of spaces fail loudly: a query
vector of one dimension cannot be compared with an index of the other."""

from __future__ import annotations

import asyncio
import contextvars
import io
import json
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import pytest

from tests.support import LoopThread
from tests.transfer_support import Quiet, build_every_kind
from thoughtgraph.domain.errors import VectorSpaceChangedError
from thoughtgraph.domain.retrieval import RetrievalOptions
from thoughtgraph.domain.vector_space import embedder_overrides
from thoughtgraph.features.transfer.export import ExportCounts, Exporter
from thoughtgraph.ports import vector_slots
from thoughtgraph.ports.vector_slots import pinned
from thoughtgraph.runtime import Runtime, open_runtime
from thoughtgraph.settings import Settings

T = TypeVar("T")
NS = "reembed"
EXACT = "The API rate limit is 500 requests per minute"
REASON = "the limit was raised in March"


def request(work: Coroutine[Any, Any, T]) -> Awaitable[T]:
    """``work`` as a request of its own: a task that starts with no vector slot pinned, as
    each HTTP request, MCP call and worker job does (this test is one long task)."""
    return asyncio.create_task(work, context=contextvars.Context())


async def vector_top(runtime: Runtime, query: str) -> tuple[str, float]:
    """The best hit of a vector-only search (no full-text side) and its similarity."""
    hits = await request(
        runtime.services.search.search(NS, query, k=3, options=RetrievalOptions(hybrid=False))
    )
    return hits[0].thought.content, hits[0].similarity


async def lacking(runtime: Runtime, slot: int, kind: str) -> int:
    """How many records of ``kind`` have no vector in ``slot``."""
    with pinned(slot):
        page = await runtime.repos.reembedding.missing(NS, kind, "", 10_000)
    return len(page.items)


async def switch_to(runtime: Runtime, dimension: int) -> dict[str, Any]:
    report = await request(
        runtime.services.reembedding.run(
            embedder_overrides("hash", dimension=dimension), grace_s=0.2
        )
    )
    spaces = await request(runtime.services.reembedding.status())
    return {"report": report, "spaces": spaces}


def test_reembed_fills_the_other_slot_switches_and_drops_the_old(
    loop: LoopThread, hashed_settings: Callable[..., Settings]
) -> None:
    settings = hashed_settings()

    async def scenario() -> None:
        async with open_runtime(settings) as runtime:
            await request(build_every_kind(runtime, NS))
            content, similarity = await vector_top(runtime, EXACT)
            assert content == EXACT and similarity > 0.999
            thoughts = await lacking(runtime, 1, "thoughts")
            assert thoughts > 10  # nothing in slot 1 yet

            first = await switch_to(runtime, 48)
            report, spaces = first["report"], first["spaces"]
            assert report.switched and report.slot == 1
            assert report.written["thoughts"] == thoughts
            assert report.written["reasons"] >= 3  # refine, consolidate, supersede
            assert report.written["topics"] >= 1 and report.written["episodes"] == 1
            assert (spaces.active.slot, spaces.active.embedder) == (1, "hash:48")
            assert spaces.next is None and spaces.retired_slot is None
            # Every vector is in slot 1 and none is left in slot 0.
            for kind in ("thoughts", "reasons", "topics", "episodes"):
                assert await lacking(runtime, 1, kind) == 0, kind
            assert await lacking(runtime, 0, "thoughts") == thoughts
            assert report.cleared["thoughts"] == thoughts

            # The running services follow: the query is embedded by hash:48 and compared
            # in slot 1's index; reasons are searched there too.
            content, similarity = await vector_top(runtime, EXACT)
            assert content == EXACT and similarity > 0.999
            assert runtime.services.embedder.dimension == 48  # the one used last
            reasons = await request(runtime.services.search.search_changes(NS, REASON, k=1))
            assert reasons and reasons[0].similarity > 0.999
            # A write after the switch has its vector in the new space only.
            added = "Webhooks are retried with exponential backoff"
            await request(runtime.services.thoughts.contribute(_data(added)))
            assert (await vector_top(runtime, added))[0] == added
            assert await lacking(runtime, 1, "thoughts") == 0

            # Back into slot 0, with another dimension again.
            second = await switch_to(runtime, 40)
            assert (second["spaces"].active.slot, second["spaces"].active.embedder) == (
                0,
                "hash:40",
            )
            assert second["report"].written["thoughts"] == thoughts + 1
            assert await lacking(runtime, 1, "thoughts") == thoughts + 1
            content, similarity = await vector_top(runtime, added)
            assert content == added and similarity > 0.999

        # A restart with the old configuration serves the store's embedder.
        async with open_runtime(settings) as restarted:
            assert restarted.services.embedder.name == "hash:40"
            content, similarity = await vector_top(restarted, EXACT)
            assert content == EXACT and similarity > 0.999

    loop.run(scenario(), timeout=600)


def test_a_request_whose_pin_lapsed_names_the_embedder_of_its_own_space(
    loop: LoopThread, hashed_settings: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request that outlives its pin across a switch runs its statements in the slot it
    pinned; the embedder it names (name, dimension) is that space's, not the one another
    request used last."""
    monkeypatch.setattr(vector_slots, "PIN_SECONDS", -1.0)  # every pin lapses at once
    settings = hashed_settings()

    async def scenario() -> None:
        async with open_runtime(settings) as runtime:
            await request(runtime.services.thoughts.contribute(_data(EXACT)))
            embedder = runtime.services.embedder
            embedded, switched = asyncio.Event(), asyncio.Event()

            async def outliving_its_pin() -> tuple[int, int]:
                await embedder.async_embed_query(EXACT)  # pins slot 0, lapsed at once
                embedded.set()
                await switched.wait()
                return vector_slots.current_slot(), embedder.dimension

            outliving = request(outliving_its_pin())
            await embedded.wait()
            await switch_to(runtime, 48)
            await vector_top(runtime, EXACT)  # another request embeds in slot 1
            assert embedder.dimension == 48  # no pin here: the one used last
            switched.set()
            assert await outliving == (0, 32)

    loop.run(scenario(), timeout=300)


def test_an_export_across_a_switch_fails_and_one_after_it_reads_the_new_space(
    loop: LoopThread, hashed_settings: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export reads the space it started in, however long it takes (longer than a
    request's pin), and fails when a re-embed switched the store meanwhile (its old vectors
    dropped under it); the next export reads the new space throughout."""
    monkeypatch.setattr(vector_slots, "PIN_SECONDS", -1.0)  # every request's pin lapses
    settings = hashed_settings()

    async def scenario() -> None:
        async with open_runtime(settings) as runtime:
            await request(build_every_kind(runtime, NS))
            exporter = Exporter(runtime.repos, runtime.embedder, runtime.store, page_size=3)

            async def across_a_switch() -> list[str]:
                lines = exporter.lines([NS], ExportCounts(), Quiet())
                read = [await anext(lines), await anext(lines)]  # the header, a thought
                await switch_to(runtime, 48)
                with pytest.raises(VectorSpaceChangedError, match="hash:32 to hash:48"):
                    async for line in lines:
                        read.append(line)
                return read

            read = await request(across_a_switch())
            assert json.loads(read[0])["embedder"] == "hash:32"
            assert _dimensions(read[1:]) == {32}  # never the new space's

            out = io.StringIO()
            await request(exporter.export(out, [NS], Quiet()))
            after = out.getvalue().splitlines(keepends=True)
            assert json.loads(after[0])["embedder"] == "hash:48"
            assert _dimensions(after[1:]) == {48}
            # What the failed export read after the switch had lost its vectors.
            assert _vectors(read) < _vectors(after)

    loop.run(scenario(), timeout=600)


def _dimensions(lines: list[str]) -> set[int]:
    """The lengths of the vectors among export lines."""
    records = [json.loads(line) for line in lines]
    return {len(record["vector"]) for record in records if "vector" in record}


def _vectors(lines: list[str]) -> int:
    """How many export lines carry a vector."""
    return sum("vector" in json.loads(line) for line in lines)


def _data(content: str) -> Any:
    from thoughtgraph.features.thoughts.service import ThoughtInput

    return ThoughtInput(content=content, agent_id="agent-1", agent_name="Agent", namespace=NS)
