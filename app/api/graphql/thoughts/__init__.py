"""Thoughts: the node type, browsing, search and the contribution mutations."""
