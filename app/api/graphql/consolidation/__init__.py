"""Consolidation runs: asking for maintenance and reading how it went."""
