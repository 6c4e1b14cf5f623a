"""`thoughtgraph loadtest`: open-loop mixed load against a real service (see runner), or
the soak of N clients on a fresh service (see soak)."""

from thoughtgraph.tools.loadtest.runner import run_loadtest
from thoughtgraph.tools.loadtest.soak import run_soak

__all__ = ["run_loadtest", "run_soak"]
