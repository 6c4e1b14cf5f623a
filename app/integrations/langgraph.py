"""A LangGraph checkpointer kept by the service, over its GraphQL API.

Switching from LangGraph's in-memory saver is one line::

    graph = builder.compile(checkpointer=ThoughtgraphSaver("http://127.0.0.1:8000"))

It maps a LangGraph thread and checkpoint namespace to one service thread (``thread_key``),
keeps LangGraph's checkpoint and parent ids, and stores each checkpoint with its metadata
(serialised by ``serde``, base64) in ``data``. The pending writes of checkpoint ``C`` are
checkpoints of the thread ``<thread>@w@<C>``, one a write, id ``<task_id>.<idx>``: a retry
saves nothing twice. All service threads of one LangGraph thread share its prefix
(thoughtgraph.integrations.langgraph_keys), so ``delete_thread`` deletes them all in one
request. docs/guide/graphql.md ("Checkpoints") has the details and limits.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    PendingWrite,
    get_checkpoint_id,
    get_checkpoint_metadata,
    writes_sort_key,
)
from langgraph.checkpoint.serde.base import SerializerProtocol

from thoughtgraph.integrations.langgraph_keys import (
    digest,
    part,
    thread_key,
    thread_prefix,
    writes_key,
)

__all__ = ["ThoughtgraphError", "ThoughtgraphSaver", "thread_key", "thread_prefix"]

PAGE = 100  # the service's largest page of checkpoints

_FIELDS = "id parentId data"
SAVE = """mutation($ns: String!, $thread: String!, $data: String!, $id: ID, $parent: ID,
  $meta: String) { saveCheckpoint(namespace: $ns, threadId: $thread, data: $data, id: $id,
  parentId: $parent, metadata: $meta) { id } }"""
GET = f"""query($ns: String!, $thread: String!, $id: ID) {{
  checkpoint(namespace: $ns, threadId: $thread, id: $id) {{ {_FIELDS} }} }}"""
LIST = f"""query($ns: String!, $thread: String!, $first: Int, $before: ID) {{
  checkpoints(namespace: $ns, threadId: $thread, first: $first, before: $before) {{
  {_FIELDS} }} }}"""
DELETE = """mutation($ns: String!, $thread: String!) {
  deleteCheckpointThread(namespace: $ns, threadId: $thread, prefix: true) }"""


class ThoughtgraphError(RuntimeError):
    """The service refused a request (its GraphQL errors, or an HTTP error status)."""


@dataclass(frozen=True)
class _Request:
    query: str
    variables: dict[str, Any]


# A plan yields requests (and is sent their answers) and results (and is sent None).
_Plan = Generator["_Request | CheckpointTuple", "dict[str, Any] | None", Any]


def _location(config: RunnableConfig) -> tuple[str, str]:
    configurable = config.get("configurable") or {}
    if configurable.get("thread_id") is None:
        raise NotImplementedError(
            "ThoughtgraphSaver needs a thread_id: the service lists one thread at a time"
        )
    return str(configurable["thread_id"]), str(configurable.get("checkpoint_ns") or "")


class ThoughtgraphSaver(BaseCheckpointSaver[int]):
    """LangGraph's checkpointer interface over a thoughtgraph service's GraphQL API."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        namespace: str = "default",
        timeout: float = 30.0,
        serde: SerializerProtocol | None = None,
    ) -> None:
        super().__init__(serde=serde)
        self.url = base_url.rstrip("/") + "/graphql"
        self.namespace = namespace
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout
        self._client = httpx.Client(headers=self._headers, timeout=timeout)
        self._async: tuple[asyncio.AbstractEventLoop, httpx.AsyncClient] | None = None

    def close(self) -> None:  # the async client: aclose
        self._client.close()

    async def aclose(self) -> None:
        if self._async:
            await self._async[1].aclose()
            self._async = None

    # -- transport ---------------------------------------------------------------------

    def _answer(self, response: httpx.Response) -> dict[str, Any]:
        try:
            body = response.json()
        except ValueError:
            response.raise_for_status()
            raise ThoughtgraphError(f"not a GraphQL answer: {response.text[:200]}") from None
        if body.get("errors"):
            messages = "; ".join(str(e.get("message")) for e in body["errors"])
            raise ThoughtgraphError(f"the service refused the request: {messages}")
        response.raise_for_status()
        data: dict[str, Any] = body["data"]
        return data

    def _post(self, request: _Request) -> dict[str, Any]:
        body = {"query": request.query, "variables": request.variables}
        return self._answer(self._client.post(self.url, json=body))

    async def _apost(self, request: _Request) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        if self._async is None or self._async[0] is not loop:  # a client per event loop
            self._async = (loop, httpx.AsyncClient(headers=self._headers, timeout=self._timeout))
        body = {"query": request.query, "variables": request.variables}
        return self._answer(await self._async[1].post(self.url, json=body))

    def _run(self, plan: _Plan) -> Iterator[CheckpointTuple]:
        answer: dict[str, Any] | None = None
        while True:
            try:
                item = plan.send(answer)
            except StopIteration:
                return
            if isinstance(item, _Request):
                answer = self._post(item)
            else:
                answer = None
                yield item

    async def _arun(self, plan: _Plan) -> AsyncIterator[CheckpointTuple]:
        answer: dict[str, Any] | None = None
        while True:
            try:
                item = plan.send(answer)
            except StopIteration:
                return
            if isinstance(item, _Request):
                answer = await self._apost(item)
            else:
                answer = None
                yield item

    # -- serialisation -----------------------------------------------------------------

    def _dumps(self, value: Any) -> dict[str, str]:
        kind, raw = self.serde.dumps_typed(value)
        return {"type": kind, "bytes": base64.b64encode(raw).decode("ascii")}

    def _loads(self, stored: dict[str, str]) -> Any:
        return self.serde.loads_typed((stored["type"], base64.b64decode(stored["bytes"])))

    def _variables(self, thread: str, **more: Any) -> dict[str, Any]:
        return {"ns": self.namespace, "thread": thread, **more}

    # -- plans: the requests each operation makes, for either transport ------------------

    def _writes_plan(self, thread: str, checkpoint_id: str) -> _Plan:
        """The pending writes of a checkpoint, in LangGraph's replay order."""
        records: list[dict[str, Any]] = []
        before: str | None = None
        while True:
            variables = self._variables(writes_key(thread, checkpoint_id), first=PAGE)
            answer = yield _Request(LIST, variables | {"before": before})
            assert answer is not None
            page = answer["checkpoints"]
            records.extend(json.loads(found["data"]) for found in page)
            if not page:  # a short page is not the end: the service caps a page's bytes
                break
            before = page[-1]["id"]
        newest: dict[tuple[str, int], dict[str, Any]] = {}
        for record in records:  # newest first: a replaced special write is older
            newest.setdefault((record["task_id"], record["idx"]), record)
        ordered = sorted(
            newest.values(), key=lambda r: writes_sort_key(r["task_path"], r["task_id"], r["idx"])
        )
        return [(r["task_id"], r["channel"], self._loads(r["value"])) for r in ordered]

    def _tuple_plan(self, thread_id: str, ns: str, found: dict[str, Any]) -> _Plan:
        data = json.loads(found["data"])
        writes: list[PendingWrite] = yield from self._writes_plan(
            thread_key(thread_id, ns), found["id"]
        )
        location = {"thread_id": thread_id, "checkpoint_ns": ns}
        parent = found.get("parentId")
        yield CheckpointTuple(
            config={"configurable": {**location, "checkpoint_id": found["id"]}},
            checkpoint=self._loads(data["checkpoint"]),
            metadata=self._loads(data["metadata"]),
            parent_config={"configurable": {**location, "checkpoint_id": parent}}
            if parent
            else None,
            pending_writes=writes,
        )

    def _get_plan(self, config: RunnableConfig) -> _Plan:
        thread_id, ns = _location(config)
        variables = self._variables(thread_key(thread_id, ns), id=get_checkpoint_id(config))
        answer = yield _Request(GET, variables)
        assert answer is not None
        if answer["checkpoint"] is not None:
            yield from self._tuple_plan(thread_id, ns, answer["checkpoint"])

    def _list_plan(
        self,
        config: RunnableConfig | None,
        filter: dict[str, Any] | None,
        before: RunnableConfig | None,
        limit: int | None,
    ) -> _Plan:
        thread_id, ns = _location(config or {})
        thread = thread_key(thread_id, ns)
        wanted = get_checkpoint_id(config) if config else None
        cursor = get_checkpoint_id(before) if before else None
        remaining = limit
        while remaining is None or remaining > 0:
            if wanted is not None:
                answer = yield _Request(GET, self._variables(thread, id=wanted))
                assert answer is not None
                page = [answer["checkpoint"]] if answer["checkpoint"] else []
            else:
                variables = self._variables(thread, first=PAGE, before=cursor)
                answer = yield _Request(LIST, variables)
                assert answer is not None
                page = answer["checkpoints"]
            for found in page:
                if wanted is not None and cursor is not None and wanted >= cursor:
                    return
                metadata = self._loads(json.loads(found["data"])["metadata"])
                if filter and any(metadata.get(k) != v for k, v in filter.items()):
                    continue
                yield from self._tuple_plan(thread_id, ns, found)
                remaining = None if remaining is None else remaining - 1
                if remaining is not None and remaining <= 0:
                    return
            if wanted is not None or not page:
                return
            cursor = page[-1]["id"]

    def _put_plan(
        self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata
    ) -> _Plan:
        thread_id, ns = _location(config)
        full = get_checkpoint_metadata(config, metadata)
        data = {"checkpoint": self._dumps(checkpoint), "metadata": self._dumps(full)}
        shown = {k: full[k] for k in ("source", "step") if k in full}
        yield _Request(
            SAVE,
            self._variables(
                thread_key(thread_id, ns),
                data=json.dumps(data),
                id=checkpoint["id"],
                parent=(config.get("configurable") or {}).get("checkpoint_id"),
                meta=json.dumps(shown),
            ),
        )

    def _writes_put_plan(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, path: str
    ) -> _Plan:
        thread_id, ns = _location(config)
        checkpoint_id = (config.get("configurable") or {})["checkpoint_id"]
        thread = writes_key(thread_key(thread_id, ns), checkpoint_id)
        for position, (channel, value) in enumerate(writes):
            idx = WRITES_IDX_MAP.get(channel, position)
            stored = self._dumps(value)
            write_id = f"{part(task_id)}.{idx}"
            if idx < 0:  # special writes are replaced: a new value is a new, newer record
                write_id += "." + digest(channel, stored["type"], stored["bytes"])[:16]
            record = {"task_id": task_id, "task_path": path, "idx": idx, "channel": channel}
            data = json.dumps(record | {"value": stored})
            yield _Request(SAVE, self._variables(thread, data=data, id=write_id))

    # -- BaseCheckpointSaver -----------------------------------------------------------

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        return next(self._run(self._get_plan(config)), None)

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        yield from self._run(self._list_plan(config, filter, before, limit))

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        list(self._run(self._put_plan(config, checkpoint, metadata)))
        return self._saved(config, checkpoint)

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        list(self._run(self._writes_put_plan(config, writes, task_id, task_path)))

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        async for found in self._arun(self._get_plan(config)):
            return found
        return None

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        async for found in self._arun(self._list_plan(config, filter, before, limit)):
            yield found

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        [_ async for _ in self._arun(self._put_plan(config, checkpoint, metadata))]
        return self._saved(config, checkpoint)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        [_ async for _ in self._arun(self._writes_put_plan(config, writes, task_id, task_path))]

    def delete_thread(self, thread_id: str) -> None:
        """Deletes the thread's checkpoints in every checkpoint namespace, and their
        pending writes: one request, a delete by the thread's prefix."""
        self._post(self._delete_request(thread_id))

    async def adelete_thread(self, thread_id: str) -> None:
        await self._apost(self._delete_request(thread_id))

    def _delete_request(self, thread_id: str) -> _Request:
        return _Request(DELETE, self._variables(thread_prefix(str(thread_id))))

    @staticmethod
    def _saved(config: RunnableConfig, checkpoint: Checkpoint) -> RunnableConfig:
        configurable = config.get("configurable") or {}
        ns = configurable.get("checkpoint_ns") or ""
        where = {"thread_id": configurable["thread_id"], "checkpoint_ns": ns}
        return {"configurable": where | {"checkpoint_id": checkpoint["id"]}}
