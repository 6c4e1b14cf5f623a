"""Scopes through the interfaces, on both engines: keys that act for a user, GraphQL over
real HTTP and MCP over streamable HTTP. A private thought is its user's alone, system
thoughts are an admin's to write and change, a namespace's default scope applies to a
write that names none, and a refused write writes nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.test_api_keys import Keyed, codes, keys_command
from tests.mcp_support import call, everything, keyed_env, mcp_server, user_keys
from tests.support import GraphQLClient, serve_in_thread
from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.domain.access import Role
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings

FIELDS = "id content scope ownerId superseded refinedBy { id }"
CONTRIBUTE = f"""
mutation($input: ContributeInput!) {{ contribute(input: $input) {{ thought {{ {FIELDS} }} }} }}
"""
REFINE = f"mutation($input: RefineInput!) {{ refine(input: $input) {{ thought {{ {FIELDS} }} }} }}"
SEARCH = f"""
query($q: String!, $ns: String!) {{ search(query: $q, namespace: $ns, threshold: -1) {{
  thought {{ {FIELDS} }} }} }}
"""
THOUGHT = f"query($id: ID!, $ns: String!) {{ thought(id: $id, namespace: $ns) {{ {FIELDS} }} }}"
LINEAGE = "query($id: ID!, $ns: String!) { lineage(id: $id, namespace: $ns) { thoughtId } }"
HISTORY = "query($id: ID!, $ns: String!) { history(thoughtId: $id, namespace: $ns) { kind } }"
FORGET = "mutation($id: ID!, $ns: String!) { forget(id: $id, namespace: $ns) { id state } }"
REVISION = "query($ns: String!) { changes(namespace: $ns) { revision } }"
USERS = {"alice": "alice", "bob": "bob", "team": None}


@pytest.fixture
def keyed(
    engine_settings: Callable[..., Settings],
    local_embedder: TextEmbedder,
    tmp_path: Path,
    ns: str,
) -> Iterator[Keyed]:
    """Writer keys of alice and bob (each acting for that user) and of the team (for no
    user), and an admin key, on ``ns`` (shared by default) and ``ns``-mine (private)."""
    keys = KeyFile(tmp_path / "keys.json")
    texts, ids = {}, {}
    for name, user in (*USERS.items(), ("admin", None)):
        key, text = keys.create(
            name=name,
            namespaces=[ns, f"{ns}-mine"],
            agent_id=f"{name}-bot",
            agent_name=f"{name.title()} Bot",
            role=Role.ADMIN if name == "admin" else Role.WRITER,
            user=user,
        )
        texts[name], ids[name] = text, key.key_id
    settings = engine_settings(
        embedder=EmbedderKind.LOCAL, keys_file=keys.path, scope_defaults=f"{ns}-mine=private"
    )
    with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
        api = GraphQLClient(base_url)
        try:
            yield Keyed(api, keys, texts, ids)
        finally:
            api.close()


def written(keyed: Keyed, who: str, ns: str, content: str, **extra: Any) -> dict[str, Any]:
    data = {"content": content, "agentId": "x", "agentName": "x", "namespace": ns, **extra}
    body = keyed.body(CONTRIBUTE, keyed.texts[who], input=data)
    assert not body.get("errors"), body
    thought: dict[str, Any] = body["data"]["contribute"]["thought"]
    return thought


def found(keyed: Keyed, who: str, ns: str, query: str) -> list[str]:
    body = keyed.body(SEARCH, keyed.texts[who], q=query, ns=ns)
    assert not body.get("errors"), body
    return [hit["thought"]["content"] for hit in body["data"]["search"]]


def test_a_private_thought_is_its_users_alone(keyed: Keyed, ns: str) -> None:
    secret = written(keyed, "alice", ns, "Alice's locker code is 4711.", scope="PRIVATE")
    assert (secret["scope"], secret["ownerId"]) == ("PRIVATE", "alice")
    shared = written(keyed, "bob", ns, "The locker room opens at seven.")
    assert (shared["scope"], shared["ownerId"]) == ("SHARED", None)

    assert secret["content"] in found(keyed, "alice", ns, "locker code")
    for other in ("bob", "team", "admin"):  # an admin key acts for no user either
        assert found(keyed, other, ns, "locker code") == [shared["content"]]
        assert keyed.body(THOUGHT, keyed.texts[other], id=secret["id"], ns=ns)["data"] == {
            "thought": None
        }
        for document in (LINEAGE, HISTORY, FORGET):
            refused = keyed.body(document, keyed.texts[other], id=secret["id"], ns=ns)
            assert codes(refused) == ["THOUGHT_NOT_FOUND"], refused
    before = keyed.body(REVISION, keyed.texts["admin"], ns=ns)["data"]["changes"]["revision"]
    refine = {"content": "It is 4712.", "agentId": "x", "agentName": "x", "namespace": ns}
    refused = keyed.body(REFINE, keyed.texts["bob"], input=refine | {"sourceId": secret["id"]})
    assert codes(refused) == ["THOUGHT_NOT_FOUND"]
    after = keyed.body(REVISION, keyed.texts["admin"], ns=ns)["data"]["changes"]["revision"]
    assert after == before  # nothing written


def test_a_private_refinement_changes_nothing_for_the_others(keyed: Keyed, ns: str) -> None:
    shared = written(keyed, "team", ns, "Deploys go out on Tuesdays.")
    body = keyed.body(
        REFINE,
        keyed.texts["alice"],
        input={
            "content": "Deploys go out on Tuesdays, and I hold mine until Wednesday.",
            "agentId": "x",
            "agentName": "x",
            "namespace": ns,
            "sourceId": shared["id"],
            "scope": "PRIVATE",
        },
    )
    assert body["data"]["refine"]["thought"]["scope"] == "PRIVATE"
    as_bob = keyed.body(THOUGHT, keyed.texts["bob"], id=shared["id"], ns=ns)["data"]["thought"]
    assert (as_bob["superseded"], as_bob["refinedBy"]) == (False, None)
    as_alice = keyed.body(THOUGHT, keyed.texts["alice"], id=shared["id"], ns=ns)["data"]["thought"]
    assert as_alice["superseded"] and as_alice["refinedBy"] is not None


def test_system_thoughts_are_written_and_changed_by_admins_only(keyed: Keyed, ns: str) -> None:
    data = {"content": "Answer in British English.", "agentId": "x", "agentName": "x"}
    refused = keyed.body(
        CONTRIBUTE, keyed.texts["team"], input=data | {"namespace": ns, "scope": "SYSTEM"}
    )
    assert codes(refused) == ["FORBIDDEN"]
    rule = written(keyed, "admin", ns, data["content"], scope="SYSTEM")
    assert rule["scope"] == "SYSTEM"
    for who in USERS:  # read by everyone, changed by no one but an admin
        assert rule["content"] in found(keyed, who, ns, "British English")
        refused = keyed.body(FORGET, keyed.texts[who], id=rule["id"], ns=ns)
        assert codes(refused) == ["FORBIDDEN"]
    forgotten = keyed.body(FORGET, keyed.texts["admin"], id=rule["id"], ns=ns)
    assert forgotten["data"]["forget"]["state"] == "SOFT_DELETED"


def test_a_namespaces_default_scope_applies_to_a_write_that_names_none(
    keyed: Keyed, ns: str
) -> None:
    mine = f"{ns}-mine"
    note = written(keyed, "alice", mine, "Book the dentist for Friday.")
    assert (note["scope"], note["ownerId"]) == ("PRIVATE", "alice")
    assert found(keyed, "bob", mine, "dentist") == []
    # A key acting for no user has no one to own a private thought: refused, not widened.
    data = {"content": "Team offsite in May.", "agentId": "x", "agentName": "x", "namespace": mine}
    refused = keyed.body(CONTRIBUTE, keyed.texts["team"], input=data)
    assert codes(refused) == ["VALIDATION_ERROR"]
    assert refused["errors"][0]["extensions"]["field"] == "scope"
    shared = written(keyed, "team", mine, "Team offsite in May.", scope="SHARED")
    assert shared["scope"] == "SHARED"
    assert shared["content"] in found(keyed, "bob", mine, "offsite")


def test_keys_create_names_the_user_a_key_acts_for(tmp_path: Path) -> None:
    created = keys_command(
        tmp_path, "create", "--name", "alice's agent", "--namespace", "team-a",
        "--agent-id", "alice-bot", "--user", "alice",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    (key,) = KeyFile(tmp_path / "keys.json").all_keys()
    assert key.user == "alice"
    listed = keys_command(tmp_path, "list")
    assert '"user": "alice"' in listed.stdout


def test_mcp_writes_and_reads_in_the_callers_scope(
    engine_settings: Callable[..., Settings],
    tmp_path: Path,
    ns: str,
    request: pytest.FixtureRequest,
) -> None:
    keys = KeyFile(tmp_path / "keys.json")
    texts = user_keys(keys, ns, ("alice", "bob"))
    env = keyed_env(engine_settings, request, keys)

    async def scenario() -> None:
        with mcp_server("http", env, tmp_path / "mcp.log") as server:
            async with server.session(texts["alice"]) as alice:
                secret = await call(
                    alice,
                    "contribute",
                    content="Alice's pin is 0000.",
                    namespace=ns,
                    scope="private",
                )
                assert (secret["thought"]["scope"], secret["thought"]["owner_id"]) == (
                    "private",
                    "alice",
                )
                shared = await call(
                    alice, "contribute", content="The pin pad is by the door.", namespace=ns
                )
                assert shared["thought"]["scope"] == "shared"
                assert await everything(alice, ns) == {
                    secret["thought"]["id"],
                    shared["thought"]["id"],
                }
            async with server.session(texts["bob"]) as bob:
                assert await everything(bob, ns) == {shared["thought"]["id"]}
                mine = await call(
                    bob, "contribute", content="Alice's pin is 0000.", namespace=ns, scope="private"
                )
                (proposal,) = (
                    await call(bob, "propose_merge", user_ids=["alice", "bob"], namespace=ns)
                )["proposals"]
                parts = {p["owner_id"]: p["thought_id"] for p in proposal["parts"]}
                assert parts == {"alice": None, "bob": mine["thought"]["id"]}
                bobs = await call(
                    bob, "decide_merge", proposal_id=proposal["id"], accept=False, namespace=ns
                )
                assert bobs["status"] == "open"
            async with server.session(texts["alice"]) as alice:
                decided = await call(
                    alice, "decide_merge", proposal_id=proposal["id"], accept=True, namespace=ns
                )
                assert (decided["status"], decided["merged_thought_id"]) == ("declined", None)

    asyncio.run(scenario())


PROPOSE = """mutation($ns: String!, $users: [String!]!) {
  proposeMerge(namespace: $ns, userIds: $users) {
    id status parts { ownerId decision thoughtId thought { content } } mergedThoughtId } }"""
DECIDE = """mutation($ns: String!, $id: ID!, $accept: Boolean!) {
  decideMerge(namespace: $ns, id: $id, accept: $accept) {
    id status parts { ownerId decision thoughtId } mergedThoughtId } }"""
PROPOSALS = "query($ns: String!) { mergeProposals(namespace: $ns) { id status } }"
UNDO = (
    "mutation($ns: String!, $id: ID!) { undoConsolidation(namespace: $ns, thoughtId: $id) { id } }"
)
CHAIN = """query($id: ID!, $ns: String!) {
  lineage(id: $id, namespace: $ns) { chain { thoughtId } } }"""


def propose(keyed: Keyed, who: str, ns: str) -> list[dict[str, Any]]:
    body = keyed.body(PROPOSE, keyed.texts[who], ns=ns, users=["alice", "bob"])
    assert not body.get("errors"), body
    found: list[dict[str, Any]] = body["data"]["proposeMerge"]
    return found


def decide(keyed: Keyed, who: str, ns: str, pid: str, accept: bool) -> dict[str, Any]:
    body = keyed.body(DECIDE, keyed.texts[who], ns=ns, id=pid, accept=accept)
    assert not body.get("errors"), body
    decided: dict[str, Any] = body["data"]["decideMerge"]
    return decided


def test_merging_memories_across_users_needs_every_owner(keyed: Keyed, ns: str) -> None:
    text = "The staging database password rotates every 90 days."
    alices = written(keyed, "alice", ns, text, scope="PRIVATE")
    bobs = written(keyed, "bob", ns, text, scope="PRIVATE")
    written(keyed, "alice", ns, "Alice's cat is called Miso.", scope="PRIVATE")
    refused = keyed.body(PROPOSE, keyed.texts["team"], ns=ns, users=["alice", "bob"])
    assert codes(refused) == ["FORBIDDEN"]  # neither user's key, nor an admin's

    (proposal,) = propose(keyed, "alice", ns)
    assert proposal["status"] == "OPEN" and proposal["mergedThoughtId"] is None
    parts = {p["ownerId"]: p for p in proposal["parts"]}
    assert parts["alice"]["thoughtId"] == alices["id"]
    assert parts["alice"]["thought"]["content"] == text
    # Bob's part is his: alice learns that he has one, not which thought it is.
    assert (parts["bob"]["thoughtId"], parts["bob"]["thought"]) == (None, None)
    (again,) = propose(keyed, "admin", ns)  # proposed again: found, not made twice
    assert again["id"] == proposal["id"]
    assert [p["thoughtId"] for p in again["parts"]] == [None, None]  # an admin sees no one's
    assert keyed.body(PROPOSALS, keyed.texts["team"], ns=ns)["data"]["mergeProposals"] == []

    # Alice accepts, Bob declines: nothing is merged, both stay private.
    assert decide(keyed, "alice", ns, proposal["id"], True)["status"] == "OPEN"
    declined = decide(keyed, "bob", ns, proposal["id"], False)
    assert (declined["status"], declined["mergedThoughtId"]) == ("DECLINED", None)
    assert found(keyed, "team", ns, "staging database password") == []
    again = keyed.body(DECIDE, keyed.texts["alice"], ns=ns, id=proposal["id"], accept=True)
    assert again["data"]["decideMerge"]["status"] == "DECLINED"  # decided: left as it is
    assert found(keyed, "bob", ns, "staging database password") == [bobs["content"]]


def test_an_accepted_merge_becomes_one_shared_thought_and_can_be_undone(
    keyed: Keyed, ns: str
) -> None:
    text = "Release notes go out on the first Monday of the month."
    alices = written(keyed, "alice", ns, text, scope="PRIVATE")
    bobs = written(keyed, "bob", ns, text, scope="PRIVATE")
    (proposal,) = propose(keyed, "bob", ns)
    decide(keyed, "bob", ns, proposal["id"], True)
    merged = decide(keyed, "alice", ns, proposal["id"], True)
    assert merged["status"] == "ACCEPTED" and merged["mergedThoughtId"]
    shared = keyed.body(THOUGHT, keyed.texts["team"], id=merged["mergedThoughtId"], ns=ns)
    thought = shared["data"]["thought"]
    assert (thought["scope"], thought["ownerId"], thought["content"]) == ("SHARED", None, text)
    # The team reads the shared thought, not the private ones behind it.
    assert found(keyed, "team", ns, "release notes") == [text]
    lineage = keyed.body(CHAIN, keyed.texts["team"], id=thought["id"], ns=ns)
    assert [n["thoughtId"] for n in lineage["data"]["lineage"]["chain"]] == [thought["id"]]
    as_alice = keyed.body(CHAIN, keyed.texts["alice"], id=thought["id"], ns=ns)
    assert {n["thoughtId"] for n in as_alice["data"]["lineage"]["chain"]} == {
        thought["id"],
        alices["id"],
    }

    undone = keyed.body(UNDO, keyed.texts["alice"], ns=ns, id=thought["id"])
    assert sorted(t["id"] for t in undone["data"]["undoConsolidation"]) == sorted(
        [alices["id"], bobs["id"]]
    )
    assert found(keyed, "team", ns, "release notes") == []
    assert found(keyed, "alice", ns, "release notes") == [text]
