"""The LangGraph saver's names for service threads: every thread of one LangGraph thread
starts with its prefix and no other LangGraph thread's does (so a delete by prefix takes
exactly that thread), names are valid service thread ids leaving room for the pending
writes' suffix, and the readable names of earlier versions are kept."""

from __future__ import annotations

import itertools
import uuid

from thoughtgraph.domain.validation import require_identifier
from thoughtgraph.integrations.langgraph_keys import thread_key, thread_prefix, writes_key

THREADS = [
    "run-1",
    "run-10",
    "run",
    "sha256",  # the digest form's mark: never a readable prefix
    "sha",
    "async run/1",
    "a@b",
    "x" * 54,
    "x" * 55,
    "ünïcode",
    "",
]
NAMESPACES = [
    "",
    "inner:1f0a2b3c-0000-6000-8000-000000000000",
    "outer:1f0a2b3c-0000-6000-8000-000000000000|inner:1f0a2b3c-0000-6000-8000-00000000001",
    "w",
    "@w",
    "y" * 80,
]
CHECKPOINT_ID = str(uuid.uuid4())


def names(thread_id: str) -> list[str]:
    keys = [thread_key(thread_id, ns) for ns in NAMESPACES]
    return keys + [writes_key(k, CHECKPOINT_ID) for k in keys]


def test_every_name_of_a_thread_has_its_prefix_and_no_other_threads() -> None:
    every = {t: names(t) for t in THREADS}
    for thread_id, found in every.items():
        assert all(n.startswith(thread_prefix(thread_id)) for n in found), thread_id
        assert len(set(found)) == len(found)  # no two namespaces or writes share a name
        for name in found:
            assert require_identifier("threadId", name) == name
    for one, other in itertools.permutations(THREADS, 2):
        assert not any(n.startswith(thread_prefix(one)) for n in every[other]), (one, other)


def test_readable_names_are_those_of_earlier_versions() -> None:
    assert thread_key("run-1") == "run-1@"
    assert thread_key("run-1", "inner:abc") == "run-1@inner:abc"
    assert writes_key(thread_key("run-1"), "c1") == "run-1@@w@c1"
    assert thread_prefix("run-1") == "run-1@"
    assert thread_prefix("sha256").startswith("sha256@") and len(thread_prefix("sha256")) > 8
