"""Whether a command opens the store itself or attaches to a running service's engine."""

from __future__ import annotations

from thoughtgraph.domain.errors import DataDirLockedError
from thoughtgraph.settings import Settings
from thoughtgraph.store.factory import check_store_available


def attaches(settings: Settings) -> bool:
    """Whether to attach to an engine another process owns: on the embedded engine, when
    the data dir is held (Neo4j is a server every process connects to alike: never)."""
    try:
        check_store_available(settings)
    except DataDirLockedError:
        return True
    return False
