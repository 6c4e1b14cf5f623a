"""The re-embedding job: what ``thoughtgraph.reembed`` runs, store-wide."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from thoughtgraph.features.reembedding.service import ReembedReport
from thoughtgraph.features.services import JobRuntime


class ReembedResult(BaseModel):
    embedder: str
    dimension: int
    slot: int
    switched: bool
    passes: int
    written: dict[str, int]
    cleared: dict[str, int]
    seconds: float
    filling_s: float
    thoughts_per_second: float

    @classmethod
    def of(cls, report: ReembedReport) -> ReembedResult:
        return cls(
            embedder=report.embedder,
            dimension=report.dimension,
            slot=report.slot,
            switched=report.switched,
            passes=report.passes,
            written=dict(report.written),
            cleared=dict(report.cleared),
            seconds=round(report.seconds, 3),
            filling_s=round(report.filling_s, 3),
            thoughts_per_second=round(report.thoughts_per_second, 1),
        )


async def reembed(runtime: JobRuntime, overrides: dict[str, Any]) -> ReembedResult:
    """Every vector made again with the embedder ``overrides`` name, then switched to."""
    return ReembedResult.of(await runtime.services.reembedding.run(overrides))
