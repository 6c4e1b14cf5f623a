"""Re-embedding a running service, on both engines: `thoughtgraph reembed` (a process of
its own, attached to the service's engine) is killed halfway and run again, and finishes
where it stopped; meanwhile a client searches over HTTP without pause. The new embedder is
a hosted model played by the test's OpenAI-compatible server (16 dimensions, slowed down so
the kill lands between two of its requests); the old one is the 32-dimensional hash
embedder, so a search that mixed the two spaces could not find its exact text."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.support import THOUGHTGRAPH_CLI, GraphQLClient, eventually, serve_in_thread
from thoughtgraph.server import create_app
from thoughtgraph.settings import Settings

pytestmark = pytest.mark.slow

THOUGHTS = 300
NS = "live"
MODEL = "openai/text-embedding-fake"
CONTRIBUTE_MANY = """mutation($inputs: [ContributeManyInput!]!) {
  contributeMany(inputs: $inputs) { revision } }"""
SEARCH = """query($q: String!, $ns: String!) {
  search(query: $q, namespace: $ns, k: 3, hybrid: false) { thought { content } similarity } }"""
SPACES = """{ vectorSpaces { active { slot embedder dimension } next { slot embedder dimension }
  retiredSlot } }"""


def content(i: int) -> str:
    return f"Runbook note {i}: service {i % 17} restarts after {i % 7 + 1} failed health checks"


@dataclass
class Searcher:
    """Searches for exact texts in a loop until stopped; keeps how similar each text's own
    hit was (-1 when it was not among the hits: ranking weighs more than similarity)."""

    api: GraphQLClient
    probes: list[str]
    answers: list[tuple[str, float]] = field(default_factory=list)  # the probe's similarity
    errors: list[Any] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        turn = 0
        while not self._stop.is_set():
            probe = self.probes[turn % len(self.probes)]
            turn += 1
            body = self.api.execute(SEARCH, q=probe, ns=NS)
            if body.get("errors"):
                self.errors.append(body["errors"])
                continue
            hits = body["data"]["search"]
            exact = [h["similarity"] for h in hits if h["thought"]["content"] == probe]
            self.answers.append((probe, max(exact, default=-1.0)))

    @classmethod
    @contextlib.contextmanager
    def running(cls, api: GraphQLClient, probes: list[str]) -> Iterator[Searcher]:
        searcher = cls(api, probes)
        thread = threading.Thread(target=searcher.run, daemon=True)
        thread.start()
        try:
            yield searcher
        finally:
            searcher._stop.set()
            thread.join(timeout=60)


def cli_env(settings: Settings, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TG_")}
    env.update(
        settings.child_environment(),
        TG_DATA_DIR=str(settings.data_dir),
        TG_EMBEDDING_API_KEY="test-key",
        TG_LOG_FORMAT="json",
    )
    env.update(extra)
    return env


def test_a_killed_reembed_resumes_and_search_answers_throughout(
    hashed_settings: Callable[..., Settings],
) -> None:
    settings = hashed_settings(embedding_api_key="test-key")
    probes = [content(i) for i in (3, 150, 299)]
    with FakeOpenAIServer() as model, serve_in_thread(create_app(settings)) as base_url:
        api = GraphQLClient(base_url)
        for start in range(0, THOUGHTS, 100):
            inputs = [
                {"content": content(i), "agentId": "a", "agentName": "A", "namespace": NS}
                for i in range(start, start + 100)
            ]
            api.data(CONTRIBUTE_MANY, inputs=inputs)
        args = [
            *THOUGHTGRAPH_CLI,
            "reembed",
            "--embedder=litellm",
            f"--model={MODEL}",
            f"--api-base={model.base_url}",
            "--dimension=16",
            "--grace=1",
        ]
        model.embedding_delay_s = 0.3
        with Searcher.running(api, probes) as searcher:
            first = subprocess.Popen(args, env=cli_env(settings), stderr=subprocess.PIPE)
            # Each page of 128 thoughts is 4 requests of 32, written before the next page:
            # after 6 requests the first page is in the new space, and the run is not done.
            eventually(lambda: len(model.embedding_requests) >= 6, 120, "half a re-embed")
            first.kill()
            first.wait(timeout=30)
            halfway = api.data(SPACES)["vectorSpaces"]
            assert halfway["active"] == {"slot": 0, "embedder": "hash:32", "dimension": 32}
            assert halfway["next"] == {"slot": 1, "embedder": f"litellm:{MODEL}", "dimension": 16}
            before_switch = len(searcher.answers)

            second = subprocess.run(
                args, env=cli_env(settings), capture_output=True, text=True, timeout=300
            )
            assert second.returncode == 0, second.stderr
            written = re.search(r"re-embedded (\d+) thoughts", second.stderr)
            assert written is not None, second.stderr
            assert 0 < int(written.group(1)) <= THOUGHTS - 128  # resumed, not started over
            served_from = len(model.embedding_requests)  # from here on: the service's own
            answered = len(searcher.answers)
            eventually(lambda: len(searcher.answers) > answered + 10, 60, "searches after it")
        done = api.data(SPACES)["vectorSpaces"]
        assert done == {
            "active": {"slot": 1, "embedder": f"litellm:{MODEL}", "dimension": 16},
            "next": None,
            "retiredSlot": None,
        }
        assert not searcher.errors, searcher.errors[:3]
        assert len(searcher.answers) > 20
        wrong = [(i, answer) for i, answer in enumerate(searcher.answers) if answer[1] < 0.999]
        assert not wrong, (len(searcher.answers), before_switch, wrong[:5])
        # The service's own searches now embed their queries with the hosted model.
        asked = [r.json["input"] for r in model.embedding_requests[served_from:]]
        assert asked and all(texts in ([p] for p in probes) for texts in asked), asked[:3]
        api.close()
