"""Procedural memory: workflows and code patterns, recorded or extracted from code."""
