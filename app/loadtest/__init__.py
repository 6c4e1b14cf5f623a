"""`thoughtgraph loadtest`: open-loop mixed load against a real service (see runner)."""

from app.loadtest.runner import run_loadtest

__all__ = ["run_loadtest"]
