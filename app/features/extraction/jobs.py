"""What the worker runs for a contribution written with ``extract: true``."""

from __future__ import annotations

from thoughtgraph.features.extraction.service import ExtractionResult
from thoughtgraph.features.services import JobRuntime


async def extract_facts(runtime: JobRuntime, namespace: str, thought_id: str) -> ExtractionResult:
    return await runtime.services.extraction.extract(namespace, thought_id)
