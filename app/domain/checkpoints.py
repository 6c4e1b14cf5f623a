"""Checkpoints: a client's saved state of one thread (an agent's conversation, a graph
run), JSON data kept per user and thread with its history, newest first.

A checkpoint is named by the client's id (or one the service makes), unique within the
thread; its node's id is derived from the namespace, the user, the thread and that id, so
a retried save finds what its first attempt wrote and writes nothing twice, and two users'
threads never share a checkpoint.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from thoughtgraph.domain.knowledge import stable_id

# The user of a checkpoint saved without one: by a key acting for no user, in open local
# mode, or from inside the service.
NO_USER = "-"
DEFAULT_MAX_BYTES = 480_000
MAX_METADATA_BYTES = 16_384
MAX_LIST = 100
# A listing stops once its checkpoints' data reach this many bytes (at least one is
# returned): escaped again in a JSON response, a page stays inside the response limit.
MAX_LIST_BYTES = 2_000_000

DEFAULT_LIST = 20
# A thread's checkpoints are deleted this many per write: a long-running agent's thread
# holds thousands, each up to DEFAULT_MAX_BYTES, too much for one transaction.
DELETE_BATCH = 200


def checkpoint_key(namespace: str, user: str, thread_id: str, checkpoint_id: str) -> str:
    """The node id of a user's checkpoint in a thread."""
    return stable_id("checkpoint", namespace, user, thread_id, checkpoint_id)


def checkpoint_thread_key(namespace: str, user: str, thread_id: str, *, prefix: bool) -> str:
    """What a deletion's change event names: a user's thread, or every thread of theirs
    whose id starts with ``thread_id`` (``prefix``). No node has it: the checkpoints are
    gone."""
    return stable_id("checkpoint_thread", namespace, user, thread_id, "prefix" if prefix else "")


class Checkpoint(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str  # the client's id (or the one the service made), unique within the thread
    namespace: str
    user: str
    thread_id: str
    parent_id: str | None
    data: str  # a JSON object, as the client sent it
    metadata: str | None  # a small JSON object, as the client sent it
    size_bytes: int  # of data, UTF-8 encoded
    created_at_ms: int
    revision: int  # the change log's revision of its save: orders a thread's history


def within_bytes(checkpoints: list[Checkpoint], limit: int = MAX_LIST_BYTES) -> list[Checkpoint]:
    """The first checkpoints whose data add up to at most ``limit`` bytes (the first one
    always): the rest come with the next page (``before``)."""
    kept: list[Checkpoint] = []
    total = 0
    for checkpoint in checkpoints:
        total += checkpoint.size_bytes
        if kept and total > limit:
            break
        kept.append(checkpoint)
    return kept
