"""``thoughtgraph eval maintenance PATH``: false maintenance on natural conversation.

Each conversation is contributed over GraphQL as in ``eval locomo`` (speaker as agent,
session, session date). Every write asks for a contradiction scan; the eval runs each
asked scan right after its write, as a worker that keeps up would (``scan_thoughts``,
the worker's job). Then one consolidation run per conversation (``run_consolidation``,
the worker's job, as the bench runs it). Printed: open contradictions, supersessions and
merges per 1,000 turns, up to 10 samples of each (both texts, the verdict or kind) for a
person to judge, and the names of the 15 largest topics.

Nothing here is a claim about truth: the conversations hold no changed facts a person
would call a contradiction, so what is counted is a ceiling on false maintenance.
"""

from __future__ import annotations

import argparse
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

from thoughtgraph.domain.knowledge import ContradictionStatus
from thoughtgraph.features.consolidation.jobs import run_consolidation
from thoughtgraph.features.contradictions.jobs import scan_thoughts
from thoughtgraph.llm.embedders import build_embedder
from thoughtgraph.ports.jobs import NoJobQueue
from thoughtgraph.runtime import Runtime
from thoughtgraph.settings import Settings
from thoughtgraph.tools.eval.api_service import EvalService, eval_service, ingest_over_api
from thoughtgraph.tools.eval.locomo_command import Progress, _engine_settings, load_for_command
from thoughtgraph.tools.eval.locomo_run import namespace_for
from thoughtgraph.tools.eval.user_command import _header

SAMPLES = 10
TOPICS = 15
LIMIT = 100_000


class ScanRequests(NoJobQueue):
    """A job queue that keeps the scans writes ask for, for the eval to run as the worker
    would; consolidation and namespace scans are run by the eval itself, nothing else is
    queued."""

    def __init__(self) -> None:
        self.pending: list[tuple[str, list[str]]] = []

    def scan_after_write(self, namespace: str, thought_ids: Sequence[str]) -> None:
        self.pending.append((namespace, list(thought_ids)))


@dataclass
class Found:
    turns: int = 0
    scans: int = 0
    contradictions: list[tuple[str, str, str]] = field(default_factory=list)  # open ones
    resolved: int = 0
    supersessions: list[tuple[str, str, str]] = field(default_factory=list)
    merges: list[tuple[str, str, str]] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    topics: list[tuple[str, str, int]] = field(default_factory=list)


async def _inspect(runtime: Runtime, namespace: str, sample_id: str, found: Found) -> None:
    repos = runtime.repos
    requested = await runtime.services.consolidation.request(
        namespace, dry_run=False, trigger="eval"
    )
    run = await run_consolidation(runtime, namespace, requested.id, dry_run=False)
    c = run.counts
    found.runs.append(
        f"{sample_id}: consolidation {run.status}, deduped {c.deduped}, superseded "
        f"{c.superseded}, contradictions found {c.contradictions_found}, pairs judged "
        f"{c.pairs_judged}, topics assigned {c.assigned}"
    )
    for item in await repos.contradictions.by_status(namespace, None, LIMIT):
        if item.status is not ContradictionStatus.OPEN:
            found.resolved += 1
            continue
        texts = await repos.thoughts.get_many(namespace, [item.thought_a_id, item.thought_b_id])
        a, b = texts.get(item.thought_a_id), texts.get(item.thought_b_id)
        verdict = f"{item.relation} {item.confidence:.2f} ({item.detector})"
        found.contradictions.append(
            (a.content if a else "?", b.content if b else "?", f"{sample_id} {verdict}")
        )
    topics = await repos.topics.recent(namespace, LIMIT)
    found.topics += [(sample_id, t.name, t.thought_count) for t in topics]


def _superseded(
    svc: EvalService, namespace: str, ids: list[str], sample_id: str, found: Found
) -> None:
    repos = svc.runtime.repos
    by = svc.call(repos.supersession.superseders(namespace, ids)) if ids else {}
    known = set(ids)
    newer = svc.call(repos.thoughts.get_many(namespace, list({*by, *by.values()})))
    for old, new in by.items():
        a, b = newer.get(old), newer.get(new)
        pair = (a.content if a else "?", b.content if b else "?")
        if new in known:
            found.supersessions.append((*pair, f"{sample_id} superseded by a later turn"))
        else:
            sources = len(b.source_ids) if b else 0
            found.merges.append(
                (*pair, f"{sample_id} merged into a new thought ({sources} sources)")
            )


async def run_maintenance_command(settings: Settings, args: argparse.Namespace) -> int:
    conversations = load_for_command(args, "maintenance")
    if conversations is None:
        return 2
    embedder = await build_embedder(settings)
    queue = ScanRequests()
    found = Found()
    phases = Progress()
    settings = settings.model_copy(update={"scan_on_write": True})
    with (
        _engine_settings(settings, args.engine) as chosen,
        eval_service(chosen, embedder, queue) as svc,
    ):

        def drain() -> None:
            while queue.pending:
                namespace, ids = queue.pending.pop(0)
                svc.call(scan_thoughts(svc.runtime, namespace, ids))
                found.scans += 1

        prefix = f"maint-{uuid.uuid4().hex[:6]}"
        try:
            for conversation in conversations:
                namespace = namespace_for(prefix, conversation.sample_id)
                step = phases(f"ingest+scan {conversation.sample_id}", len(conversation.turns))
                turns_of = ingest_over_api(svc, namespace, conversation, step, after_each=drain)
                found.turns += len(conversation.turns)
                svc.call(_inspect(svc.runtime, namespace, conversation.sample_id, found))
                _superseded(svc, namespace, list(turns_of), conversation.sample_id, found)
        finally:
            phases.close()
    print(_header("false maintenance", chosen, conversations))
    print(render_maintenance(found))
    return 0


def render_maintenance(found: Found) -> str:
    per = 1000.0 / found.turns if found.turns else 0.0
    lines = [
        f"{found.turns} turns, {found.scans} write-time scans, then one consolidation run each:",
        *(f"  {line}" for line in found.runs),
        "",
        f"{'':<28}{'count':>7}{'per 1,000 turns':>18}",
    ]
    for label, items in (
        ("open contradictions", found.contradictions),
        ("supersessions", found.supersessions),
        ("merges", found.merges),
    ):
        lines.append(f"{label:<28}{len(items):>7}{len(items) * per:>18.1f}")
    lines.append(
        f"{'(resolved contradictions)':<28}{found.resolved:>7}{found.resolved * per:>18.1f}"
    )
    for label, items in (
        ("Open contradictions", found.contradictions),
        ("Supersessions", found.supersessions),
        ("Merges", found.merges),
    ):
        lines += ["", f"{label} (sample of {min(SAMPLES, len(items))}; judge them):"]
        for older, newer, kind in items[:SAMPLES]:
            lines += [f"  [{kind}]", f"    older: {older[:160]}", f"    newer: {newer[:160]}"]
    largest = sorted(found.topics, key=lambda t: -t[2])[:TOPICS]
    lines += ["", f"The {TOPICS} largest topics (conversation, thoughts, name):"]
    lines += [f"  {sid:<8}{count:>5}  {name}" for sid, name, count in largest]
    return "\n".join(lines)
