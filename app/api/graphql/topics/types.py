"""Output type of topics (defined beside the thought type: each refers to the other)."""

from thoughtgraph.api.graphql.thoughts.types import MEMBERS_FIRST, Topic

__all__ = ["MEMBERS_FIRST", "Topic"]
