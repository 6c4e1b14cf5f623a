"""How the LangGraph checkpointer (thoughtgraph.integrations.langgraph) names the service
threads it keeps a LangGraph thread in.

Every service thread of one LangGraph thread (one per checkpoint namespace, and one per
checkpoint's pending writes) starts with that thread's ``thread_prefix``, which no other
LangGraph thread's service threads start with: deleting a LangGraph thread is one delete by
prefix (``deleteCheckpointThread(prefix: true)``). The prefix is ``<thread_id>@`` when the
thread id is made of ``A-Za-z0-9_.:-`` (starting with a letter or digit) in at most 54
characters and is not ``sha256``, else ``sha256@<digest>@``. A readable thread's prefix
ends at its first ``@``, so it is no other thread's.

After the prefix comes the checkpoint namespace when it is made of ``A-Za-z0-9_.:-`` and
fits (88 characters in all: with ``@w@`` and a 36-character checkpoint id, the service's
128), else ``@<digest>``; a namespace never holds ``@``, so the two forms never meet. The
pending writes of checkpoint ``C`` are the thread ``<thread>@w@<C>``.
"""

from __future__ import annotations

import hashlib
import json
import re

_READABLE_THREAD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,53}")
_DIGEST_MARK = "sha256"  # starts the prefix of a thread id that is not readable
_READABLE_NS = re.compile(r"[A-Za-z0-9_.:-]*")
_READABLE_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}")
_MAX_READABLE = 88  # with "@w@" and a 36-character id: the service's 128


def digest(*parts: str) -> str:
    return hashlib.sha256(json.dumps(parts).encode("utf-8")).hexdigest()


def thread_prefix(thread_id: str) -> str:
    """What every service thread of the LangGraph thread ``thread_id`` starts with, and no
    other LangGraph thread's does."""
    if _READABLE_THREAD.fullmatch(thread_id) and thread_id != _DIGEST_MARK:
        return f"{thread_id}@"
    return f"{_DIGEST_MARK}@{digest(thread_id)[:40]}@"


def thread_key(thread_id: str, checkpoint_ns: str = "") -> str:
    """The service's thread id for a LangGraph thread and checkpoint namespace:
    ``<thread_id>@<checkpoint_ns>`` when both are readable and short (``run-1@`` for a
    root graph), else with a digest in place of either (see the module's text)."""
    prefix = thread_prefix(thread_id)
    if _READABLE_NS.fullmatch(checkpoint_ns) and len(prefix) + len(checkpoint_ns) <= _MAX_READABLE:
        return prefix + checkpoint_ns
    return f"{prefix}@{digest(checkpoint_ns)[:32]}"


def writes_key(thread: str, checkpoint_id: str) -> str:
    """The service's thread holding the pending writes of a checkpoint of ``thread``."""
    return f"{thread}@w@{checkpoint_id}"


def part(text: str) -> str:
    """``text`` as part of a checkpoint id: itself when readable, else a digest."""
    return text if _READABLE_PART.fullmatch(text) else f"h{digest(text)[:40]}"
