"""Checkpoints on both engines, through the service a request reaches: saved per user and
thread with their history, the newest by default, a retried save writing nothing twice,
bad input refused with nothing written, no user reading another's, and a user's thread (or
threads, by prefix) deleted with one event per write (a long thread a batch per write,
oldest first), no one else's touched."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.knowledge_support import make_runtime
from tests.support import LoopThread
from thoughtgraph.domain.access import Principal, Role
from thoughtgraph.domain.changes import ChangeKind, SubjectKind
from thoughtgraph.domain.checkpoints import NO_USER, Checkpoint
from thoughtgraph.domain.errors import InvalidInputError, NotFoundError
from thoughtgraph.features.access import actor_of
from thoughtgraph.features.checkpoints.service import CheckpointService
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.store.cypher_store import CypherGraphStore


def key(ns: str, user: str | None, name: str | None = None) -> Principal:
    agent = name or f"{user or 'team'}-bot"
    return Principal(
        key_id=f"key-{agent}",
        agent_id=agent,
        agent_name=agent,
        role=Role.WRITER,
        namespaces=(ns,),
        user=user,
    )


@pytest.fixture
def runtime(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path
) -> Iterator[Runtime]:
    runtime = make_runtime(store, local_embedder, tmp_path, checkpoint_max_bytes=2_000)
    yield runtime
    loop.run(runtime.services.close())


def state(step: int) -> str:
    return json.dumps({"step": step, "messages": [f"message {i}" for i in range(step)]})


def test_save_load_and_history_newest_first(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    service = runtime.services.checkpoints
    ann = key(ns, "ann")
    assert loop.run(service.load(ns, "thread-1", caller=ann)) is None
    assert loop.run(service.history(ns, "thread-1", caller=ann)) == []
    saved = []
    parent = None
    for step in range(5):
        cp = loop.run(
            service.save(
                ns,
                "thread-1",
                state(step),
                checkpoint_id=f"cp-{step}",
                parent_id=parent,
                metadata=json.dumps({"step": step}),
                caller=ann,
            )
        )
        assert (cp.id, cp.parent_id, cp.user, cp.thread_id) == (
            f"cp-{step}",
            parent,
            "ann",
            "thread-1",
        )
        assert cp.data == state(step) and cp.size_bytes == len(state(step).encode())
        saved.append(cp)
        parent = cp.id

    newest = loop.run(service.load(ns, "thread-1", caller=ann))
    assert newest == saved[-1]
    assert loop.run(service.load(ns, "thread-1", "cp-2", caller=ann)) == saved[2]
    assert loop.run(service.load(ns, "thread-1", "cp-9", caller=ann)) is None
    assert loop.run(service.load(ns, "thread-2", caller=ann)) is None

    listed = loop.run(service.history(ns, "thread-1", caller=ann))
    assert [c.id for c in listed] == ["cp-4", "cp-3", "cp-2", "cp-1", "cp-0"]
    page = loop.run(service.history(ns, "thread-1", first=2, caller=ann))
    assert [c.id for c in page] == ["cp-4", "cp-3"]
    page = loop.run(service.history(ns, "thread-1", first=2, before="cp-3", caller=ann))
    assert [c.id for c in page] == ["cp-2", "cp-1"]
    assert loop.run(service.history(ns, "thread-1", before="cp-0", caller=ann)) == []
    with pytest.raises(NotFoundError):
        loop.run(service.history(ns, "thread-1", before="cp-9", caller=ann))

    # The parent chain, followed back from the newest.
    chain: list[str] = []
    at: Checkpoint | None = newest
    while at is not None:
        chain.append(at.id)
        at = (
            loop.run(service.load(ns, "thread-1", at.parent_id, caller=ann))
            if at.parent_id
            else None
        )
    assert chain == ["cp-4", "cp-3", "cp-2", "cp-1", "cp-0"]

    # A checkpoint without an id gets one.
    fresh = loop.run(service.save(ns, "thread-1", "{}", caller=ann))
    assert fresh.id and loop.run(service.load(ns, "thread-1", caller=ann)) == fresh


def test_a_retried_save_writes_nothing_new(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    service = runtime.services.checkpoints
    ann = key(ns, "ann")
    first = loop.run(service.save(ns, "t", state(1), checkpoint_id="same", caller=ann))
    revision = loop.run(runtime.services.history.revision(ns))
    again = loop.run(service.save(ns, "t", state(1), checkpoint_id="same", caller=ann))
    assert again == first
    assert loop.run(runtime.services.history.revision(ns)) == revision
    assert [c.id for c in loop.run(service.history(ns, "t", caller=ann))] == ["same"]
    events = loop.run(runtime.services.history.changes(ns))
    saves = [e for e in events if e.kind is ChangeKind.CHECKPOINT_SAVED]
    assert len(saves) == 1 and saves[0].subject_kind is SubjectKind.CHECKPOINT


def test_users_never_read_each_others_checkpoints(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    service = runtime.services.checkpoints
    ann, bob = key(ns, "ann"), key(ns, "bob")
    loop.run(service.save(ns, "shared-name", state(1), checkpoint_id="cp-1", caller=ann))
    assert loop.run(service.load(ns, "shared-name", caller=bob)) is None
    assert loop.run(service.load(ns, "shared-name", "cp-1", caller=bob)) is None
    assert loop.run(service.history(ns, "shared-name", caller=bob)) == []
    with pytest.raises(NotFoundError):
        loop.run(service.history(ns, "shared-name", before="cp-1", caller=bob))
    # Bob's parent must be his own.
    with pytest.raises(NotFoundError):
        loop.run(service.save(ns, "shared-name", "{}", parent_id="cp-1", caller=bob))
    # The same id in bob's thread of the same name is his own checkpoint.
    mine = loop.run(service.save(ns, "shared-name", state(2), checkpoint_id="cp-1", caller=bob))
    assert mine.user == "bob" and mine.data == state(2)
    assert loop.run(service.load(ns, "shared-name", caller=ann)).data == state(1)  # type: ignore[union-attr]
    # The change log shows each user their own saves only.
    seen_by_bob = loop.run(runtime.services.history.changes(ns, caller=bob))
    assert len([e for e in seen_by_bob if e.kind is ChangeKind.CHECKPOINT_SAVED]) == 1
    everything = loop.run(runtime.services.history.changes(ns))
    assert len([e for e in everything if e.kind is ChangeKind.CHECKPOINT_SAVED]) == 2


def test_a_key_without_a_user_saves_as_the_user_dash(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    service = runtime.services.checkpoints
    team = key(ns, None)
    saved = loop.run(service.save(ns, "t", state(1), checkpoint_id="a", caller=team))
    assert saved.user == NO_USER
    # Open local mode and the service itself read them too; a user's key does not.
    assert loop.run(service.load(ns, "t", caller=Principal.anyone())) == saved
    assert loop.run(service.load(ns, "t")) == saved
    assert loop.run(service.load(ns, "t", caller=key(ns, "ann"))) is None


@pytest.mark.parametrize(
    ("data", "metadata"),
    [
        ("not json", None),
        ("[1, 2]", None),
        ('"text"', None),
        (json.dumps({"big": "x" * 2_000}), None),  # over checkpoint_max_bytes (2,000 here)
        ("{}", "not json"),
        ("{}", json.dumps({"big": "x" * 20_000})),  # metadata over 16 KB
    ],
)
def test_bad_input_is_refused_and_nothing_written(
    loop: LoopThread, runtime: Runtime, ns: str, data: str, metadata: str | None
) -> None:
    service = runtime.services.checkpoints
    ann = key(ns, "ann")
    with pytest.raises(InvalidInputError):
        loop.run(service.save(ns, "t", data, checkpoint_id="x", metadata=metadata, caller=ann))
    assert loop.run(service.history(ns, "t", caller=ann)) == []
    assert loop.run(runtime.services.history.revision(ns)) == 0


def test_bad_ids_and_unknown_parents(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    service = runtime.services.checkpoints
    ann = key(ns, "ann")
    with pytest.raises(InvalidInputError):
        loop.run(service.save(ns, "bad thread id!", "{}", caller=ann))
    with pytest.raises(InvalidInputError):
        loop.run(service.save(ns, "t", "{}", checkpoint_id="a", parent_id="a", caller=ann))
    with pytest.raises(NotFoundError):
        loop.run(service.save(ns, "t", "{}", checkpoint_id="b", parent_id="missing", caller=ann))
    loop.run(service.save(ns, "other", "{}", checkpoint_id="p", caller=ann))
    with pytest.raises(NotFoundError):  # a parent in another thread
        loop.run(service.save(ns, "t", "{}", checkpoint_id="b", parent_id="p", caller=ann))
    with pytest.raises(InvalidInputError):
        loop.run(service.history(ns, "t", first=0, caller=ann))
    assert loop.run(service.history(ns, "t", caller=ann)) == []


def save_chain(
    loop: LoopThread,
    service: CheckpointService,
    ns: str,
    thread: str,
    steps: int,
    caller: Principal,
) -> None:
    """``steps`` checkpoints cp-0, cp-1, ... in ``thread``, each the parent of the next."""
    parent = None
    for step in range(steps):
        cid = f"cp-{step}"
        loop.run(
            service.save(
                ns, thread, state(step), checkpoint_id=cid, parent_id=parent, caller=caller
            )
        )
        parent = cid


def test_deleting_a_thread_removes_its_history_and_nothing_else(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    service = runtime.services.checkpoints
    ann, bob = key(ns, "ann"), key(ns, "bob")
    save_chain(loop, service, ns, "chat", 3, ann)
    loop.run(service.save(ns, "chat@sub", state(1), checkpoint_id="s", caller=ann))
    loop.run(service.save(ns, "other", state(1), checkpoint_id="o", caller=ann))
    loop.run(service.save(ns, "chat", state(1), checkpoint_id="cp-0", caller=bob))
    revision = loop.run(runtime.services.history.revision(ns))

    assert loop.run(service.delete_thread(ns, "chat", caller=ann)) == 3
    assert loop.run(service.load(ns, "chat", caller=ann)) is None
    assert loop.run(service.load(ns, "chat", "cp-1", caller=ann)) is None
    assert loop.run(service.history(ns, "chat", caller=ann)) == []
    # Other threads (one whose id merely starts with it too) and bob's thread stay.
    assert [c.id for c in loop.run(service.history(ns, "chat@sub", caller=ann))] == ["s"]
    assert [c.id for c in loop.run(service.history(ns, "other", caller=ann))] == ["o"]
    assert [c.id for c in loop.run(service.history(ns, "chat", caller=bob))] == ["cp-0"]

    # One write, one event, naming no deleted checkpoint's data.
    assert loop.run(runtime.services.history.revision(ns)) == revision + 1
    events = loop.run(runtime.services.history.changes(ns, revision))
    assert [(e.kind, e.subject_kind, e.actor_id) for e in events] == [
        (ChangeKind.CHECKPOINTS_DELETED, SubjectKind.CHECKPOINT, "ann-bot")
    ]
    # Bob sees neither ann's deletion nor the saves of what she deleted: his own save only.
    seen_by_bob = loop.run(runtime.services.history.changes(ns, caller=bob))
    assert [e.kind for e in seen_by_bob] == [ChangeKind.CHECKPOINT_SAVED]

    # Deleting again, or a thread never saved, deletes and writes nothing.
    assert loop.run(service.delete_thread(ns, "chat", caller=ann)) == 0
    assert loop.run(service.delete_thread(ns, "never-saved", caller=ann)) == 0
    assert loop.run(runtime.services.history.revision(ns)) == revision + 1

    # The thread starts afresh: the same id saved again is a new checkpoint.
    again = loop.run(service.save(ns, "chat", state(7), checkpoint_id="cp-0", caller=ann))
    assert again.data == state(7) and again.parent_id is None
    assert [c.id for c in loop.run(service.history(ns, "chat", caller=ann))] == ["cp-0"]


def test_deleting_by_prefix_takes_every_thread_that_starts_with_it(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    service = runtime.services.checkpoints
    ann, bob = key(ns, "ann"), key(ns, "bob")
    for thread in ("run-1@", "run-1@sub", "run-1@@w@cp", "run-10@", "run-1"):
        loop.run(service.save(ns, thread, state(1), checkpoint_id="c", caller=ann))
    loop.run(service.save(ns, "run-1@", state(1), checkpoint_id="c", caller=bob))
    revision = loop.run(runtime.services.history.revision(ns))
    assert loop.run(service.delete_thread(ns, "run-1@", prefix=True, caller=ann)) == 3
    for gone in ("run-1@", "run-1@sub", "run-1@@w@cp"):
        assert loop.run(service.load(ns, gone, caller=ann)) is None
    for kept in ("run-10@", "run-1"):
        assert loop.run(service.load(ns, kept, caller=ann)) is not None
    assert loop.run(service.load(ns, "run-1@", caller=bob)) is not None
    assert loop.run(runtime.services.history.revision(ns)) == revision + 1


@pytest.mark.parametrize("thread", ["bad thread id!", "", "@starts-with-at", "x" * 129])
def test_deleting_a_bad_thread_id_is_refused_and_writes_nothing(
    loop: LoopThread, runtime: Runtime, ns: str, thread: str
) -> None:
    service = runtime.services.checkpoints
    ann = key(ns, "ann")
    loop.run(service.save(ns, "t", state(1), checkpoint_id="a", caller=ann))
    revision = loop.run(runtime.services.history.revision(ns))
    with pytest.raises(InvalidInputError):
        loop.run(service.delete_thread(ns, thread, prefix=True, caller=ann))
    assert loop.run(runtime.services.history.revision(ns)) == revision
    assert [c.id for c in loop.run(service.history(ns, "t", caller=ann))] == ["a"]


def test_a_long_thread_is_deleted_a_batch_per_write_oldest_first(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    """Five checkpoints deleted two per write: three writes, three events, every one
    gone; a deletion that stopped after its first batch leaves the thread loading its
    latest checkpoint (the oldest go first)."""
    ann = key(ns, "ann")
    batched = CheckpointService(
        runtime.services.repos.checkpoints,
        runtime.clock,
        max_bytes=runtime.services.checkpoints.max_bytes,
        delete_batch=2,
    )
    save_chain(loop, batched, ns, "long", 5, ann)
    revision = loop.run(runtime.services.history.revision(ns))

    # One batch only, as a deletion cut short after its first write would leave it.
    first = loop.run(
        runtime.services.repos.checkpoints.delete_thread(
            ns, "ann", "long", prefix=False, limit=2, actor=actor_of(ann), at_ms=1
        )
    )
    assert first == 2
    latest = loop.run(batched.load(ns, "long", caller=ann))
    assert latest is not None and latest.id == "cp-4"
    assert [c.id for c in loop.run(batched.history(ns, "long", caller=ann))] == [
        "cp-4",
        "cp-3",
        "cp-2",
    ]

    # The rest: two more writes (2 and 1), each with its event; nothing left.
    assert loop.run(batched.delete_thread(ns, "long", caller=ann)) == 3
    assert loop.run(batched.load(ns, "long", caller=ann)) is None
    events = loop.run(runtime.services.history.changes(ns, revision))
    assert [e.kind for e in events] == [ChangeKind.CHECKPOINTS_DELETED] * 3
