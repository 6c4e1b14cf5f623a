"""Consent for changes to fields about a person, on both engines, through the services a
request reaches: a change is held until the person approves it (or, for a benign field,
until two signals agree), and no other write path (supersede, refine, consolidate,
contradiction resolution, supersession detection, merges, import) changes the value."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from tests.knowledge_support import advance_days
from tests.support import LoopThread
from tests.transfer_support import export_records, import_file
from thoughtgraph.domain.access import Principal, Role
from thoughtgraph.domain.changes import Actor, ChangeKind
from thoughtgraph.domain.consent import ConsentDecision, ConsentStatus
from thoughtgraph.domain.errors import (
    ConsentRequiredError,
    ForbiddenError,
    InvalidStateError,
    NotFoundError,
)
from thoughtgraph.domain.judgement import PairRelation, Verdict
from thoughtgraph.domain.knowledge import Resolution, pair_fingerprint
from thoughtgraph.domain.models import Thought
from thoughtgraph.domain.scopes import Scope
from thoughtgraph.features.thoughts.inputs import ThoughtInput
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.store.cypher_store import CypherGraphStore


def key(ns: str, user: str | None, agent: str | None = None) -> Principal:
    name = agent or f"{user or 'team'}-bot"
    return Principal(
        key_id=f"key-{name}",
        agent_id=name,
        agent_name=name,
        role=Role.WRITER,
        namespaces=(ns,),
        user=user,
    )


def data(ns: str, content: str, **fields: object) -> ThoughtInput:
    return ThoughtInput(
        content=content,
        agent_id="x",
        agent_name="x",
        namespace=ns,
        **fields,  # type: ignore[arg-type]
    )


def current_values(
    loop: LoopThread, runtime: Runtime, ns: str, person: str, field: str
) -> set[str]:
    found = loop.run(runtime.repos.consent.field_values(ns, [(person, field)]))
    return {t.content for t in found[(person, field)]}


def stored(loop: LoopThread, runtime: Runtime, ns: str, tid: str) -> Thought | None:
    return loop.run(runtime.repos.thoughts.get_many(ns, [tid])).get(tid)


def lisbon(loop: LoopThread, runtime: Runtime, ns: str) -> Thought:
    """Alice's city, her own private first value: written as any thought is."""
    alice = key(ns, "alice")
    first = loop.run(
        runtime.services.thoughts.contribute(
            data(ns, "Alice lives in Lisbon", category="city", scope=Scope.PRIVATE), caller=alice
        )
    )
    assert first.consent_request is None
    assert first.thought.about == "alice"  # a private field is about its owner
    return first.thought


def test_a_change_waits_for_the_person(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    s = runtime.services
    alice, bob, carol = key(ns, "alice"), key(ns, "bob"), key(ns, "carol")
    old = lisbon(loop, runtime, ns)
    same = loop.run(
        s.thoughts.contribute(data(ns, "alice lives in LISBON.", category="City"), caller=alice)
    )
    assert same.consent_request is None  # the same value again is no change
    change = data(ns, "Alice lives in Porto", category="city", about="alice", context="she said")
    held = loop.run(s.thoughts.contribute(change, caller=bob))
    request = held.consent_request
    assert request is not None and request.status is ConsentStatus.PENDING
    assert (request.person, request.field, request.value) == ("alice", "city", change.content)
    assert set(request.replaces_ids) == {old.id, same.thought.id}
    assert request.evidence == "she said" and request.proposed_by_user == "bob"
    assert stored(loop, runtime, ns, held.thought.id) is None  # held, not written
    assert current_values(loop, runtime, ns, "alice", "city") == {
        "Alice lives in Lisbon",
        "alice lives in LISBON.",
    }
    again = loop.run(s.thoughts.contribute(change, caller=bob))  # a retry: the same request
    assert again.consent_request is not None and again.consent_request.id == request.id
    assert again.consent_request.signals == request.signals

    # Who sees and who decides: the person and the proposer see it; only the person decides.
    assert [r.id for r in loop.run(s.consent.requests(ns, caller=alice))] == [request.id]
    assert [r.id for r in loop.run(s.consent.requests(ns, caller=bob))] == [request.id]
    assert loop.run(s.consent.requests(ns, caller=carol)) == []
    assert loop.run(s.consent.requests(ns, caller=key(ns, None))) == []
    with pytest.raises(ForbiddenError):
        loop.run(s.consent.decide(ns, request.id, ConsentDecision.APPROVE, caller=bob))
    with pytest.raises(NotFoundError):
        loop.run(s.consent.decide(ns, request.id, ConsentDecision.APPROVE, caller=carol))
    assert current_values(loop, runtime, ns, "alice", "city") >= {"Alice lives in Lisbon"}

    approved = loop.run(
        s.consent.decide(ns, request.id, ConsentDecision.APPROVE, note="yes", caller=alice)
    )
    assert approved.status is ConsentStatus.APPROVED and approved.decided_by == "alice"
    assert current_values(loop, runtime, ns, "alice", "city") == {"Alice lives in Porto"}
    new = stored(loop, runtime, ns, request.thought_id)
    assert new is not None and new.about == "alice" and new.category == "city"
    for tid in request.replaces_ids:
        retired = stored(loop, runtime, ns, tid)
        assert retired is not None and retired.superseded_by == new.id
    # The audit trail: requested, decided, and supersessions naming the request.
    changes = loop.run(s.history.changes(ns, 0, 500))
    kinds = [e.kind for e in changes if e.subject_id == request.id]
    assert kinds == [ChangeKind.CONSENT_REQUESTED, ChangeKind.CONSENT_DECIDED]
    # The change log shows a request's events to the person and the proposer only.
    # (Bob proposed it, but its events name a private thought of Alice.)
    for reader, shown in ((alice, True), (bob, False), (carol, False)):
        feed = loop.run(s.history.changes(ns, 0, 500, caller=reader))
        assert any(e.subject_id == request.id for e in feed) is shown
    superseded = [e for e in changes if e.kind is ChangeKind.SUPERSEDED]
    assert {e.subject_id for e in superseded} == set(request.replaces_ids)
    # An approval again changes nothing; another decision is refused.
    twice = loop.run(s.consent.decide(ns, request.id, ConsentDecision.APPROVE, caller=alice))
    assert twice.status is ConsentStatus.APPROVED
    assert len(loop.run(s.history.changes(ns, 0, 500))) == len(changes)
    with pytest.raises(InvalidStateError):
        loop.run(s.consent.decide(ns, request.id, ConsentDecision.REJECT, caller=alice))


def test_a_rejected_change_changes_nothing(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    s = runtime.services
    alice, bob = key(ns, "alice"), key(ns, "bob")
    lisbon(loop, runtime, ns)
    change = data(ns, "Alice lives in Madrid", category="city", about="alice")
    request = loop.run(s.thoughts.contribute(change, caller=bob)).consent_request
    assert request is not None
    rejected = loop.run(s.consent.decide(ns, request.id, ConsentDecision.REJECT, caller=alice))
    assert rejected.status is ConsentStatus.REJECTED
    assert current_values(loop, runtime, ns, "alice", "city") == {"Alice lives in Lisbon"}
    assert stored(loop, runtime, ns, request.thought_id) is None
    # The same change proposed again is the rejected request: no new question to Alice.
    again = loop.run(s.thoughts.contribute(change, caller=bob)).consent_request
    assert again is not None and again.id == request.id
    assert again.status is ConsentStatus.REJECTED
    assert loop.run(s.consent.requests(ns, ConsentStatus.PENDING, caller=alice)) == []


def test_a_benign_change_needs_two_signals(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    s = runtime.services
    first = data(ns, "Alice likes a formal tone", category="tone", about="alice")
    assert loop.run(s.thoughts.contribute(first)).consent_request is None  # a first value
    change = data(ns, "Alice likes a casual tone", category="tone", about="alice", session_id="s1")
    one = loop.run(s.thoughts.contribute(change, caller=key(ns, None, "planner")))
    assert one.consent_request is not None
    assert one.consent_request.status is ConsentStatus.PENDING
    # The same agent in the same session again is still one signal.
    repeat = loop.run(s.thoughts.contribute(change, caller=key(ns, None, "planner")))
    assert repeat.consent_request is not None
    assert repeat.consent_request.status is ConsentStatus.PENDING
    assert current_values(loop, runtime, ns, "alice", "tone") == {"Alice likes a formal tone"}
    two = loop.run(s.thoughts.contribute(change, caller=key(ns, None, "stylist")))
    applied = two.consent_request
    assert applied is not None and applied.status is ConsentStatus.APPLIED
    assert len(set(applied.signals)) == 2 and applied.decided_by == "corroboration"
    assert current_values(loop, runtime, ns, "alice", "tone") == {"Alice likes a casual tone"}


def test_a_request_expires(loop: LoopThread, runtime: Runtime, ns: str) -> None:
    s = runtime.services
    lisbon(loop, runtime, ns)
    change = data(ns, "Alice lives in Rome", category="city", about="alice")
    request = loop.run(s.thoughts.contribute(change, caller=key(ns, "bob"))).consent_request
    assert request is not None
    assert loop.run(s.consent.expire_due(ns)) == 0
    advance_days(runtime, 8)
    assert loop.run(s.consent.expire_due(ns)) == 1
    assert loop.run(s.consent.expire_due(ns)) == 0
    expired = loop.run(s.consent.requests(ns, ConsentStatus.EXPIRED, caller=key(ns, "alice")))
    assert [r.id for r in expired] == [request.id]
    with pytest.raises(InvalidStateError):
        loop.run(s.consent.decide(ns, request.id, ConsentDecision.APPROVE, caller=key(ns, "alice")))
    assert current_values(loop, runtime, ns, "alice", "city") == {"Alice lives in Lisbon"}
    # Proposed again after it expired (by someone else): asked again, as a new question.
    again = loop.run(s.thoughts.contribute(change, caller=key(ns, "carol"))).consent_request
    assert again is not None and again.status is ConsentStatus.PENDING
    assert (again.decided_by, again.proposed_by_user, again.signals) == (
        None,
        "carol",
        ("carol-bot/-",),
    )


def test_no_other_write_path_changes_a_field(
    loop: LoopThread, runtime: Runtime, ns: str, tmp_path: Path
) -> None:
    s = runtime.services
    alice = key(ns, "alice")
    old = lisbon(loop, runtime, ns)
    other = loop.run(
        s.thoughts.contribute(data(ns, "Alice moved to Porto", scope=Scope.PRIVATE), caller=alice)
    ).thought
    refusals = [
        s.supersession.supersede(
            ns, other.id, old.id, reason="moved", actor=Actor(id="a", name="a"), caller=alice
        ),
        s.thoughts.refine(data(ns, "Alice lives in Porto now"), old.id, caller=alice),
        s.thoughts.consolidate(data(ns, "Alice: Porto"), [old.id, other.id], caller=alice),
    ]
    for attempt in refusals:
        with pytest.raises(ConsentRequiredError):
            loop.run(attempt)
    # Maintenance proposes instead of superseding (topic summaries, supersession detection).
    loop.run(
        s.supersession.supersede(
            ns, other.id, old.id, reason="newer", actor=Actor.maintenance("topic-summary")
        )
    )
    # A contradiction between them: refused to a caller, proposed by maintenance.
    cid = pair_fingerprint(ns, old.id, other.id)
    verdict = Verdict(cid, PairRelation.UPDATE, 0.9, "moved", "rules")
    loop.run(runtime.repos.contradictions.record(ns, cid, old.id, other.id, verdict, at_ms=1))
    with pytest.raises(ConsentRequiredError):
        loop.run(
            s.contradictions.resolve(
                ns, cid, Resolution.B_WINS, actor=Actor(id="a", name="a"), caller=alice
            )
        )
    found = loop.run(s.contradictions.get(ns, cid))
    assert found is not None
    assert not loop.run(
        s.contradictions.resolve_open(found, Resolution.B_WINS, actor=Actor.maintenance())
    )
    # A near-duplicate of the field never merges.
    twin = loop.run(
        s.thoughts.contribute(
            data(ns, "Alice lives in Lisbon!", category="city", scope=Scope.PRIVATE), caller=alice
        )
    ).thought
    assert loop.run(s.merging.merge(ns, [old, twin])) is None
    assert current_values(loop, runtime, ns, "alice", "city") == {
        "Alice lives in Lisbon",
        "Alice lives in Lisbon!",
    }
    pending = loop.run(s.consent.requests(ns, ConsentStatus.PENDING, caller=alice))
    assert [(r.value, r.replaces_ids) for r in pending] == [(other.content, (old.id,))]
    # Approved, what maintenance proposed becomes the field's value, replacing every
    # value current now.
    loop.run(s.consent.decide(ns, pending[0].id, ConsentDecision.APPROVE, caller=alice))
    assert current_values(loop, runtime, ns, "alice", "city") == {other.content}
    for tid in (old.id, twin.id):
        refreshed = stored(loop, runtime, ns, tid)
        assert refreshed is not None and refreshed.superseded_by == pending[0].thought_id


def test_an_import_proposes_a_change(
    loop: LoopThread,
    runtime: Runtime,
    store: CypherGraphStore,
    local_embedder: TextEmbedder,
    ns: str,
    tmp_path: Path,
) -> None:
    """An export from elsewhere saying Alice lives in Madrid, imported where she lives in
    Lisbon: the change is held for her; what is not a change imports as usual."""
    s = runtime.services
    source = f"{ns}-src"
    lisbon(loop, runtime, ns)
    loop.run(
        s.thoughts.contribute(data(source, "Alice lives in Madrid", category="city", about="alice"))
    )
    loop.run(s.thoughts.contribute(data(source, "Bob lives in Oslo", category="city", about="bob")))
    exported = tmp_path / "export.jsonl"
    records = export_records(loop, store, local_embedder, source, exported)
    head = exported.read_text(encoding="utf-8").splitlines()[0]
    # Into another namespace, with new ids (Neo4j holds every namespace in one graph).
    renames = {source: ns} | {
        str(r["id"]): str(uuid.uuid4()) for r in records if r.get("record") == "node"
    }
    moved = [json.dumps(_renamed(r, renames)) for r in records if r.get("record") != "changeLog"]
    exported.write_text("\n".join([head, *moved]) + "\n", encoding="utf-8")
    counts = import_file(loop, store, local_embedder, exported)
    assert counts.held == 1
    assert current_values(loop, runtime, ns, "alice", "city") == {"Alice lives in Lisbon"}
    assert current_values(loop, runtime, ns, "bob", "city") == {"Bob lives in Oslo"}
    pending = loop.run(s.consent.requests(ns, ConsentStatus.PENDING))
    assert [(r.person, r.value) for r in pending] == [("alice", "Alice lives in Madrid")]


def _renamed(record: dict[str, object], renames: dict[str, str]) -> dict[str, object]:
    text = json.dumps(record)
    for old, new in renames.items():
        text = text.replace(f'"{old}"', f'"{new}"')
    moved: dict[str, object] = json.loads(text)
    return moved


@pytest.mark.parametrize("field", ["city", None])
def test_supersession_detection_proposes_a_field_change(
    loop: LoopThread, runtime: Runtime, ns: str, field: str | None
) -> None:
    """The scan and a consolidation run, as the workers run them: the update they detect
    supersedes a plain fact (the control), but only proposes a change to a person field."""
    from thoughtgraph.features.consolidation.jobs import run_consolidation
    from thoughtgraph.features.contradictions.jobs import scan_thoughts

    s = runtime.services
    older = loop.run(
        s.thoughts.contribute(
            data(ns, "Ana: I live in Lisbon with my sister.", category=field, about="ana")
        )
    ).thought
    newer = loop.run(
        s.thoughts.contribute(data(ns, "Ana: I now live in Porto with my sister."))
    ).thought
    scanned = loop.run(scan_thoughts(runtime, ns, [older.id, newer.id]))
    assert scanned.contradictions_found == 1
    run = loop.run(s.consolidation.request(ns, dry_run=False, trigger="test"))
    loop.run(run_consolidation(runtime, ns, run.id, dry_run=False))
    after = stored(loop, runtime, ns, older.id)
    assert after is not None
    pending = loop.run(s.consent.requests(ns, ConsentStatus.PENDING))
    if field is None:
        assert after.superseded_by == newer.id and pending == []
    else:
        assert after.is_current
        assert [(r.person, r.value, r.replaces_ids) for r in pending] == [
            ("ana", newer.content, (older.id,))
        ]
