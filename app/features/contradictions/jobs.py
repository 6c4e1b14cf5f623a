"""Contradiction scans: of the thoughts written since the namespace's scan cursor (asked
for after writes, and swept every minute), of given thoughts, and of a namespace's recent
thoughts (hourly). All also link RELATED_TO neighbours."""

from __future__ import annotations

from pydantic import BaseModel

from thoughtgraph.domain.changes import ChangeKind
from thoughtgraph.domain.judgement import UsageMeter
from thoughtgraph.domain.units import HOUR_MS
from thoughtgraph.features.consolidation.candidates import candidate_pages
from thoughtgraph.features.consolidation.repository import CandidateWindow
from thoughtgraph.features.contradictions.scanning import ScanOutcome
from thoughtgraph.features.services import JobRuntime

# The change events that write a thought: what a scan of new thoughts looks at.
THOUGHT_WRITES = (ChangeKind.CREATED, ChangeKind.REFINED, ChangeKind.CONSOLIDATED)
# Pages one scan of new thoughts takes on before it hands over to a fresh task.
MAX_PAGES_PER_RUN = 25


class ScanResult(BaseModel):
    namespace: str
    scanned: int = 0
    pairs_judged: int = 0
    contradictions_found: int = 0
    links: int = 0
    llm_calls: int = 0

    def add(self, scanned: int, outcome: ScanOutcome) -> None:
        """Count in one scanned page."""
        self.scanned += scanned
        self.pairs_judged += len(outcome.verdicts)
        self.contradictions_found += outcome.recorded
        self.links += outcome.links


class NewThoughtsScan(ScanResult):
    caught_up: bool = False  # False: more was written meanwhile than one run takes on


def window_start(runtime: JobRuntime) -> int:
    """The start of the consolidation window: what scans look at, in epoch ms."""
    return runtime.clock.now_ms() - runtime.settings.consolidation_window_hours * HOUR_MS


async def scan_thoughts(runtime: JobRuntime, namespace: str, thought_ids: list[str]) -> ScanResult:
    subjects = await runtime.repos.thoughts.with_embeddings(namespace, thought_ids)
    usage = UsageMeter(max_calls=runtime.settings.llm_max_calls_per_run)
    outcome = await runtime.services.scanner.scan(namespace, subjects, usage)
    result = ScanResult(namespace=namespace, llm_calls=usage.usage.calls)
    result.add(len(subjects), outcome)
    return result


async def scan_namespace(runtime: JobRuntime, namespace: str) -> ScanResult:
    """Thoughts of the consolidation window, a page at a time."""
    settings = runtime.settings
    usage = UsageMeter(max_calls=settings.llm_max_calls_per_run)
    since = window_start(runtime)
    totals = ScanResult(namespace=namespace)
    # New or used in the window only.
    window = CandidateWindow(since_ms=since, until_ms=runtime.clock.now_ms())
    pages = candidate_pages(runtime, namespace, window, page_size=settings.consolidation_batch_size)
    async for page in pages:
        totals.add(len(page), await runtime.services.scanner.scan(namespace, page, usage))
    totals.llm_calls = usage.usage.calls
    return totals


async def scan_new(runtime: JobRuntime, namespace: str) -> NewThoughtsScan:
    """The thoughts written since the namespace's scan cursor (within the consolidation
    window), a page at a time; the cursor moves past a page once it is scanned. The
    write's own change event is the record of the work to do, so a request lost with a
    crashed service is made good by the next scan; a crash mid-scan scans one page again
    (scans are idempotent)."""
    settings = runtime.settings
    cursor = runtime.repos.scan_cursor
    usage = UsageMeter(max_calls=settings.llm_max_calls_per_run)
    since = window_start(runtime)
    page_size = max(1, settings.scan_page_size)
    totals = NewThoughtsScan(namespace=namespace)
    for _ in range(MAX_PAGES_PER_RUN):
        position = await cursor.position(namespace)
        if position.scanned >= position.head:
            totals.caught_up = True
            break
        page = await cursor.written_after(
            namespace, position, THOUGHT_WRITES, since_ms=since, limit=page_size
        )
        if page:
            ids = list(dict.fromkeys(written.thought_id for written in page))
            subjects = await runtime.repos.thoughts.with_embeddings(namespace, ids)
            totals.add(
                len(subjects), await runtime.services.scanner.scan(namespace, subjects, usage)
            )
        # A full page ends at its last thought; a short one reaches the head read before it.
        reached = page[-1].revision if len(page) == page_size else position.head
        await cursor.advance(namespace, reached)
    totals.llm_calls = usage.usage.calls
    return totals


async def has_unscanned(runtime: JobRuntime, namespace: str) -> bool:
    """Whether a thought has been written since the namespace's scan cursor."""
    cursor = runtime.repos.scan_cursor
    position = await cursor.position(namespace)
    if position.scanned >= position.head:
        return False
    since = window_start(runtime)
    return bool(
        await cursor.written_after(namespace, position, THOUGHT_WRITES, since_ms=since, limit=1)
    )


async def namespaces_with_unscanned(runtime: JobRuntime) -> list[str]:
    """The namespaces with a thought written since their scan cursor: what the sweep asks
    to scan (the others get no task, and so no operational event, every minute)."""
    found = []
    for namespace in await runtime.repos.executor.namespaces():
        if await has_unscanned(runtime, namespace):
            found.append(namespace)
    return found
