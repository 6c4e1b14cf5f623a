"""Which categories a GraphQL caller may read: its API key's agent (an ``agent``
argument only counts when the key names none) looked up in the allowlist file."""

from __future__ import annotations

from collections.abc import Iterable

from thoughtgraph.api.graphql.request_context import Info
from thoughtgraph.domain.allowlist import effective_agent


def reader(info: Info, claimed: str | None, field: str = "agent") -> str | None:
    """The agent the request reads as; AGENT_MISMATCH when the key names another."""
    return effective_agent(info.context.principal.agent, claimed, field)


def readable_categories(
    info: Info, claimed: str | None, requested: Iterable[str] | None = None
) -> frozenset[str] | None:
    """None: unrestricted. CATEGORY_NOT_ALLOWED when ``requested`` leaves the allowlist."""
    wanted = list(requested) if requested else None
    return info.context.services.allowlist.categories_for(reader(info, claimed), wanted)
