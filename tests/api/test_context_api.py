"""Context assembly through GraphQL on both engines: over HTTP against the running service
(the `api` fixture), and through the schema over the session's stores where maintenance
(contradiction scans, topics) has to run in-process first.

Token counts are checked against litellm's own count of the returned text, with the
tokenizer the service reports (gpt-4o's o200k_base: no model is configured here)."""

from __future__ import annotations

from typing import Any

import litellm
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.test_api_knowledge import FORGET, RESTORE, SUPERSEDE
from tests.api.test_api_lineage import agent, refine, revision
from tests.knowledge_support import contribute as contribute_in_process
from tests.support import GraphQLClient, LoopThread
from thoughtgraph.domain.context.session_block import TAG
from thoughtgraph.runtime import Runtime

CONTEXT_FIELDS = """
  text tokenCount budget tokenizer revision ids candidates
  tiers { tier name budget items tokens }
  items { key tier source level tokens ids text confidence }
  delta { sinceRevision revision counts { category count } bullets truncated text }
"""
ASSEMBLE = f"""
query($ns: String!, $budget: Int, $signals: ContextSignalsInput, $since: Int) {{
  assembleContext(namespace: $ns, budget: $budget, signals: $signals, sinceRevision: $since) {{
    {CONTEXT_FIELDS}
  }}
}}
"""
PREDICT = """
query($ns: String!, $signals: ContextSignalsInput, $budget: Int) {
  predictContext(namespace: $ns, signals: $signals, budget: $budget) {
    confidence tokenCount tokenizer items { key tier source level confidence ids text }
  }
}
"""
SESSION_BLOCK = """
query($ns: String!, $budget: Int, $signals: ContextSignalsInput) {
  sessionBlock(namespace: $ns, budget: $budget, signals: $signals) {
    text version tokenCount budget revision ids
  }
}
"""
INJECT = """
query($ns: String!, $text: String!, $budget: Int, $signals: ContextSignalsInput) {
  injectSessionBlock(namespace: $ns, text: $text, budget: $budget, signals: $signals) {
    text version replaced changed
  }
}
"""
CHANGES_SINCE = """
query($ns: String!, $rev: Int!) {
  changesSince(namespace: $ns, revision: $rev) { revision events { revision kind subjectId } }
}
"""
CONTRIBUTE = """
mutation($input: ContributeInput!) { contribute(input: $input) { thought { id } } }
"""
TOKENIZER_MODEL = "gpt-4o"  # the default when no model is configured


def litellm_count(text: str) -> int:
    return int(litellm.token_counter(model=TOKENIZER_MODEL, text=text))


def add(api: GraphQLClient, ns: str, content: str, **extra: Any) -> str:
    payload = api.data(CONTRIBUTE, input=agent(ns, content, **extra))["contribute"]
    return str(payload["thought"]["id"])


def assemble(api: GraphQLClient, ns: str, **variables: Any) -> dict[str, Any]:
    result: dict[str, Any] = api.data(ASSEMBLE, ns=ns, **variables)["assembleContext"]
    return result


def by_key(context: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["key"]: item for item in context["items"]}


def assert_well_formed(context: dict[str, Any]) -> None:
    """Exact count within budget, each id once, tiers in order with consistent counts."""
    assert context["tokenCount"] == litellm_count(context["text"])
    assert context["tokenCount"] <= context["budget"]
    shown = [i for item in context["items"] for i in item["ids"]]
    assert len(shown) == len(set(shown)) and set(shown) == set(context["ids"])
    tiers = [item["tier"] for item in context["items"]]
    assert tiers == sorted(tiers)
    for usage in context["tiers"]:
        assert usage["items"] == tiers.count(usage["tier"])
    for item in context["items"]:
        assert item["text"] in context["text"]


def test_tiers_hold_what_the_signals_call_for(api: GraphQLClient, ns: str) -> None:
    decision = add(
        api,
        ns,
        "Invoices in src/billing/invoice.py are rounded half-even, never half-up.",
        kind="DECISION",
    )
    error = add(api, ns, "TypeError: cannot read property 'total' of undefined in invoice totals")
    fix = refine(
        api,
        ns,
        error,
        "The invoice totals TypeError was fixed by loading line items before reading total.",
    )["thought"]["id"]
    match = add(api, ns, "Refunds are issued through the Stripe API within 5 business days.")
    preference = add(
        api,
        ns,
        "Short pull requests with one change each are easier to review.",
        kind="PREFERENCE",
        agentId="ana",
        agentName="Ana",
    )
    workflow = add(
        api,
        ns,
        "Release steps: run the tests, build the image, deploy to staging.",
        kind="PROCEDURE",
    )
    add(api, ns, "The office plants are watered on Mondays.")
    signals = {
        "query": "how are refunds issued to customers?",
        "currentFile": "src/billing/invoice.py",
        "recentErrors": ["TypeError: Cannot read properties of undefined (reading 'total')"],
        "activity": "debugging",
        "agent": "qa",
        "collaborators": ["ana"],
    }
    context = assemble(api, ns, budget=1500, signals=signals)
    assert_well_formed(context)
    items = by_key(context)
    assert (items[decision]["tier"], items[decision]["source"]) == (1, "decision")
    assert items[decision]["level"] == "FULL"
    assert (items[error]["tier"], items[error]["source"]) == (1, "error")
    assert set(items[error]["ids"]) == {error, fix}  # the error with its fix
    assert (items[match]["tier"], items[match]["source"]) == (2, "query")
    assert (items[preference]["tier"], items[preference]["source"]) == (2, "preference")
    assert "Ana prefers" in items[preference]["text"]
    assert (items[workflow]["tier"], items[workflow]["source"]) == (3, "workflow")
    assert "o200k_base" in context["tokenizer"] and "default" in context["tokenizer"]
    assert context["delta"] is None

    # A budget too small for everything keeps tier 1 first, never more than the budget.
    small = assemble(api, ns, budget=60, signals=signals)
    assert_well_formed(small)
    assert small["items"] and small["items"][0]["tier"] == 1


def test_delta_header_after_a_sequence_of_writes(api: GraphQLClient, ns: str) -> None:
    start = revision(api, ns)
    first = add(api, ns, "The cache TTL is 60 seconds.")
    refined = refine(api, ns, first, "The cache TTL is 90 seconds since the CDN change.")
    newer = add(api, ns, "The cache TTL is 120 seconds for every region.")
    api.data(SUPERSEDE, ns=ns, newer=newer, older=refined["thought"]["id"], reason="raised")
    temporary = add(api, ns, "A temporary feature flag disables image resizing.")
    api.data(FORGET, ns=ns, id=temporary)
    api.data(RESTORE, ns=ns, id=temporary)
    now = revision(api, ns)

    signals = {"query": "what is the cache TTL?"}
    context = assemble(api, ns, budget=2000, since=start, signals=signals)
    assert_well_formed(context)
    delta = context["delta"]
    assert (delta["sinceRevision"], delta["revision"]) == (start, now)
    counts = {c["category"]: c["count"] for c in delta["counts"]}
    assert counts == {"superseded": 1, "forgotten": 1, "updated": 1, "restored": 1, "created": 3}
    assert delta["bullets"] == [
        "- ↓superseded: The cache TTL is 90 seconds since the CDN change.",
        "- ⊘forgotten: A temporary feature flag disables image resizing.",
        "- ↑updated: The cache TTL is 90 seconds since the CDN change.",
    ]
    assert context["text"].startswith(f"Memory updates since rev {start}:")
    assert context["text"].startswith(delta["text"])
    # Neither the superseded thought nor the refined one is passed off as current.
    assert newer in context["ids"]
    assert refined["thought"]["id"] not in context["ids"] and first not in context["ids"]

    events = api.data(CHANGES_SINCE, ns=ns, rev=start)["changesSince"]
    assert events["revision"] == now
    assert [e["kind"] for e in events["events"]] == [
        "CREATED",
        "REFINED",
        "CREATED",
        "SUPERSEDED",
        "CREATED",
        "SOFT_DELETED",
        "RESTORED",
    ]
    # Caught up: no header.
    caught_up = assemble(api, ns, since=context["revision"])
    assert caught_up["delta"] is None
    assert not caught_up["text"].startswith("Memory updates")


def test_session_block_is_replaced_never_added_twice(api: GraphQLClient, ns: str) -> None:
    add(api, ns, "Deployments go out through the GitHub Actions pipeline.", kind="PROCEDURE")
    add(api, ns, "Staging runs PostgreSQL 16.")
    block = api.data(SESSION_BLOCK, ns=ns)["sessionBlock"]
    assert block["budget"] == 2000
    assert block["tokenCount"] == litellm_count(block["text"]) <= 2000
    assert block["text"].startswith(f'<{TAG} version="{block["version"]}"')
    assert block["text"].count(f"<{TAG}") == 1

    prompt = "You are the release agent.\n\nAlways answer briefly."
    once = api.data(INJECT, ns=ns, text=prompt)["injectSessionBlock"]
    assert once["replaced"] == 0 and once["changed"]
    assert once["text"].startswith(prompt) and block["text"] in once["text"]
    twice = api.data(INJECT, ns=ns, text=once["text"])["injectSessionBlock"]
    assert twice["text"] == once["text"]
    assert (twice["replaced"], twice["changed"], twice["version"]) == (1, False, block["version"])

    add(api, ns, "Production runs PostgreSQL 16 as well.")
    changed = api.data(INJECT, ns=ns, text=twice["text"])["injectSessionBlock"]
    assert changed["version"] != block["version"] and changed["replaced"] == 1
    assert changed["text"].count(f"<{TAG}") == 1
    assert changed["text"].startswith(prompt)

    tight = api.data(SESSION_BLOCK, ns=ns, budget=80)["sessionBlock"]
    assert tight["tokenCount"] == litellm_count(tight["text"]) <= 80


def test_bad_context_input_is_refused(api: GraphQLClient, ns: str) -> None:
    assert api.error_codes(ASSEMBLE, ns=ns, budget=-1) == ["VALIDATION_ERROR"]
    assert api.error_codes(ASSEMBLE, ns=ns, signals={"agent": "bad agent!"}) == ["VALIDATION_ERROR"]
    assert api.error_codes(ASSEMBLE, ns=ns, signals={"recentErrors": ["x"] * 21}) == [
        "VALIDATION_ERROR"
    ]
    assert api.error_codes(ASSEMBLE, ns="bad namespace") == ["VALIDATION_ERROR"]
    assert api.error_codes(SESSION_BLOCK, ns=ns, budget=3) == ["VALIDATION_ERROR"]
    assert api.error_codes(ASSEMBLE, ns=ns, since=-1) == ["VALIDATION_ERROR"]


SIGNALS = st.fixed_dictionaries(
    {},
    optional={
        "query": st.sampled_from(["cache TTL", "refunds", "how do we deploy?", "東京 🙂"]),
        "currentFile": st.sampled_from(["src/cache/ttl.py", "README.md", "a/b/c.ts"]),
        "branch": st.sampled_from(["feature/cache-ttl", "main", "fix/refund-retry"]),
        "activity": st.sampled_from(["debugging", "onboarding", "coding"]),
        "recentErrors": st.lists(st.sampled_from(["KeyError: 'ttl'", "timeout"]), max_size=2),
        "collaborators": st.lists(st.sampled_from(["ana", "bo", "qa"]), max_size=2),
    },
)


@pytest.fixture(scope="module")
def filled(api: GraphQLClient) -> str:
    """One namespace with a little of everything, for the random-signal checks."""
    import uuid

    ns = f"t-{uuid.uuid4().hex[:12]}"
    kinds = ["FACT", "DECISION", "PREFERENCE", "PROCEDURE", "TASK", "INSIGHT"]
    for n in range(18):
        add(
            api,
            ns,
            f"Note {n}: the cache TTL, refunds and deploys interact in case {n}. " * (1 + n % 3),
            kind=kinds[n % len(kinds)],
            agentId=["qa", "ana", "bo"][n % 3],
            tags=["convention"] if n % 5 == 0 else [],
        )
    return ns


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(budget=st.integers(0, 1200), signals=SIGNALS)
def test_random_budgets_and_signals_stay_within_budget(
    api: GraphQLClient, filled: str, budget: int, signals: dict[str, Any]
) -> None:
    context = assemble(api, filled, budget=budget, signals=signals)
    assert_well_formed(context)
    assert context["budget"] == budget


# --- maintained knowledge (contradictions, topics), through the schema on both engines ---


def test_contradictions_lead_and_topics_index_the_rest(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    from thoughtgraph.api.graphql.request_context import GraphQLContext
    from thoughtgraph.api.graphql.schema import build_schema
    from thoughtgraph.features.consolidation.jobs import run_consolidation
    from thoughtgraph.features.contradictions.jobs import scan_thoughts

    schema = build_schema(runtime.settings)

    def execute(document: str, **variables: Any) -> dict[str, Any]:
        context = GraphQLContext.for_services(runtime.services)
        result = loop.run(
            schema.execute(document, variable_values=variables, context_value=context)
        )
        assert result.errors is None, result.errors
        assert result.data is not None
        return result.data

    def add_here(content: str) -> str:
        return contribute_in_process(loop, runtime, ns, content)

    match = add_here("Refunds are issued through the Stripe API within 5 business days.")
    for content in (
        "Deployments go out through the GitHub Actions pipeline.",
        "Deployments go out through the GitHub Actions pipeline every afternoon.",
        "The billing service retries failed card payments three times.",
    ):
        add_here(content)
    # Consolidation first (it makes the topics; it would also settle the contradiction).
    run = loop.run(runtime.services.consolidation.request(ns, dry_run=False, trigger="test"))
    loop.run(run_consolidation(runtime, ns, run.id, dry_run=False))
    older = add_here("The staging database runs PostgreSQL 14.")
    newer = add_here("The staging database runs PostgreSQL 16.")
    loop.run(scan_thoughts(runtime, ns, [newer]))
    topics = execute("query($ns: String!) { topics(namespace: $ns) { id } }", ns=ns)["topics"]
    assert topics

    signals = {"query": "how are refunds issued?"}
    context = execute(ASSEMBLE, ns=ns, budget=3000, signals=signals)["assembleContext"]
    assert_well_formed(context)
    first = context["items"][0]
    assert (first["tier"], first["source"]) == (1, "contradiction")
    assert {older, newer} <= set(first["ids"])
    assert "PostgreSQL 14" in first["text"] and "PostgreSQL 16" in first["text"]
    items = by_key(context)
    assert (items[match]["tier"], items[match]["source"]) == (2, "query")
    index = [item for item in context["items"] if item["tier"] == 4]
    assert {item["key"] for item in index} == {topic["id"] for topic in topics}
    assert all(item["source"] == "topic_index" for item in index)
    assert "## Ask me about" in context["text"]

    predicted = execute(PREDICT, ns=ns, signals=signals, budget=3000)["predictContext"]
    assert [p["key"] for p in predicted["items"]] == [item["key"] for item in context["items"]]
    assert predicted["items"][0]["confidence"] == pytest.approx(0.95)
    assert all(0.0 <= p["confidence"] <= 1.0 for p in predicted["items"])
    assert 0.0 < predicted["confidence"] <= 1.0
