"""Lineage: tracing a thought's chain and searching changes by their reason."""
