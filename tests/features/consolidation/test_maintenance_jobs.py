"""Knowledge that maintains itself, job by job, on both engines (real processes): the
contradiction scan, supersession detection, merges and their undoing, topics and their
summaries, forgetting and purging on a controlled clock, dry runs, and retries."""

from __future__ import annotations

import pytest

from tests.knowledge_support import advance_days, contribute
from tests.support import LoopThread
from thoughtgraph.domain.access import Principal, Role
from thoughtgraph.domain.changes import Actor, ChangeKind
from thoughtgraph.domain.errors import ForbiddenError
from thoughtgraph.domain.knowledge import ContradictionStatus, Resolution, RunStatus
from thoughtgraph.domain.models import ThoughtState, ThoughtType
from thoughtgraph.features.consolidation.jobs import run_consolidation
from thoughtgraph.features.contradictions.jobs import scan_namespace, scan_thoughts
from thoughtgraph.features.retention.jobs import forget_and_purge
from thoughtgraph.runtime import Runtime

PERSON = Actor(id="reviewer", name="Reviewer")


def _consolidate(loop: LoopThread, runtime: Runtime, ns: str, *, dry_run: bool = False):  # type: ignore[no-untyped-def]
    run = loop.run(runtime.services.consolidation.request(ns, dry_run=dry_run, trigger="test"))
    return loop.run(run_consolidation(runtime, ns, run.id, dry_run=dry_run))


def test_the_scheduled_scan_reads_only_what_is_new_in_the_window(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    """Unlike consolidation, importance does not bring an old thought back into a scan."""
    contribute(loop, runtime, ns, "The billing service listens on port 8080.", importance=5)
    contribute(loop, runtime, ns, "The search service keeps a warm cache.")
    advance_days(runtime, runtime.settings.consolidation_window_hours / 24 + 1)
    contribute(loop, runtime, ns, "The billing service now listens on port 9443.")
    assert loop.run(scan_namespace(runtime, ns)).scanned == 1


def test_a_changed_fact_is_flagged_then_superseded_and_ranks_below(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    older = contribute(loop, runtime, ns, "The billing service listens on port 8080.")
    newer = contribute(loop, runtime, ns, "The billing service now listens on port 9443.")
    scanned = loop.run(scan_thoughts(runtime, ns, [newer]))
    assert scanned.contradictions_found == 1
    (found,) = loop.run(runtime.services.contradictions.by_status(ns, ContradictionStatus.OPEN, 10))
    assert (found.thought_a_id, found.thought_b_id) == (older, newer)
    assert found.relation == "update" and found.detector == "rules"

    run = _consolidate(loop, runtime, ns)
    assert run.status is RunStatus.SUCCEEDED and run.counts.superseded == 1
    resolved = loop.run(runtime.services.contradictions.get(ns, found.id))
    assert resolved is not None and resolved.resolution is Resolution.B_WINS
    hits = loop.run(
        runtime.services.search.search(ns, "which port does the billing service listen on")
    )
    ids = [h.thought.id for h in hits]
    assert ids.index(newer) < ids.index(older)
    old_hit = next(h for h in hits if h.thought.id == older)
    assert old_hit.superseded and old_hit.superseded_by == newer
    current = loop.run(
        runtime.services.search.search(
            ns, "billing service port", view=runtime.services.search.view(current_only=True)
        )
    )
    assert older not in [h.thought.id for h in current]
    history = loop.run(runtime.services.history.history(ns, older))
    assert ChangeKind.CONTRADICTION_RESOLVED in [e.kind for e in history]


def test_compatible_look_alikes_are_not_flagged(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    ids = [
        contribute(loop, runtime, ns, "The billing service listens on port 8080."),
        contribute(loop, runtime, ns, "The auth service listens on port 9443."),
        contribute(loop, runtime, ns, "Alice likes tea in the morning."),
        contribute(loop, runtime, ns, "Alice also likes coffee in the afternoon."),
    ]
    scanned = loop.run(scan_thoughts(runtime, ns, ids))
    assert scanned.pairs_judged >= 1  # similar enough to be judged, and judged compatible
    assert scanned.contradictions_found == 0
    assert loop.run(runtime.services.contradictions.by_status(ns, None, 10)) == []


def test_resolving_a_contradiction_supersedes_the_loser(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    older = contribute(loop, runtime, ns, "The staging database runs PostgreSQL 14.")
    newer = contribute(loop, runtime, ns, "The staging database runs PostgreSQL 16.")
    loop.run(scan_thoughts(runtime, ns, [newer]))
    (found,) = loop.run(runtime.services.contradictions.by_status(ns, None, 10))
    decided = loop.run(
        runtime.services.contradictions.resolve(
            ns, found.id, Resolution.A_WINS, actor=PERSON, note="16 was rolled back"
        )
    )
    assert decided.status is ContradictionStatus.RESOLVED and decided.resolved_by == "Reviewer"
    stored = loop.run(runtime.repos.thoughts.get_many(ns, [older, newer]))
    assert stored[newer].superseded_by == older and stored[older].superseded_by is None
    hits = loop.run(runtime.services.search.search(ns, "staging database PostgreSQL version"))
    ids = [h.thought.id for h in hits]
    assert ids.index(older) < ids.index(newer)
    # Decided pairs are never flagged again, and a second decision is refused.
    assert loop.run(scan_thoughts(runtime, ns, [newer, older])).contradictions_found == 0


def test_near_duplicates_merge_and_the_merge_undoes(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    first = contribute(loop, runtime, ns, "Deployments go out through the GitHub Actions pipeline.")
    second = contribute(
        loop, runtime, ns, "Deployments go out through the GitHub Actions pipeline!"
    )
    run = _consolidate(loop, runtime, ns)
    assert run.counts.deduped == 2
    sources = loop.run(runtime.repos.thoughts.get_many(ns, [first, second]))
    merged_id = sources[first].superseded_by
    assert merged_id is not None and sources[second].superseded_by == merged_id
    merged = loop.run(runtime.repos.thoughts.get_many(ns, [merged_id]))[merged_id]
    assert merged.type is ThoughtType.CONSOLIDATION
    assert set(merged.source_ids) == {first, second}

    restored = loop.run(runtime.services.merging.undo(ns, merged_id, PERSON))
    assert {t.id for t in restored} == {first, second}
    assert all(t.is_current for t in restored)
    retired = loop.run(runtime.repos.thoughts.get_many(ns, [merged_id]))[merged_id]
    assert retired.state is ThoughtState.SOFT_DELETED
    kinds = [e.kind for e in loop.run(runtime.services.history.history(ns, merged_id))]
    assert kinds == [ChangeKind.MERGED, ChangeKind.UNMERGED]


def test_a_dry_run_reports_the_same_counts_and_changes_nothing(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    contribute(loop, runtime, ns, "The cache layer uses Redis 7.")
    contribute(loop, runtime, ns, "The cache layer now uses Valkey 8 instead of Redis.")
    contribute(loop, runtime, ns, "Deploys happen on Tuesdays.")
    contribute(loop, runtime, ns, "Deploys happen on Tuesdays!")
    before = loop.run(runtime.repos.changes.revision(ns))
    dry = _consolidate(loop, runtime, ns, dry_run=True)
    assert loop.run(runtime.repos.changes.revision(ns)) == before
    assert loop.run(runtime.services.contradictions.by_status(ns, None, 10)) == []
    assert loop.run(runtime.services.topics.recent(ns, 10)) == []
    real = _consolidate(loop, runtime, ns)
    assert dry.counts.model_dump() == real.counts.model_dump()
    assert real.counts.deduped == 2 and real.counts.contradictions_found == 1


def test_topics_form_and_are_summarised_lazily(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    for text in (
        "The payments API rate limit is 100 requests per second per client.",
        "Clients that exceed the payments API rate limit get HTTP 429 responses.",
        "The payments API rate limit resets every second.",
        "Payments API rate limits are counted per API key.",
        "Batch endpoints of the payments API count against the same rate limit.",
        "The payments API returns a Retry-After header when a client is rate limited.",
        "The billing service listens on port 8080.",
    ):
        contribute(loop, runtime, ns, text)
    run = _consolidate(loop, runtime, ns)
    assert run.counts.assigned == 7 and run.counts.summarised == 1
    topics = loop.run(runtime.services.topics.recent(ns, 10))
    assert sorted(t.thought_count for t in topics) == [1, 6]
    big, small = sorted(topics, key=lambda t: -t.thought_count)
    assert big.summary and big.unsummarised_count == 0
    assert small.summary is None and small.unsummarised_count == 1  # lazy: below 5
    members = loop.run(runtime.services.topics.members(ns, big.id, 20))
    assert len(members) == big.thought_count
    assert any(m.content.split()[0] in big.summary for m in members)


def test_forgetting_and_purge_follow_the_clock(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    stale = contribute(loop, runtime, ns, "A passing remark about the office coffee.", importance=1)
    pinned = contribute(
        loop, runtime, ns, "The on-call rota lives in PagerDuty.", importance=1, pinned=True
    )
    important = contribute(loop, runtime, ns, "Production credentials are in Vault.", importance=5)
    outdated = contribute(loop, runtime, ns, "Credentials used to be in 1Password.", importance=5)
    loop.run(
        runtime.services.supersession.supersede(
            ns, important, outdated, reason="moved to Vault", actor=PERSON
        )
    )
    advance_days(runtime, 59)
    assert loop.run(forget_and_purge(runtime, ns)).forgotten == 0
    advance_days(runtime, 2)
    assert loop.run(forget_and_purge(runtime, ns)).forgotten == 2  # stale, and outdated
    stored = loop.run(runtime.repos.thoughts.get_many(ns, [stale, pinned, important, outdated]))
    assert stored[stale].state is ThoughtState.SOFT_DELETED
    assert stored[outdated].state is ThoughtState.SOFT_DELETED
    assert stored[pinned].is_current and stored[important].is_current
    hits = loop.run(runtime.services.search.search(ns, "office coffee remark"))
    assert stale not in [h.thought.id for h in hits]
    restored = loop.run(runtime.services.retention.restore(ns, stale, PERSON))
    assert restored.state is ThoughtState.ACTIVE
    loop.run(runtime.services.retention.forget(ns, stale, PERSON))
    advance_days(runtime, 29)
    assert loop.run(forget_and_purge(runtime, ns)).purged == 0
    advance_days(runtime, 2)
    assert loop.run(forget_and_purge(runtime, ns)).purged == 2  # stale, and outdated
    assert stale not in loop.run(runtime.repos.thoughts.get_many(ns, [stale]))
    kinds = [e.kind for e in loop.run(runtime.repos.changes.since(ns, 0, 100))]
    assert ChangeKind.PURGED in kinds and ChangeKind.RESTORED in kinds


def test_running_again_duplicates_nothing(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    contribute(loop, runtime, ns, "The search cluster has 3 nodes.")
    contribute(loop, runtime, ns, "The search cluster now has 5 nodes.")
    contribute(loop, runtime, ns, "Backups run nightly at 02:00 UTC.")
    contribute(loop, runtime, ns, "Backups run nightly at 02:00 UTC!")
    first = _consolidate(loop, runtime, ns)
    revision = loop.run(runtime.repos.changes.revision(ns))
    second = _consolidate(loop, runtime, ns)
    assert first.counts.deduped == 2 and second.counts.deduped == 0
    assert second.counts.contradictions_found == 0 and second.counts.superseded == 0
    # The merged thought is new in the window: the second run may only assign it a topic.
    events = loop.run(runtime.repos.changes.since(ns, revision, 100))
    assert {e.kind for e in events} <= {
        ChangeKind.ASSIGNED,
        ChangeKind.TOPIC_CREATED,
        ChangeKind.LINKED,
    }


def test_a_run_lists_its_merges_to_readers_of_its_namespace_only(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    contribute(loop, runtime, ns, "Backups are copied to the archive bucket every night.")
    contribute(loop, runtime, ns, "Backups are copied to the archive bucket every night!")
    run = _consolidate(loop, runtime, ns)
    reader = Principal(key_id="k", agent_id="r", agent_name="r", role=Role.READER, namespaces=(ns,))
    stranger = reader.model_copy(update={"namespaces": (ns + "-other",)})
    merges = loop.run(runtime.services.consolidation.merges(ns, [run.id], caller=reader))
    (merged_id,) = merges[run.id]
    merged = loop.run(runtime.repos.thoughts.get_many(ns, [merged_id]))[merged_id]
    assert merged.type is ThoughtType.CONSOLIDATION
    with pytest.raises(ForbiddenError):
        loop.run(runtime.services.consolidation.merges(ns, [run.id], caller=stranger))
