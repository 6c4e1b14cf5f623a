"""The maintenance sections of the benchmark: which run, and their part of the report."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from thoughtgraph.settings import Settings
from thoughtgraph.tools.bench.consolidation import ConsolidationBench
from thoughtgraph.tools.bench.report import Target
from thoughtgraph.tools.bench.scan_cost import ScanCostBench


@dataclass(frozen=True)
class Maintenance:
    """Consolidation at these sizes, and the scan cost (contribute with scanning on/off)."""

    consolidation: Sequence[int] = (1_000, 10_000)
    scan_cost: bool = True
    contributes: int = 300
    scan_preload: int = 1_000
    vector_cache: Path | None = None  # default: vectors.default_cache_dir()
    profile_dir: Path | None = None  # cProfile the consolidation runs, dumped here

    @classmethod
    def none(cls) -> Maintenance:
        return cls(consolidation=(), scan_cost=False)


class MaintenanceSections:
    def __init__(self, settings: Settings, plan: Maintenance) -> None:
        self.settings = settings
        self.plan = plan
        self.consolidation: ConsolidationBench | None = None
        self.scan_cost: ScanCostBench | None = None

    def run(self) -> None:
        plan = self.plan
        # The scan cost needs the embedded engine: its Redis is the worker's broker.
        scan_cost = plan.scan_cost and not self.settings.neo4j_uri
        if not plan.consolidation and not scan_cost:
            return
        from thoughtgraph.llm.embedders import LocalEmbedder

        print("bench: loading the local embedder for maintenance", file=sys.stderr, flush=True)
        embedder = LocalEmbedder.load(self.settings)  # one model for both sections
        if plan.consolidation:
            self.consolidation = ConsolidationBench(
                self.settings,
                plan.consolidation,
                embedder,
                cache_dir=plan.vector_cache,
                profile_dir=plan.profile_dir,
            )
            self.consolidation.run()
        if scan_cost:
            self.scan_cost = ScanCostBench(
                self.settings,
                embedder,
                contributes=plan.contributes,
                preload=plan.scan_preload,
                cache_dir=plan.vector_cache,
            )
            self.scan_cost.run()

    def report_lines(self) -> list[str]:
        lines: list[str] = []
        for section in (self.consolidation, self.scan_cost):
            found = section.report_lines() if section is not None else []
            if found:
                lines += ["", *found] if lines else found
        if self.plan.scan_cost and self.settings.neo4j_uri:
            lines.append("scan cost: not measured on Neo4j (it needs the embedded engine)")
        return lines

    def targets(self) -> list[Target]:
        embedded = not self.settings.neo4j_uri
        found: list[Target] = []
        if self.consolidation is not None:
            found += self.consolidation.targets(embedded=embedded)
        if self.scan_cost is not None:
            found += self.scan_cost.targets()
        return found
