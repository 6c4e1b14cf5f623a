"""`thoughtgraph loadtest`: open-loop mixed load against a real service (see runner)."""

from thoughtgraph.tools.loadtest.runner import run_loadtest

__all__ = ["run_loadtest"]
