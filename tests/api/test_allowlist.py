"""Agent allowlists (app/domain/allowlist.py): the YAML file in seed 001's shape, its
context modes, the policy's answers, a bad file stopping the start with a clear error;
recall never returning another category (both engines); and over real HTTP with API keys
bound to an agent, the CATEGORY_NOT_ALLOWED and AGENT_MISMATCH refusals."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.api.test_api_keys import codes
from tests.api.test_api_lineage import CONTRIBUTE, agent
from tests.knowledge_support import contribute, make_runtime
from tests.support import GraphQLClient, LoopThread, serve_in_thread
from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.container import build_services
from thoughtgraph.domain.access import Role
from thoughtgraph.domain.allowlist import (
    AllowlistPolicy,
    CategoryRule,
    ContextMode,
    effective_agent,
    load_allowlist,
)
from thoughtgraph.domain.errors import (
    AgentMismatchError,
    CategoryNotAllowedError,
    ConfigurationError,
)
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.store.cypher_store import CypherGraphStore

POLICY = """\
categories:
  system:
    - name: profile
      context: all
    - name: event
      context: rag
      rag_length: 30
    - name: tasks
      context: always
  custom:
    - name: procedural
      context: on_demand
allowlists:
  supervisor: [profile, event, tasks]
  planner: [tasks, procedural]
  stylist:
    profile: never
    event:
"""


def write(tmp_path: Path, text: str, name: str = "allowlist.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_the_seed_shape_loads_with_modes_and_overrides(tmp_path: Path) -> None:
    policy = load_allowlist(write(tmp_path, POLICY))
    supervisor = policy.rules_for("supervisor")
    assert supervisor is not None
    assert supervisor["profile"] == CategoryRule("profile", ContextMode.ALWAYS)
    assert supervisor["event"] == CategoryRule("event", ContextMode.RAG, 30)
    planner = policy.rules_for("planner")
    assert planner is not None and planner["procedural"].context is ContextMode.ON_DEMAND
    stylist = policy.rules_for("stylist")
    assert stylist is not None
    assert stylist["profile"].context is ContextMode.NEVER  # the agent's own mode wins
    assert stylist["event"] == CategoryRule("event", ContextMode.RAG, 30)  # none: the default


def test_categories_for_narrows_and_refuses(tmp_path: Path) -> None:
    policy = load_allowlist(write(tmp_path, POLICY))
    assert policy.categories_for("planner", None) == frozenset({"tasks", "procedural"})
    assert policy.categories_for("planner", set()) == frozenset({"tasks", "procedural"})
    assert policy.categories_for("planner", {"tasks"}) == frozenset({"tasks"})
    with pytest.raises(CategoryNotAllowedError) as refused:
        policy.categories_for("planner", {"tasks", "profile", "event"})
    assert refused.value.code == "CATEGORY_NOT_ALLOWED"
    assert refused.value.extensions["categories"] == ["event", "profile"]
    with pytest.raises(CategoryNotAllowedError, match="no allowlist"):
        policy.categories_for("intruder", None)
    # No agent known for the request: unrestricted, narrowed only by what it asks for.
    assert policy.categories_for(None, None) is None
    assert policy.categories_for(None, ["event"]) == frozenset({"event"})
    assert not policy.allows(frozenset({"tasks"}), None)  # uncategorised: in no allowlist
    assert policy.allows(None, None)


def test_context_assembly_gets_the_modes_it_may_use(tmp_path: Path) -> None:
    policy = load_allowlist(write(tmp_path, POLICY))
    planner = policy.context_rules("planner")
    assert planner is not None and set(planner) == {"tasks"}  # on_demand waits to be named
    named = policy.context_rules("planner", ["procedural"])
    assert named is not None and set(named) == {"procedural"}
    stylist = policy.context_rules("stylist")
    assert stylist is not None and set(stylist) == {"event"}  # profile is `never` for it
    assert policy.context_rules(None) is None
    with pytest.raises(CategoryNotAllowedError):
        policy.context_rules("planner", ["profile"])


def test_without_a_file_everything_is_unrestricted() -> None:
    policy = load_allowlist(None)
    assert policy == AllowlistPolicy.unrestricted() and not policy.configured
    assert policy.categories_for("anyone", None) is None
    assert policy.categories_for("anyone", ["x"]) == frozenset({"x"})


def test_a_default_entry_covers_agents_not_listed(tmp_path: Path) -> None:
    policy = load_allowlist(write(tmp_path, 'allowlists:\n  planner: [tasks]\n  "*": [public]\n'))
    assert policy.categories_for("newcomer", None) == frozenset({"public"})
    assert policy.categories_for("planner", None) == frozenset({"tasks"})


def test_the_key_decides_the_agent() -> None:
    assert effective_agent("planner", None) == "planner"
    assert effective_agent("planner", "planner") == "planner"
    assert effective_agent(None, "stylist") == "stylist"  # only narrows an unbound caller
    assert effective_agent(None, None) is None
    with pytest.raises(AgentMismatchError):
        effective_agent("planner", "supervisor")


@pytest.mark.parametrize(
    ("text", "fault"),
    [
        ("allowlists: [\n", "cannot be read"),
        ("- just\n- a list\n", "expected a mapping"),
        ("categories: []\n", "`allowlists` must map at least one agent"),
        ("allowlists:\n  planner: tasks\n", "agent 'planner': expected a list"),
        ("allowlists:\n  planner:\n    tasks: sometimes\n", "context mode 'sometimes'"),
        ("allowlist:\n  planner: [tasks]\n", "unknown top-level keys: allowlist"),
        (
            "categories:\n  - name: tasks\n    rag_length: 0\nallowlists:\n  planner: [tasks]\n",
            "rag_length must be at least 1",
        ),
        (
            "categories:\n  - tasks\n  - tasks\nallowlists:\n  planner: [tasks]\n",
            "defined twice",
        ),
        ("categories:\n  mine: []\nallowlists:\n  a: [b]\n", "unknown groups: mine"),
        ("allowlists:\n  planner: [tasks, 3]\n", "must be a non-empty string"),
        (
            "categories:\n  - name: tasks\n    context: rag\n    limit: 3\n"
            "allowlists:\n  planner: [tasks]\n",
            "unknown keys: limit",
        ),
    ],
)
def test_a_bad_file_is_refused_with_what_is_wrong(tmp_path: Path, text: str, fault: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigurationError) as refused:
        load_allowlist(path)
    assert str(path) in refused.value.message and fault in refused.value.message


def test_a_bad_or_missing_file_stops_the_start(
    falkordb_store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path
) -> None:
    for path in (write(tmp_path, "allowlists: {}\n"), tmp_path / "missing.yaml"):
        settings = Settings(data_dir=tmp_path / "data", allowlist_file=path)
        with pytest.raises(ConfigurationError, match="allowlist file"):
            build_services(falkordb_store, local_embedder, settings=settings)


# --- recall under an allowlist, both engines ------------------------------------------------

NOTES = {
    "tasks": "Deploy the billing service on Friday after the database migration.",
    "profile": "The billing service owner prefers deploys on Friday mornings.",
    "event": "The billing service deploy on Friday failed during the database migration.",
    None: "Billing service deploys happen on Fridays after the migration.",
}
QUESTIONS = (
    "When is the billing service deployed?",
    "What happened to the billing deploy?",
    "Who owns the billing service?",
)


@pytest.fixture
def guarded(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path
) -> Iterator[Runtime]:
    runtime = make_runtime(store, local_embedder, tmp_path, allowlist_file=write(tmp_path, POLICY))
    yield runtime
    loop.run(runtime.services.close())


def test_recall_never_returns_another_category(loop: LoopThread, guarded: Runtime, ns: str) -> None:
    for category, text in NOTES.items():
        contribute(loop, guarded, ns, text, category=category)
    recall = guarded.services.recall
    seen: set[str | None] = set()
    for question in QUESTIONS:
        for who, allowed in (("planner", {"tasks"}), ("supervisor", {"tasks", "profile", "event"})):
            answer = loop.run(recall.recall(ns, question, k=5, agent=who))
            assert answer.hits and {h.thought.category for h in answer.hits} <= allowed
            assert set(answer.sources) <= {h.thought.id for h in answer.hits}
        narrowed = loop.run(recall.recall(ns, question, agent="supervisor", categories=["event"]))
        assert [h.thought.category for h in narrowed.hits] == ["event"]
        everyone = loop.run(recall.recall(ns, question, k=5))  # no agent: unrestricted
        seen |= {hit.thought.category for hit in everyone.hits}
    assert seen == set(NOTES)
    with pytest.raises(CategoryNotAllowedError):
        loop.run(recall.recall(ns, QUESTIONS[0], agent="planner", categories=["profile"]))


# --- over HTTP, with keys bound to agents --------------------------------------------------

RECALL = """
query($q: String!, $ns: String!, $agent: String, $categories: [String!]) {
  recall(question: $q, namespace: $ns, k: 5, agent: $agent, categories: $categories) {
    answer sourceIds hits { thought { category } }
  }
}"""


@dataclass
class KeyedService:
    api: GraphQLClient
    keys: dict[str, str]  # name -> key text

    def body(self, key: str, document: str, **variables: Any) -> dict[str, Any]:
        headers = {"authorization": f"Bearer {self.keys[key]}"}
        response = self.api.post(document, headers=headers, **variables)
        assert response.status_code == 200, response.text
        result: dict[str, Any] = response.json()
        return result


@pytest.fixture
def keyed(
    engine_settings: Callable[..., Settings],
    local_embedder: TextEmbedder,
    tmp_path: Path,
    ns: str,
) -> Iterator[KeyedService]:
    keys = KeyFile(tmp_path / "keys.json")
    texts = {}
    for name, bound, role in (
        ("planner", "planner", Role.READER),
        ("admin", None, Role.ADMIN),
    ):
        _, texts[name] = keys.create(
            name=name,
            namespaces=[ns],
            agent_id=f"{name}-bot",
            agent_name=name.title(),
            role=role,
            agent=bound,
        )
    settings = engine_settings(
        embedder=EmbedderKind.LOCAL,
        keys_file=keys.path,
        allowlist_file=write(tmp_path, POLICY),
    )
    with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
        api = GraphQLClient(base_url)
        try:
            yield KeyedService(api, texts)
        finally:
            api.close()


SEARCH = """
query($ns: String!, $q: String!, $agent: String, $categories: [String!]) {
  search(namespace: $ns, query: $q, k: 10, agent: $agent, filter: {categories: $categories}) {
    thought { category }
  }
  searchTiered(namespace: $ns, query: $q, agent: $agent) {
    topics { topic { id } } hits { thought { category } }
  }
}"""

ASSEMBLE = """
query($ns: String!, $q: String!, $agent: String) {
  assembleContext(namespace: $ns, budget: 2000, signals: {query: $q, agent: $agent}) {
    ids text
  }
}"""


def test_keys_bound_to_an_agent_read_only_its_categories(keyed: KeyedService, ns: str) -> None:
    category_of: dict[str, str | None] = {}
    for category, text in NOTES.items():
        written = keyed.body("admin", CONTRIBUTE, input=agent(ns, text, category=category))
        assert not written.get("errors"), written
        category_of[written["data"]["contribute"]["thought"]["id"]] = category
    question = QUESTIONS[0]
    mine = keyed.body("planner", RECALL, q=question, ns=ns)["data"]["recall"]
    assert mine["hits"] and {h["thought"]["category"] for h in mine["hits"]} == {"tasks"}
    refused = keyed.body("planner", RECALL, q=question, ns=ns, categories=["profile"])
    assert codes(refused) == ["CATEGORY_NOT_ALLOWED"] and refused["data"] is None
    assert "profile" in refused["errors"][0]["message"]
    posing = keyed.body("planner", RECALL, q=question, ns=ns, agent="supervisor")
    assert codes(posing) == ["AGENT_MISMATCH"]
    # A key bound to no agent reads unrestricted, or as the agent it names.
    everything = keyed.body("admin", RECALL, q=question, ns=ns)["data"]["recall"]
    assert len({h["thought"]["category"] for h in everything["hits"]}) > 1
    as_planner = keyed.body("admin", RECALL, q=question, ns=ns, agent="planner")["data"]["recall"]
    assert {h["thought"]["category"] for h in as_planner["hits"]} == {"tasks"}
    unknown = keyed.body("admin", RECALL, q=question, ns=ns, agent="intruder")
    assert codes(unknown) == ["CATEGORY_NOT_ALLOWED"]
    # Search, in the store: only the allowed categories, whatever the filter asks.
    found = keyed.body("planner", SEARCH, ns=ns, q=question)["data"]
    assert {h["thought"]["category"] for h in found["search"]} == {"tasks"}
    assert {h["thought"]["category"] for h in found["searchTiered"]["hits"]} == {"tasks"}
    assert found["searchTiered"]["topics"] == []
    outside = keyed.body("planner", SEARCH, ns=ns, q=question, categories=["profile"])
    assert codes(outside) == ["CATEGORY_NOT_ALLOWED"]
    unrestricted = keyed.body("admin", SEARCH, ns=ns, q=question)["data"]["search"]
    assert len({h["thought"]["category"] for h in unrestricted}) == len(NOTES)
    # Context assembly: the same allowlist, `never` and `on_demand` categories left out.
    theirs = keyed.body("planner", ASSEMBLE, ns=ns, q=question)["data"]["assembleContext"]
    assert theirs["ids"] and {category_of[i] for i in theirs["ids"] if i in category_of} == {
        "tasks"
    }
    whole = keyed.body("admin", ASSEMBLE, ns=ns, q=question)["data"]["assembleContext"]
    assert len({category_of[i] for i in whole["ids"] if i in category_of}) > 1
    posing_context = keyed.body("planner", ASSEMBLE, ns=ns, q=question, agent="supervisor")
    assert codes(posing_context) == ["AGENT_MISMATCH"]


def test_the_keys_command_binds_a_key_to_an_agent(tmp_path: Path) -> None:
    from tests.api.test_api_keys import keys_command

    created = keys_command(
        tmp_path, "create", "--name", "planner bot", "--namespace", "team-a",
        "--agent-id", "planner-bot", "--agent", "planner", "--role", "reader",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    (key,) = KeyFile(tmp_path / "keys.json").all_keys()
    assert key.agent == "planner" and key.agent_id == "planner-bot"
    unbound = keys_command(
        tmp_path, "create", "--name", "x", "--namespace", "team-a", "--agent-id", "x"
    )
    assert unbound.returncode == 0, unbound.stderr
    assert KeyFile(tmp_path / "keys.json").all_keys()[1].agent is None
