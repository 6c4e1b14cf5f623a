"""The operations GraphiQL opens with, one tab each: README's "Try it in GraphiQL"
examples, word for word (tests/api/test_graphiql.py checks), each given an operation name
because GraphiQL titles a tab with it."""

from __future__ import annotations

import re
from dataclasses import dataclass

WELCOME = """\
# thoughtgraph: each tab holds an example from README.md. Run one with Ctrl-Enter or the
# play button; replace "<id>" with an id from an earlier answer.
# When the service requires API keys, open the Headers editor below and send yours:
#   {"Authorization": "Bearer tgk_..."}
# The Explorer in the sidebar builds operations by clicking through the schema.
"""


@dataclass(frozen=True)
class Example:
    name: str  # the operation name, shown as the tab's title
    operation: str  # exactly as in README.md

    def tab_query(self, preamble: str = "") -> str:
        named = re.sub(r"^(query|mutation)\b", rf"\1 {self.name}", self.operation, count=1)
        return preamble + named


EXAMPLES = (
    Example(
        "Contribute",
        """mutation {
  contribute(input: {content: "Agents are monitored by status and role",
                     agentId: "a1", agentName: "Planner", tags: ["ops"]}) {
    thought { id type pheromoneWeight }
    revision
    guidance { similarThoughtId similarity message }
  }
}""",
    ),
    Example(
        "Search",
        """query {
  search(query: "how are agents monitored?", k: 5) {
    score similarity superseded refinedBy
    thought { content type }
  }
}""",
    ),
    Example(
        "Refine",
        """mutation {
  refine(input: {sourceId: "<id>", content: "Agents are monitored by role only",
                 agentId: "a2", agentName: "Reviewer",
                 reason: "status turned out to be unreliable"}) {
    thought { id type sourceIds pheromoneWeight }
  }
}""",
    ),
    Example(
        "Lineage",
        """query {
  lineage(id: "<id>") {
    truncated
    chain { depth type contentPreview contributor sourceIds }
  }
}""",
    ),
    Example(
        "SearchChanges",
        'query { searchChanges(query: "unreliable status signal") '
        "{ relation reason from { content } to { content } } }",
    ),
    Example("History", 'query { history(thoughtId: "<id>") { revision kind actorName at } }'),
    Example(
        "Thoughts",
        "query { thoughts(first: 10, filter: {type: REFINEMENT}) { nodes { id content } "
        "pageInfo { hasNextPage endCursor } } }",
    ),
    Example(
        "Topics",
        "query { topics(first: 5) { name summary thoughtCount thoughts(first: 3) { content } } }",
    ),
)


def default_tabs() -> list[dict[str, str]]:
    """GraphiQL's ``defaultTabs``: the welcome note heads the first one."""
    return [
        {"query": example.tab_query(WELCOME if index == 0 else "")}
        for index, example in enumerate(EXAMPLES)
    ]
