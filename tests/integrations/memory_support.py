"""What the conversation adapters' tests share: a conversation kept by an adapter is
memory the service's own search finds."""

from __future__ import annotations

from tests.support import GraphQLClient
from thoughtgraph.client import ThoughtgraphClient


def assert_found_by_search(
    api: GraphQLClient, ns: str, query: str, *, content: str, session: str
) -> None:
    """The service's best hit for ``query`` is the turn ``content``, in ``session``."""
    with ThoughtgraphClient(api.base_url, namespace=ns) as tg:
        hits = tg.search(query, k=1)
    assert hits[0].thought.content == content
    assert hits[0].thought.session_id == session
