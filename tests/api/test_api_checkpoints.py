"""Checkpoints over GraphQL on real HTTP, on both engines, with keys acting for Ana and
Bob: each saves, reads and deletes only their own thread's history; bad input is refused
with its code and writes nothing; a checkpoint of the largest size passes the request size
limit."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.api.keyed_support import ok, users_service
from tests.api.test_api_keys import Keyed, codes
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.settings import Settings

USERS = ("ana", "bob")
FIELDS = "id threadId parentId data metadata sizeBytes createdAt"
SAVE = f"""mutation($ns: String!, $thread: String!, $data: String!, $id: ID, $parent: ID,
  $meta: String) {{ saveCheckpoint(namespace: $ns, threadId: $thread, data: $data, id: $id,
  parentId: $parent, metadata: $meta) {{ {FIELDS} }} }}"""
LOAD = f"""query($ns: String!, $thread: String!, $id: ID) {{
  checkpoint(namespace: $ns, threadId: $thread, id: $id) {{ {FIELDS} }} }}"""
LIST = f"""query($ns: String!, $thread: String!, $first: Int, $before: ID) {{
  checkpoints(namespace: $ns, threadId: $thread, first: $first, before: $before) {{
  {FIELDS} }} }}"""
REVISION = """query($ns: String!) { changes(namespace: $ns) { revision } }"""
DELETE = """mutation($ns: String!, $thread: String!, $prefix: Boolean) {
  deleteCheckpointThread(namespace: $ns, threadId: $thread, prefix: $prefix) }"""
EVENTS = """query($ns: String!, $after: Int) {
  changes(namespace: $ns, afterRevision: $after) { revision events { kind subjectKind } } }"""


@pytest.fixture
def keyed(
    engine_settings: Callable[..., Settings],
    local_embedder: TextEmbedder,
    tmp_path: Path,
    ns: str,
) -> Iterator[Keyed]:
    with users_service(engine_settings, local_embedder, tmp_path, ns, USERS) as keyed:
        yield keyed


def test_each_user_keeps_their_own_thread_history(keyed: Keyed, ns: str) -> None:
    thread = {"ns": ns, "thread": "chat-1"}
    parent = None
    for step in range(3):
        saved = ok(
            keyed, "ana", SAVE, data=json.dumps({"step": step}), id=f"s{step}", parent=parent,
            meta=json.dumps({"source": "loop"}), **thread,
        )["saveCheckpoint"]  # fmt: skip
        assert (saved["id"], saved["parentId"], saved["threadId"]) == (f"s{step}", parent, "chat-1")
        parent = saved["id"]
    newest = ok(keyed, "ana", LOAD, **thread)["checkpoint"]
    assert newest["id"] == "s2" and json.loads(newest["data"]) == {"step": 2}
    assert json.loads(newest["metadata"]) == {"source": "loop"}
    assert ok(keyed, "ana", LOAD, id="s0", **thread)["checkpoint"]["parentId"] is None
    listed = ok(keyed, "ana", LIST, **thread)["checkpoints"]
    assert [c["id"] for c in listed] == ["s2", "s1", "s0"]
    paged = ok(keyed, "ana", LIST, first=1, before="s2", **thread)["checkpoints"]
    assert [c["id"] for c in paged] == ["s1"]

    # Bob sees none of it, and his thread of the same name is his own.
    assert ok(keyed, "bob", LOAD, **thread)["checkpoint"] is None
    assert ok(keyed, "bob", LOAD, id="s1", **thread)["checkpoint"] is None
    assert ok(keyed, "bob", LIST, **thread)["checkpoints"] == []
    assert codes(keyed.body(LIST, keyed.texts["bob"], before="s1", **thread)) == ["NOT_FOUND"]
    body = keyed.body(SAVE, keyed.texts["bob"], data="{}", parent="s2", **thread)
    assert codes(body) == ["NOT_FOUND"]
    ok(keyed, "bob", SAVE, data='{"mine": true}', id="s0", **thread)
    assert [c["id"] for c in ok(keyed, "ana", LIST, **thread)["checkpoints"]] == ["s2", "s1", "s0"]
    assert ok(keyed, "ana", LOAD, id="s0", **thread)["checkpoint"]["data"] == '{"step": 0}'


def test_bad_input_is_refused_with_its_code(keyed: Keyed, ns: str) -> None:
    thread = {"ns": ns, "thread": "chat-1"}
    before = ok(keyed, "ana", REVISION, ns=ns)["changes"]["revision"]
    for variables, code in [
        ({"data": "not json"}, "VALIDATION_ERROR"),
        ({"data": "[1]"}, "VALIDATION_ERROR"),
        ({"data": "{}", "meta": "nope"}, "VALIDATION_ERROR"),
        ({"data": "{}", "parent": "missing"}, "NOT_FOUND"),
        ({"data": "{}", "id": "bad id!"}, "VALIDATION_ERROR"),
        ({"data": json.dumps({"x": "y" * 500_000})}, "VALIDATION_ERROR"),  # over the max
    ]:
        body = keyed.body(SAVE, keyed.texts["ana"], **thread, **variables)
        assert codes(body) == [code], (variables, body)
    assert codes(keyed.body(LIST, keyed.texts["ana"], first=101, **thread)) == ["VALIDATION_ERROR"]
    assert ok(keyed, "ana", REVISION, ns=ns)["changes"]["revision"] == before
    assert ok(keyed, "ana", LIST, **thread)["checkpoints"] == []


def test_a_checkpoint_of_the_largest_size_fits_a_request(keyed: Keyed, ns: str) -> None:
    """The largest checkpoint (480,000 bytes) made of escaped quotes: each byte escaped
    again in the request's JSON (the worst case: the request carries twice that)."""
    data = '{"q": "' + '\\"' * 239_995 + 'x"}'
    assert len(data.encode()) == 480_000 and isinstance(json.loads(data), dict)
    saved = ok(keyed, "ana", SAVE, ns=ns, thread="big", data=data)["saveCheckpoint"]
    assert saved["sizeBytes"] == 480_000
    assert ok(keyed, "ana", LOAD, ns=ns, thread="big")["checkpoint"]["data"] == data


def test_each_user_deletes_only_their_own_thread(keyed: Keyed, ns: str) -> None:
    thread = {"ns": ns, "thread": "chat-1"}
    for step in range(3):
        ok(keyed, "ana", SAVE, data=json.dumps({"step": step}), id=f"s{step}", **thread)
    ok(keyed, "ana", SAVE, ns=ns, thread="chat-2", data="{}", id="k")
    ok(keyed, "bob", SAVE, data="{}", id="s0", **thread)
    before = ok(keyed, "ana", REVISION, ns=ns)["changes"]["revision"]

    assert ok(keyed, "ana", DELETE, **thread)["deleteCheckpointThread"] == 3
    assert ok(keyed, "ana", LOAD, **thread)["checkpoint"] is None
    assert ok(keyed, "ana", LIST, **thread)["checkpoints"] == []
    assert ok(keyed, "ana", LOAD, ns=ns, thread="chat-2")["checkpoint"]["id"] == "k"
    assert ok(keyed, "bob", LOAD, **thread)["checkpoint"]["id"] == "s0"
    assert ok(keyed, "ana", REVISION, ns=ns)["changes"]["revision"] == before + 1
    # Nothing left to delete: 0, and nothing written.
    assert ok(keyed, "ana", DELETE, **thread)["deleteCheckpointThread"] == 0
    assert ok(keyed, "bob", DELETE, ns=ns, thread="chat-2")["deleteCheckpointThread"] == 0
    assert ok(keyed, "ana", REVISION, ns=ns)["changes"]["revision"] == before + 1
    assert ok(keyed, "ana", LOAD, ns=ns, thread="chat-2")["checkpoint"]["id"] == "k"
    # By prefix: every thread of Ana's that starts with "chat-"; Bob's stays.
    assert ok(keyed, "ana", DELETE, ns=ns, thread="chat-", prefix=True) == {
        "deleteCheckpointThread": 1
    }
    assert ok(keyed, "bob", LIST, **thread)["checkpoints"][0]["id"] == "s0"
    # Bob's own change log shows his save, none of Ana's events.
    events = ok(keyed, "bob", EVENTS, ns=ns, after=0)["changes"]["events"]
    assert events == [{"kind": "CHECKPOINT_SAVED", "subjectKind": "CHECKPOINT"}]


def test_deleting_a_bad_thread_id_is_refused_and_writes_nothing(keyed: Keyed, ns: str) -> None:
    ok(keyed, "ana", SAVE, ns=ns, thread="chat-1", data="{}", id="s0")
    before = ok(keyed, "ana", REVISION, ns=ns)["changes"]["revision"]
    for thread in ("bad thread!", "", "x" * 129):
        body = keyed.body(DELETE, keyed.texts["ana"], ns=ns, thread=thread)
        assert codes(body) == ["VALIDATION_ERROR"], (thread, body)
    assert ok(keyed, "ana", REVISION, ns=ns)["changes"]["revision"] == before
    assert ok(keyed, "ana", LOAD, ns=ns, thread="chat-1")["checkpoint"]["id"] == "s0"
