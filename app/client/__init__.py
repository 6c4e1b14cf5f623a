"""A typed Python client of the thoughtgraph service, sync and async, over its GraphQL API.

It talks to the service over HTTP only (no module of the service is imported), so it works
against any running service: ``pip install thoughtgraph`` then::

    from thoughtgraph.client import ThoughtgraphClient

Models (``thoughtgraph.client.models``) are pydantic; errors are ``ThoughtgraphAPIError``
with the service's ``extensions.code``. docs/clients.md has examples.
"""

from thoughtgraph.client.client import AsyncThoughtgraphClient, ThoughtgraphClient
from thoughtgraph.client.core import ThoughtgraphAPIError, ThoughtgraphUnavailable

__all__ = [
    "AsyncThoughtgraphClient",
    "ThoughtgraphAPIError",
    "ThoughtgraphClient",
    "ThoughtgraphUnavailable",
]
