"""Contradictions between thoughts: listing them and deciding them."""
