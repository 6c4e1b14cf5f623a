"""A document as sent: the operation followed by the fragments it spreads, and theirs."""

from __future__ import annotations

import re

from thoughtgraph.client.operations.fragments import FRAGMENTS

_SPREAD = re.compile(r"\.\.\.(\w+Fields)\b")


def document(operation: str) -> str:
    """``operation`` with every fragment it needs (GraphQL refuses unused ones)."""
    needed: list[str] = []
    pending = _SPREAD.findall(operation)
    while pending:
        name = pending.pop()
        if name not in needed:
            needed.append(name)
            pending.extend(_SPREAD.findall(FRAGMENTS[name]))
    return " ".join([operation, *(FRAGMENTS[name] for name in sorted(needed))])
