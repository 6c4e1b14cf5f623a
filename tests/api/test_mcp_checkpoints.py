"""Deleting a checkpoint thread through `thoughtgraph mcp` (streamable HTTP, the MCP SDK's
own client), on both engines, with keys acting for Ana and Bob: the tool deletes the
caller's checkpoints of that thread only, a bad thread id is a VALIDATION_ERROR tool error
that deletes nothing, and another user's thread of the same id stays."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession

from tests.mcp_support import call, keyed_env, mcp_server, refused, user_keys
from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.settings import Settings

USERS = ("ana", "bob")


async def newest(session: ClientSession, ns: str, thread: str) -> str | None:
    """The id of the caller's newest checkpoint of the thread (None: it has none)."""
    loaded = await call(session, "load_checkpoint", thread_id=thread, namespace=ns)
    found: dict[str, Any] | None = loaded["checkpoint"]
    return str(found["id"]) if found is not None else None


async def revision(session: ClientSession, ns: str) -> int:
    return int((await call(session, "changes", namespace=ns))["revision"])


def test_deleting_a_thread_over_mcp(
    engine_settings: Callable[..., Settings],
    tmp_path: Path,
    ns: str,
    request: pytest.FixtureRequest,
) -> None:
    keys = KeyFile(tmp_path / "keys.json")
    texts = user_keys(keys, ns, USERS)
    env = keyed_env(engine_settings, request, keys)

    async def scenario() -> None:
        with mcp_server("http", env, tmp_path / "mcp.log") as server:
            async with server.session(texts["bob"]) as bob:
                await call(bob, "save_checkpoint", thread_id="run-1", data="{}", namespace=ns)
            async with server.session(texts["ana"]) as ana:
                listed = {tool.name: tool for tool in (await ana.list_tools()).tools}
                hints = listed["delete_checkpoint_thread"].annotations
                assert hints is not None and hints.destructive_hint and not hints.read_only_hint
                for step, thread in (("a", "run-1"), ("b", "run-1"), ("k", "run-2")):
                    await call(
                        ana, "save_checkpoint", thread_id=thread, data="{}", checkpoint_id=step,
                        namespace=ns,
                    )  # fmt: skip
                before = await revision(ana, ns)

                # A bad thread id: the tool error the other tools answer, nothing deleted.
                for bad in ("bad thread!", "", "x" * 129):
                    code = await refused(
                        ana, "delete_checkpoint_thread", thread_id=bad, namespace=ns
                    )
                    assert code == "VALIDATION_ERROR", bad
                assert await revision(ana, ns) == before
                assert await newest(ana, ns, "run-1") == "b"

                result = await ana.call_tool(
                    "delete_checkpoint_thread", {"thread_id": "run-1", "namespace": ns}
                )
                assert not result.is_error, result.content
                assert result.structured_content == {
                    "thread_id": "run-1",
                    "prefix": False,
                    "deleted": 2,
                }
                assert result.content[0].text == "deleted 2 checkpoints of run-1"  # type: ignore[union-attr]
                assert await newest(ana, ns, "run-1") is None
                listed_after = await call(ana, "list_checkpoints", thread_id="run-1", namespace=ns)
                assert listed_after == {"checkpoints": []}
                assert await newest(ana, ns, "run-2") == "k"
                assert await revision(ana, ns) == before + 1  # one write, one event

                # Nothing of Ana's left there: 0, and nothing written.
                again = await call(ana, "delete_checkpoint_thread", thread_id="run-1", namespace=ns)
                assert again["deleted"] == 0
                assert await revision(ana, ns) == before + 1
            async with server.session(texts["bob"]) as bob:
                # Bob's thread of the same id stays; his key cannot reach Ana's run-2.
                assert await newest(bob, ns, "run-1") is not None
                gone = await call(bob, "delete_checkpoint_thread", thread_id="run-2", namespace=ns)
                assert gone["deleted"] == 0
            async with server.session(texts["ana"]) as ana:
                assert await newest(ana, ns, "run-2") == "k"

    asyncio.run(scenario())
