"""Contradiction scans: of freshly written thoughts (enqueued after each write) and of a
namespace's recent thoughts (hourly). Both also link RELATED_TO neighbours."""

from __future__ import annotations

from pydantic import BaseModel

from thoughtgraph.domain.judgement import UsageMeter
from thoughtgraph.features.consolidation.candidates import candidate_pages
from thoughtgraph.features.consolidation.repository import CandidateWindow
from thoughtgraph.features.services import JobRuntime

HOUR_MS = 3600 * 1000


class ScanResult(BaseModel):
    namespace: str
    scanned: int
    pairs_judged: int
    contradictions_found: int
    links: int
    llm_calls: int


async def scan_thoughts(runtime: JobRuntime, namespace: str, thought_ids: list[str]) -> ScanResult:
    subjects = await runtime.repos.thoughts.with_embeddings(namespace, thought_ids)
    usage = UsageMeter(max_calls=runtime.settings.llm_max_calls_per_run)
    outcome = await runtime.services.scanner.scan(namespace, subjects, usage)
    return ScanResult(
        namespace=namespace,
        scanned=len(subjects),
        pairs_judged=len(outcome.verdicts),
        contradictions_found=outcome.recorded,
        links=outcome.links,
        llm_calls=usage.usage.calls,
    )


async def scan_namespace(runtime: JobRuntime, namespace: str) -> ScanResult:
    """Thoughts of the consolidation window, a page at a time."""
    settings = runtime.settings
    usage = UsageMeter(max_calls=settings.llm_max_calls_per_run)
    until = runtime.clock.now_ms()
    since = until - settings.consolidation_window_hours * HOUR_MS
    totals = ScanResult(
        namespace=namespace, scanned=0, pairs_judged=0, contradictions_found=0, links=0, llm_calls=0
    )
    window = CandidateWindow(since_ms=since, until_ms=until)  # new or used in the window only
    pages = candidate_pages(runtime, namespace, window, page_size=settings.consolidation_batch_size)
    async for page in pages:
        outcome = await runtime.services.scanner.scan(namespace, page, usage)
        totals.scanned += len(page)
        totals.pairs_judged += len(outcome.verdicts)
        totals.contradictions_found += outcome.recorded
        totals.links += outcome.links
    totals.llm_calls = usage.usage.calls
    return totals
