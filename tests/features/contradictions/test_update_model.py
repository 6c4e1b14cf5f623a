"""The offline update model judge on fresh pairs (not from the evaluation sets), its
precision guard, and newer-first among near-duplicates through the real engines."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np

from tests.knowledge_support import contribute, make_runtime
from tests.support import LoopThread
from thoughtgraph.domain.judgement import PairToJudge, UsageMeter, Verdict
from thoughtgraph.domain.language.update_model import FEATURES, features, shipped_model
from thoughtgraph.domain.ranking.near_duplicates import near_duplicates
from thoughtgraph.features.contradictions.judge import ModelJudge
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.store.cypher_store import CypherGraphStore


def _pair(older: str, newer: str, embedder: TextEmbedder) -> PairToJudge:
    a, b = (np.asarray(v) for v in embedder.embed_documents([older, newer]))
    sim = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))
    return PairToJudge("p", "o", older, 1, "n", newer, 2, sim)


def _verdict(judge: ModelJudge, older: str, newer: str, embedder: TextEmbedder) -> Verdict:
    (verdict,) = asyncio.run(judge.judge([_pair(older, newer, embedder)], UsageMeter()))
    return verdict


def test_model_is_shipped_and_deterministic() -> None:
    model = shipped_model()
    assert len(model.weights) == len(FEATURES)
    assert 0.5 <= model.threshold < 1.0
    x = features("The lab kettle holds 2 litres.", "The lab kettle now holds 3 litres.", 0.9)
    assert np.array_equal(
        x, features("The lab kettle holds 2 litres.", "The lab kettle now holds 3 litres.", 0.9)
    )


def test_model_judge_flags_a_fresh_change(local_embedder: TextEmbedder) -> None:
    judge = ModelJudge()
    pair = _pair(
        "The robotics club meets in room 12.",
        "The robotics club now meets in room 31.",
        local_embedder,
    )
    (verdict,) = asyncio.run(judge.judge([pair], UsageMeter()))
    assert verdict.contradicts, verdict


def test_model_judge_flags_a_state_said_to_be_over(local_embedder: TextEmbedder) -> None:
    # Written for this test: the newer keeps the older's words and adds few; only the
    # word order says the state ended (docs/design/contradictions.md, "Fourth pass").
    judge = ModelJudge()
    for older, newer in [
        (
            "The east wing is closed for renovation.",
            "The east wing has reopened after the renovation.",
        ),
        ("Priya is on sick leave.", "Priya is back from sick leave and taking calls."),
    ]:
        verdict = _verdict(judge, older, newer, local_embedder)
        assert verdict.contradicts, (older, newer, verdict)
    past = _pair(
        "The east wing is open.",
        "The east wing was closed for renovation last year, and it is open again.",
        local_embedder,
    )
    (verdict,) = asyncio.run(judge.judge([past], UsageMeter()))
    assert not verdict.contradicts, verdict


def test_model_judge_flags_an_older_value_named_as_left_behind(
    local_embedder: TextEmbedder,
) -> None:
    # Written for this test: the newer repeats the older's value, as the one replaced or
    # gone (docs/design/contradictions.md, "Fifth pass").
    judge = ModelJudge()
    for older, newer in [
        ("Tomas coaches the under-12s.", "Lena coaches the under-12s since Tomas retired."),
        ("Invoices are sent with Mailchimp.", "We moved invoice mail from Mailchimp to Postmark."),
    ]:
        verdict = _verdict(judge, older, newer, local_embedder)
        assert verdict.contradicts, (older, newer, verdict)


def test_model_judge_leaves_a_compatible_look_alike(local_embedder: TextEmbedder) -> None:
    judge = ModelJudge()
    for older, newer in [
        ("The robotics club meets in room 12.", "The chess club meets in room 12 as well."),
        ("Priya speaks Spanish.", "Priya also speaks Portuguese."),
    ]:
        verdict = _verdict(judge, older, newer, local_embedder)
        assert not verdict.contradicts, (older, newer, verdict)


def test_model_judge_leaves_chit_chat_between_two_people(local_embedder: TextEmbedder) -> None:
    # Written for this test in the manner of a chat log: two speakers thanking and
    # encouraging each other. The model's evidence (words kept and changed) fires on
    # such pairs; the rules find them about different things, which vetoes a flag.
    judge = ModelJudge()
    for older, newer in [
        (
            "Dana: I'm grateful for our friendship too, Omar. You've always been there for me.",
            "Omar: Thanks, Dana. It's definitely changed me. Some close friends kept checking.",
        ),
    ]:
        verdict = _verdict(judge, older, newer, local_embedder)
        assert not verdict.contradicts, (older, newer, verdict)


def test_a_subject_word_on_one_side_only_does_not_veto_a_change(
    local_embedder: TextEmbedder,
) -> None:
    # Written for this test. A newer statement that names its subject a little
    # differently ("the thermostat setting") still speaks of the same thing; only when
    # each names a subject of its own are the two about different things.
    judge = ModelJudge()
    older = "The greenhouse thermostat is set to 18 degrees."
    newer = "The greenhouse thermostat setting moved to 21 degrees."
    verdict = _verdict(judge, older, newer, local_embedder)
    assert verdict.contradicts, (older, newer, verdict)
    assert "Different subjects" in verdict.explanation  # the rules' reading, no veto
    # An opening interjection names no subject at all: the rules read past it.
    older = "The chess club meets on Tuesdays."
    newer = "Honestly, the chess club meets on Thursdays these days."
    verdict = _verdict(judge, older, newer, local_embedder)
    assert verdict.contradicts, verdict
    assert "Different subjects" not in verdict.explanation, verdict
    apart = _pair(
        "The chess club meets on Tuesdays.", "The drama club meets on Tuesdays.", local_embedder
    )
    (verdict,) = asyncio.run(judge.judge([apart], UsageMeter()))
    assert not verdict.contradicts, verdict


def test_a_duration_up_to_now_is_no_change_cue_for_the_model() -> None:
    # Written for this test: "Five years now" says how long, "now" after the value says
    # that it changed. (A chat turn so opened once passed as an update on the cue alone.)
    cue = FEATURES.index("change_cue")
    older = "Mia: I bake on Sundays."
    lasting = features(older, "Mia: Five years now, and I bake on Saturdays.", 0.8)
    changed = features(older, "Mia: I bake on Saturdays now.", 0.8)
    assert lasting[cue] == 0.0 and changed[cue] == 1.0


def test_greetings_around_a_claim_name_no_subject_of_it(local_embedder: TextEmbedder) -> None:
    # Written for this test in the manner of a chat log. Read whole, the newer turn's
    # greeting ("long time no talk") looks like a subject the older lacks, one side only,
    # which does not veto; read on their claims, the two share no subject at all.
    judge = ModelJudge()
    older = "Sam: Hey Lee! Long time no see! Loads has happened since then!"
    newer = (
        "Sam: Hey Lee, long time no talk! Things have been hectic lately. "
        "The hardest part was that we had to sell the old boat."
    )
    verdict = _verdict(judge, older, newer, local_embedder)
    assert not verdict.contradicts, verdict
    assert verdict.explanation.startswith("their claims are about different things"), verdict


def test_a_text_of_several_claims_is_left_to_the_rules(local_embedder: TextEmbedder) -> None:
    # The model was fitted on single statements; a chat turn of two claims is outside it.
    judge = ModelJudge()
    pair = _pair(
        "Omar: Thanks, Dana. I finished the bakery plan last week. The oven arrives on Monday.",
        "Omar: Hey Dana! The bakery opened in May. We sell bread and cakes now.",
        local_embedder,
    )
    (verdict,) = asyncio.run(judge.judge([pair], UsageMeter()))
    assert not verdict.contradicts, verdict
    assert verdict.explanation.startswith("rules (more than one claim sentence)"), verdict
    # A single statement and its update still reach the model.
    single = _pair(
        "The robotics club meets in room 12.", "It now meets in room 31.", local_embedder
    )
    (verdict,) = asyncio.run(judge.judge([single], UsageMeter()))
    assert not verdict.explanation.startswith("rules (more than one"), verdict


def test_near_duplicates_rule() -> None:
    assert near_duplicates(
        "The garden shed key hangs by the back door.",
        "The garden shed key now hangs by the front door.",
    )
    assert not near_duplicates("The garden shed key hangs by the back door.", "Tea is at four.")


def test_newer_first_among_near_duplicates(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path, ns: str
) -> None:
    runtime = make_runtime(store, local_embedder, tmp_path)
    services = runtime.services
    older = contribute(loop, runtime, ns, "The garden shed key hangs by the back door.")
    newer = contribute(loop, runtime, ns, "The garden shed key hangs by the front door now.")
    contribute(loop, runtime, ns, "The recycling bins go out on Wednesday evenings.")
    hits = loop.run(
        services.search.search(ns, "where does the garden shed key hang by the back door", k=3)
    )
    ids = [hit.thought.id for hit in hits]
    assert ids.index(newer) < ids.index(older), ids


def test_newer_first_among_statements_that_mean_the_same_in_other_words(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path, ns: str
) -> None:
    """Too few shared words to be near-duplicates by their texts; their vectors' cosine
    (0.87 with the local model) is above NEAR_DUPLICATE_COSINE: the newer takes the place
    the older's better score gave it."""
    older_text = "The team standup is at 9:30."
    newer_text = "The team standup is at 10:00 from next week on."
    assert not near_duplicates(older_text, newer_text)
    runtime = make_runtime(store, local_embedder, tmp_path)
    older = contribute(loop, runtime, ns, older_text)
    newer = contribute(loop, runtime, ns, newer_text)
    contribute(loop, runtime, ns, "The recycling bins go out on Wednesday evenings.")
    hits = loop.run(runtime.services.search.search(ns, "is the team standup at 9:30", k=3))
    by_id = {hit.thought.id: hit for hit in hits}
    assert by_id[older].score > by_id[newer].score  # the ranking alone puts the older first
    ids = [hit.thought.id for hit in hits]
    assert ids.index(newer) < ids.index(older), ids
