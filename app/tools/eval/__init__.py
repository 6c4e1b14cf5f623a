"""Evaluation sets and their runners (``thoughtgraph eval ...``)."""
