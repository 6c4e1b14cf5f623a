"""No sensitive field changes without the person's approval, whatever happens: random
sequences of every write path (contributions by three keys, refine, consolidate,
supersede by a caller and by maintenance, contradiction resolution, merges, expiry,
approvals and rejections by each key) on both engines. After every step Alice's city is
exactly what it was, unless the step was Alice approving a pending change, which makes
it that change's value."""

from __future__ import annotations

import uuid

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.features.consent.test_consent_gate import data, key
from tests.knowledge_support import advance_days
from tests.support import LoopThread
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.consent import ConsentDecision, ConsentStatus, normalised_value
from thoughtgraph.domain.errors import ThoughtgraphError
from thoughtgraph.domain.judgement import PairRelation, Verdict
from thoughtgraph.domain.knowledge import Resolution, pair_fingerprint
from thoughtgraph.domain.scopes import Scope
from thoughtgraph.runtime import Runtime

CITIES = ("Porto", "Rome", "Oslo", "Lisbon")
KEYS = ("alice", "bob", "team")
OPS = (
    "contribute",
    "refine",
    "consolidate",
    "supersede",
    "maintenance_supersede",
    "resolve",
    "maintenance_resolve",
    "merge",
    "expire",
    "approve",
    "reject",
)
steps = st.lists(
    st.tuples(st.sampled_from(OPS), st.sampled_from(KEYS), st.sampled_from(CITIES)),
    min_size=3,
    max_size=10,
)


def city(loop: LoopThread, runtime: Runtime, ns: str) -> set[str]:
    """Alice's city: the values current (the same value written twice is one value)."""
    found = loop.run(runtime.repos.consent.field_values(ns, [("alice", "city")]))
    return {normalised_value(t.content) for t in found[("alice", "city")]}


async def step(runtime: Runtime, ns: str, op: str, who: str, place: str) -> str | None:
    """Run one step; the value Alice approved, if the step was that."""
    s = runtime.services
    caller = key(ns, None if who == "team" else who)
    values = await runtime.repos.consent.field_values(ns, [("alice", "city")])
    current = values[("alice", "city")]
    target = current[0] if current else None
    plain = (
        await s.thoughts.contribute(
            data(ns, f"Alice moved to {place} ({uuid.uuid4().hex[:4]})"), caller=caller
        )
    ).thought
    maintenance = Actor.maintenance("topic-summary")
    change = data(ns, f"Alice lives in {place}", category="city", about="alice")
    if op == "contribute":
        await s.thoughts.contribute(change, caller=caller)
    elif op == "refine" and target:
        await s.thoughts.refine(change, target.id, caller=caller)
    elif op == "consolidate" and target:
        await s.thoughts.consolidate(change, [target.id, plain.id], caller=caller)
    elif op == "supersede" and target:
        actor = Actor(id=who, name=who)
        await s.supersession.supersede(
            ns, plain.id, target.id, reason="moved", actor=actor, caller=caller
        )
    elif op == "maintenance_supersede" and target:
        await s.supersession.supersede(ns, plain.id, target.id, reason="moved", actor=maintenance)
    elif op in ("resolve", "maintenance_resolve") and target:
        cid = pair_fingerprint(ns, target.id, plain.id)
        verdict = Verdict(cid, PairRelation.UPDATE, 0.9, "moved", "rules")
        await runtime.repos.contradictions.record(ns, cid, target.id, plain.id, verdict, at_ms=1)
        if op == "resolve":
            await s.contradictions.resolve(
                ns, cid, Resolution.B_WINS, actor=Actor(id=who, name=who), caller=caller
            )
        else:
            found = await s.contradictions.get(ns, cid)
            assert found is not None
            await s.contradictions.resolve_open(found, Resolution.B_WINS, actor=maintenance)
    elif op == "merge" and len(current) > 1:
        await s.merging.merge(ns, current)
    elif op == "expire":
        advance_days(runtime, 8)
        await s.consent.expire_due(ns)
    elif op in ("approve", "reject"):
        pending = await s.consent.requests(ns, ConsentStatus.PENDING)
        if pending:
            decision = ConsentDecision.APPROVE if op == "approve" else ConsentDecision.REJECT
            decided = await s.consent.decide(ns, pending[0].id, decision, caller=caller)
            if decided.status is ConsentStatus.APPROVED:
                return decided.value
    return None


@settings(
    max_examples=12,
    deadline=None,
    phases=[Phase.generate],  # no shrinking: a failure prints its steps
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plan=steps)
def test_only_the_person_changes_a_sensitive_field(
    loop: LoopThread, runtime: Runtime, plan: list[tuple[str, str, str]]
) -> None:
    ns = f"consent-{uuid.uuid4().hex[:10]}"
    alice = key(ns, "alice")
    first = data(ns, "Alice lives in Lisbon", category="city", scope=Scope.PRIVATE)
    loop.run(runtime.services.thoughts.contribute(first, caller=alice))
    before = city(loop, runtime, ns)
    for op, who, place in plan:
        try:
            approved = loop.run(step(runtime, ns, op, who, place))
        except ThoughtgraphError:  # refused (CONSENT_REQUIRED, FORBIDDEN, NOT_FOUND, ...)
            approved = None
        after = city(loop, runtime, ns)
        if approved is None:
            assert after == before, (op, who, place)
        else:
            assert who == "alice" and after == {normalised_value(approved)}, (op, who, place)
        before = after
