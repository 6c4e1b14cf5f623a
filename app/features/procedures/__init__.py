"""Procedural memory: workflows and code patterns (and their extraction from code)."""
