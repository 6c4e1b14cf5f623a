"""GraphQL over HTTP as an agent would send it: one keep-alive connection, JSON POSTs."""

from __future__ import annotations

from types import TracebackType
from typing import Any

import httpx

from thoughtgraph.tools.bench.service import BenchSetupError

# The fields an agent typically asks for; lineage marking included (it is what costs).
SEARCH_QUERY = """
query BenchSearch($query: String!, $k: Int!, $namespace: String!, $hybrid: Boolean) {
  search(query: $query, k: $k, namespace: $namespace, hybrid: $hybrid) {
    id score similarity superseded refinedBy
    thought { content agentName createdAt tags }
  }
}
"""

LINEAGE_QUERY = """
query BenchLineage($id: ID!, $namespace: String!) {
  lineage(id: $id, namespace: $namespace) {
    truncated
    chain { thoughtId type depth contributor contentPreview }
  }
}
"""

# A write as an agent sends it, asking for the guidance a near-duplicate gets.
CONTRIBUTE_MUTATION = """
mutation BenchContribute($input: ContributeInput!) {
  contribute(input: $input) {
    thought { id } revision guidance { similarThoughtId similarity }
  }
}
"""


class GraphQLClient:
    def __init__(self, base_url: str) -> None:
        self._http = httpx.Client(base_url=base_url, timeout=60.0)

    def __enter__(self) -> GraphQLClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._http.close()

    def execute(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        """POST one operation; ``data`` of the answer, or BenchSetupError on any error."""
        response = self._http.post("/graphql", json={"query": query, "variables": variables})
        if response.status_code != 200:
            raise BenchSetupError(
                f"GraphQL answered HTTP {response.status_code}: {response.text[:500]}"
            )
        body: dict[str, Any] = response.json()
        if body.get("errors"):
            raise BenchSetupError(f"GraphQL returned errors: {body['errors']!r:.500}")
        data: dict[str, Any] = body["data"]
        return data
