"""Maintenance judges and changes only claims: questions, greetings, thanks and opinions
are never judged, superseded or merged (on both engines); the Critical tier leaves out a
contradiction the judge was not sure of; the claim detector agrees with a labelled set
written for it (tests/fixtures/claims_labelled.jsonl, not taken from any eval set)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.knowledge_support import contribute
from tests.support import LoopThread
from thoughtgraph.domain.judgement import PairRelation, Verdict
from thoughtgraph.domain.knowledge import ContradictionStatus, pair_fingerprint
from thoughtgraph.domain.language.claims import Kind, is_claim, sentence_kind
from thoughtgraph.domain.language.different_things import about_the_speaker
from thoughtgraph.domain.models import ThoughtFilter, ThoughtType
from thoughtgraph.features.consolidation.jobs import run_consolidation
from thoughtgraph.features.contradictions.jobs import scan_thoughts
from thoughtgraph.runtime import Runtime

LABELLED = Path(__file__).resolve().parents[2] / "fixtures" / "claims_labelled.jsonl"


def _consolidate(loop: LoopThread, runtime: Runtime, ns: str):  # type: ignore[no-untyped-def]
    run = loop.run(runtime.services.consolidation.request(ns, dry_run=False, trigger="test"))
    return loop.run(run_consolidation(runtime, ns, run.id, dry_run=False))


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("How is the billing service doing these days?", Kind.QUESTION),
        ("did you move the billing service to the new port", Kind.QUESTION),
        ("Hi Sam!", Kind.GREETING),
        ("Long time no see.", Kind.GREETING),
        ("Thanks so much, Ana!", Kind.ACKNOWLEDGEMENT),
        ("Let's catch up about the migration next week.", Kind.ACKNOWLEDGEMENT),
        ("That cake looks absolutely delicious!", Kind.OPINION),
        ("You're going to be an amazing mentor.", Kind.OPINION),
        ("I'm so proud of you.", Kind.OPINION),
        ("I definitely will!", Kind.ACKNOWLEDGEMENT),
        ("The billing service now listens on port 9443.", Kind.CLAIM),
        ("Guess what, my landlord sold the building to Brightlet.", Kind.CLAIM),
        ("I'm single.", Kind.CLAIM),
        # Proposals and advice are not statements; "we" with a past verb is.
        ("We should try the new climbing gym on Friday!", Kind.ACKNOWLEDGEMENT),
        ("You could ask the registrar for an extension.", Kind.ACKNOWLEDGEMENT),
        ("We moved the standup to 10:30.", Kind.CLAIM),
        # A subject that names nothing in particular is small talk; a noun after it is not.
        ("So much has changed since we last spoke.", Kind.ACKNOWLEDGEMENT),
        ("Things have been hectic at the shop.", Kind.ACKNOWLEDGEMENT),
        ("Everything's great over here.", Kind.ACKNOWLEDGEMENT),
        ("Everything in the archive bucket is encrypted.", Kind.CLAIM),
        ("Lots of volunteers signed up for the food drive.", Kind.CLAIM),
        # "so" or "such" after the verb exclaims, whatever the adjective.
        ("Flamenco is so fierce and precise.", Kind.OPINION),
        ("The harbour walk was such a treat.", Kind.OPINION),
        ("The harbour walk is 4 km long.", Kind.CLAIM),
    ],
)
def test_sentence_kinds(text: str, kind: Kind) -> None:
    assert sentence_kind(text) is kind


def test_a_turn_is_a_claim_when_one_of_its_sentences_is() -> None:
    assert is_claim("Ravi: Thanks! I moved to Leeds in May.")
    assert not is_claim("Ravi: Thanks, Mei! That sounds lovely. How was the trip?")
    assert not is_claim("Mei: Hey Ravi! [shared a photo: a beach at sunset]")


def test_first_person_claims_are_about_their_author() -> None:
    assert about_the_speaker("Ravi: Thanks! I moved to Leeds in May. My sister lives there.")
    assert not about_the_speaker("Ravi: I moved to Leeds. The office is in York.")
    assert not about_the_speaker("The billing service listens on port 8080.")


def test_the_detector_agrees_with_the_labelled_set() -> None:
    rows = [json.loads(line) for line in LABELLED.read_text().splitlines() if line.strip()]
    assert len(rows) >= 50
    kept = [r for r in rows if r["claim"] and is_claim(r["text"])]
    passed = [r["text"] for r in rows if not r["claim"] and is_claim(r["text"])]
    assert len(kept) == sum(r["claim"] for r in rows)  # no fact is lost
    assert len(passed) <= 2, passed  # chit-chat passed as a claim: at most 2 of 35


def test_only_the_changed_fact_is_judged_and_superseded(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    """Chit-chat about the same subject, similar enough to reach the judge, is neither
    judged nor superseded; the real change is, as before."""
    chatter = [
        contribute(loop, runtime, ns, "Sam: How is the billing service on port 8080 doing?"),
        contribute(loop, runtime, ns, "Ana: Hi Sam! Good to see you, billing service buddy!"),
        contribute(loop, runtime, ns, "Sam: Wow, the billing service on port 9443 looks great!"),
    ]
    older = contribute(loop, runtime, ns, "Ana: The billing service listens on port 8080.")
    newer = contribute(loop, runtime, ns, "Ana: The billing service now listens on port 9443.")
    scanned = loop.run(scan_thoughts(runtime, ns, [*chatter, older, newer]))
    assert scanned.pairs_judged == 1
    assert scanned.contradictions_found == 1
    (found,) = loop.run(runtime.services.contradictions.by_status(ns, ContradictionStatus.OPEN, 10))
    assert (found.thought_a_id, found.thought_b_id) == (older, newer)
    _consolidate(loop, runtime, ns)
    stored = loop.run(runtime.repos.thoughts.get_many(ns, [*chatter, older, newer]))
    assert stored[older].superseded_by == newer
    assert all(stored[t].is_current for t in [*chatter, newer])


def test_another_author_does_not_update_what_someone_said_of_themselves(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    from thoughtgraph.features.thoughts.service import ThoughtInput

    def said_by(agent: str, content: str) -> str:
        data = ThoughtInput(content=content, agent_id=agent, agent_name=agent, namespace=ns)
        return loop.run(runtime.services.thoughts.contribute(data)).thought.id

    mine = said_by("ravi", "I live in Leeds with two flatmates.")
    theirs = said_by("mei", "I now live in York with two flatmates.")
    scanned = loop.run(scan_thoughts(runtime, ns, [mine, theirs]))
    assert scanned.pairs_judged == 0


def test_maintenance_never_supersedes_chit_chat(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    from thoughtgraph.domain.changes import Actor

    hello = contribute(loop, runtime, ns, "Sam: Hi Ana! How are you?")
    thanks = contribute(loop, runtime, ns, "Sam: Thanks, Ana! That means a lot.")
    supersession = runtime.services.supersession
    loop.run(
        supersession.supersede(
            ns, thanks, hello, reason="topic summary", actor=Actor.maintenance("topic-summary")
        )
    )
    assert loop.run(runtime.repos.thoughts.get_many(ns, [hello]))[hello].is_current
    person = Actor(id="reviewer", name="Reviewer")  # a person may retire anything
    loop.run(supersession.supersede(ns, thanks, hello, reason="tidy", actor=person))
    assert not loop.run(runtime.repos.thoughts.get_many(ns, [hello]))[hello].is_current


def test_near_duplicate_chit_chat_is_not_merged(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    texts = (
        "Ana: Thanks so much, Sam! That really means a lot to me!",
        "Ana: Thanks so much, Sam! That really means a lot!",
    )
    vectors = loop.run(runtime.embedder.async_embed_documents(list(texts)))
    similarity = sum(a * b for a, b in zip(vectors[0], vectors[1], strict=True))
    assert similarity >= runtime.settings.dedupe_similarity  # a near-duplicate by vector
    ids = [contribute(loop, runtime, ns, text) for text in texts]
    run = _consolidate(loop, runtime, ns)
    assert run.counts.deduped == 0
    stored = loop.run(runtime.repos.thoughts.get_many(ns, ids))
    assert all(t.is_current for t in stored.values())
    merges = loop.run(
        runtime.repos.thoughts.page(ns, ThoughtFilter(type=ThoughtType.CONSOLIDATION), None, 10)
    )
    assert merges.thoughts == ()


def test_the_critical_tier_leaves_out_a_low_confidence_contradiction(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    threshold = runtime.settings.context_contradiction_min_confidence
    assert 0.0 < threshold <= 1.0
    a = contribute(loop, runtime, ns, "The release train leaves on Tuesdays.")
    b = contribute(loop, runtime, ns, "The release train leaves on Thursdays.")
    c = contribute(loop, runtime, ns, "The staging database lives in eu-west-1.")
    d = contribute(loop, runtime, ns, "The staging database lives in us-east-2.")
    now = runtime.clock.now_ms()
    repo = runtime.repos.contradictions
    for older, newer, confidence in ((a, b, threshold - 0.05), (c, d, threshold)):
        pid = pair_fingerprint(ns, older, newer)
        verdict = Verdict(pid, PairRelation.CONFLICT, confidence, "test", "rules")
        assert loop.run(repo.record(ns, pid, older, newer, verdict, at_ms=now))
    context = loop.run(runtime.services.context.assemble(ns, budget=2000))
    critical = [i for i in context.packing.items if i.candidate.source == "contradiction"]
    shown = {key for i in critical for key in i.candidate.covers}
    assert c in shown and d in shown
    assert a not in shown and b not in shown
