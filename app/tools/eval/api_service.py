"""The service a user runs, in this process: the real ASGI app under uvicorn on a loopback
port (as ``thoughtgraph serve``), spoken to over HTTP GraphQL; the eval keeps a handle on
its runtime only to run what the worker would (scans, consolidation) and the in-process
strategy rows on the same store.

Ingestion is what a user importing a conversation would send: every turn as
"Speaker: text" (plus the shared photo's caption), its speaker as the agent, its
session as ``sessionId`` and the session's date as ``validFrom``, a session per
``contributeMany`` call (the stored thoughts are those ``contribute`` writes; only the
per-write guidance ``contribute`` returns is not computed, and ingestion is ~20x faster).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from thoughtgraph.api.http.app import create_http_app
from thoughtgraph.features.services import Services
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.ports.jobs import JobQueue
from thoughtgraph.runtime import Runtime, open_runtime
from thoughtgraph.settings import Settings
from thoughtgraph.store.neo4j_names import namespace_label
from thoughtgraph.tools.bench.service import ServiceThread
from thoughtgraph.tools.eval.locomo import Conversation
from thoughtgraph.tools.eval.locomo_run import TURN_STEP_MS, speaker_id

BATCH = 100  # contributeMany's limit
BARE_AGENT = "user"  # the one agent of an ingest without metadata
CONTRIBUTE_MANY = """mutation($inputs: [ContributeManyInput!]!) {
  contributeMany(inputs: $inputs) { thought { id } } }"""
SEARCH = """query($q: String!, $ns: String!, $k: Int) {
  search(query: $q, namespace: $ns, k: $k) { thought { id } } }"""
CONTEXT = """query($q: String!, $ns: String!, $budget: Int) {
  assembleContext(namespace: $ns, budget: $budget, signals: {query: $q}) { tokenCount ids } }"""


class GraphQLError(RuntimeError):
    """The service answered a GraphQL call with errors."""


@dataclass
class EvalService:
    thread: ServiceThread
    holder: dict[str, Runtime]
    http: httpx.Client = field(init=False)

    def __post_init__(self) -> None:
        self.http = httpx.Client(base_url=self.thread.base_url, timeout=120)

    @property
    def runtime(self) -> Runtime:
        return self.holder["runtime"]

    def graphql(self, document: str, **variables: Any) -> dict[str, Any]:
        answer = self.http.post("/graphql", json={"query": document, "variables": variables})
        body = answer.json()
        if answer.status_code != 200 or body.get("errors"):
            raise GraphQLError(str(body.get("errors") or answer.text)[:500])
        data: dict[str, Any] = body["data"]
        return data

    def call(self, coro: Any) -> Any:
        """Run a coroutine on the service's loop (the worker's jobs, in-process rows)."""
        return self.thread.call(coro)

    @property
    def services(self) -> Services:
        return self.runtime.services


@contextlib.contextmanager
def eval_service(
    settings: Settings, embedder: TextEmbedder, queue: JobQueue | None = None
) -> Iterator[EvalService]:
    holder: dict[str, Runtime] = {}

    @contextlib.asynccontextmanager
    async def open_services() -> AsyncIterator[Services]:
        async with open_runtime(settings, embedder=embedder, queue=queue) as runtime:
            with contextlib.suppress(Exception):
                await runtime.services.context.tokens.warm()
            holder["runtime"] = runtime
            yield runtime.services

    thread = ServiceThread(create_http_app(settings, open_services, namespace_label))
    thread.start(timeout_s=300)
    service = EvalService(thread, holder)
    try:
        yield service
    finally:
        service.http.close()
        thread.stop()


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat()


def ingest_over_api(
    service: EvalService,
    namespace: str,
    conversation: Conversation,
    step: Callable[[int], None],
    after_each: Callable[[], None] | None = None,
    *,
    bare: bool = False,
) -> dict[str, list[str]]:
    """Contribute every turn over GraphQL, a session per ``contributeMany`` call (up to
    its batch limit), in order; thought id -> the turn ids it holds (a turn repeated word
    for word is one thought). ``after_each`` runs after every call (the worker's scans).
    ``bare``: the same texts as a user who sends no metadata would, every turn by one
    agent, with no session and no date."""
    turns_of: dict[str, list[str]] = {}
    for session in conversation.sessions:
        session_id = re.sub(
            r"[^A-Za-z0-9_.:@-]", "-", f"{conversation.sample_id}-s{session.number}"
        )
        turns = list(session.turns)
        for start in range(0, len(turns), BATCH):
            chunk = turns[start : start + BATCH]
            inputs = [
                {
                    "content": turn.content,
                    "agentId": BARE_AGENT,
                    "agentName": "User",
                    "namespace": namespace,
                }
                if bare
                else {
                    "content": turn.content,
                    "agentId": speaker_id(turn.speaker),
                    "agentName": turn.speaker,
                    "namespace": namespace,
                    "sessionId": session_id,
                    "validFrom": _iso(session.at_ms + turn.index * TURN_STEP_MS),
                }
                for turn in chunk
            ]
            written = service.graphql(CONTRIBUTE_MANY, inputs=inputs)["contributeMany"]
            for turn, item in zip(chunk, written, strict=True):
                turns_of.setdefault(item["thought"]["id"], []).append(turn.dia_id)
            if after_each is not None:
                after_each()
            step(len(chunk))
    return turns_of


def as_turns(ids: list[str], turns_of: dict[str, list[str]]) -> list[str]:
    return [turn for tid in ids for turn in turns_of.get(tid, [])]


def user_search(service: EvalService, namespace: str, query: str, k: int = 10) -> list[str]:
    data = service.graphql(SEARCH, q=query, ns=namespace, k=k)
    return [hit["thought"]["id"] for hit in data["search"]]


def user_context(
    service: EvalService, namespace: str, query: str, budget: int = 4000
) -> tuple[list[str], int]:
    data = service.graphql(CONTEXT, q=query, ns=namespace, budget=budget)["assembleContext"]
    return list(data["ids"]), int(data["tokenCount"])
