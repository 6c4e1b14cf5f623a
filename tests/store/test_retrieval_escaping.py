"""Full-text escaping: any user text becomes a safe query on both engines (fuzzed with
hypothesis against the real FalkorDB and Neo4j full-text indexes)."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.retrieval_support import SetClock, Writer, search_service
from tests.support import LoopThread, repos
from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.models import TimeView, new_thought_id, now_ms
from thoughtgraph.domain.retrieval import SearchFilter, UsagePolicy
from thoughtgraph.features.search.repository import RetrievalRepository
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.store.cypher_store import CypherGraphStore
from thoughtgraph.store.fulltext import (
    MAX_TERMS,
    UNION_BUDGET,
    escaped_terms,
    planned_query,
    query_terms,
)
from thoughtgraph.store.params import filter_params
from thoughtgraph.tools.bench.data import BenchThought


def union_query(text: str, engine: str) -> str | None:
    """Any of the words of ``text``: the plan while every word fits the union."""
    return planned_query(dict.fromkeys(escaped_terms(text), 1), engine)


HOSTILE = [
    '"',
    "\\",
    "\\\\\"'",
    "AND OR NOT",
    "monitoring AND",
    "(monitoring",
    "monitoring)",
    "*",
    "?",
    "monitor*",
    "%monitoring%",
    "@content:monitoring",
    "monitoring | pasta",
    "-monitoring",
    "+monitoring -pasta",
    "monitoring~2",
    "content:monitoring",
    "[a TO z]",
    "{a TO z}",
    "monitoring^10",
    "/mon.*/",
    "&& ||",
    "!monitoring",
    "~",
    ":",
    "$param",
    "; MATCH (n) DETACH DELETE n",
    "') YIELD node RETURN node //",
    "日本語のテキスト",
    "Ünïcödé wörds ß",
    "emoji 🙂🚀 monitoring",
    "\u0000\u0001",
    "\u200b\u200d",
    "   ",
    "a",
    "x" * 500,
    "the of and",
]
# Lucene and RediSearch syntax characters: never bare in an escaped query.
SPECIAL = set("+-&|!(){}[]^\"~*?:\\/@%$;,.<>='`")


def test_terms_are_lowercased_words_without_operators() -> None:
    # Lucene's operators are stopwords, left out with the others.
    assert query_terms("Monitoring AND (Pasta) OR NOT monitoring") == ["monitoring", "pasta"]
    assert query_terms("How are they to do it?") == []
    assert union_query("what is it", "neo4j") is None
    assert query_terms("***") == [] and union_query("***", "neo4j") is None
    assert union_query("", "falkordb") is None
    assert len(query_terms(" ".join(f"w{i}" for i in range(100)))) == MAX_TERMS
    assert union_query("x-b c", "neo4j") == "x OR b OR c"
    assert union_query("x-b c", "falkordb") == "x | b | c"


@given(st.text(max_size=200))
def test_escaped_queries_hold_no_bare_syntax(text: str) -> None:
    for engine, joiner in (("neo4j", " OR "), ("falkordb", " | ")):
        query = union_query(text, engine)
        if query is None:
            assert query_terms(text) == []
            continue
        for term in query.split(joiner):
            bare = re.sub(r"\\.", "", term)  # escaped characters are literal
            assert term and not (set(bare) & SPECIAL) and " " not in term


def test_common_words_only_rank_once_a_union_would_read_too_many() -> None:
    common, rare = UNION_BUDGET + 1, 3
    # Within the budget: the union, as before, without the words that match nothing.
    assert planned_query({"a": 5, "nothing": 0, "b": 7}, "falkordb") == "a | b"
    assert planned_query({"a": 5, "nothing": 0, "b": 7}, "neo4j") == "a OR b"
    assert planned_query({"nothing": 0}, "falkordb") is None and planned_query({}, "neo4j") is None
    # Past it: the rarest words that fit are required (any of them), the others rank.
    mixed = {"deploy": common, "canary": rare, "blue": UNION_BUDGET - rare}
    assert planned_query(mixed, "falkordb") == "(canary | blue) ~deploy"
    assert planned_query(mixed, "neo4j") == "+(canary OR blue) deploy"
    # Every word common: all of them, together.
    assert planned_query({"deploy": common, "release": common}, "falkordb") == "deploy release"
    assert planned_query({"deploy": common, "release": common}, "neo4j") == "+deploy +release"


def test_a_search_plans_for_the_candidates_it_takes() -> None:
    # A budget of 100 (the full-text candidates a search takes): the speaker's name,
    # in most of a chat log, only ranks what the rarer words bring, all of their matches.
    counts = {"jon": 280, "like": 20, "destress": 1}
    assert planned_query(counts, "falkordb", budget=100) == "(destress | like) ~jon"
    assert planned_query(counts, "falkordb") == "jon | like | destress"
    # When not even the rarest word fits, the plan is UNION_BUDGET's.
    assert planned_query({"jon": 280, "gina": 258}, "neo4j", budget=100) == "jon OR gina"


@pytest.fixture
def crowded(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, ns: str
) -> dict[str, set[str]]:
    """Two common words (each in more thoughts than UNION_BUDGET, most of them repeating
    it, so a union would rank those first), a few thoughts with both, a rare word."""
    vector = local_embedder.embed_query("deploy")
    contents = (
        ["deploy deploy deploy"] * (UNION_BUDGET + 1)
        + ["release release release"] * (UNION_BUDGET + 1)
        + ["deploy then release after the review of the staging environment"] * 4
        + ["canary deploy"] * 3
    )
    rows = [
        BenchThought(new_thought_id(), text, "agent-1", "Agent", (), now_ms(), vector)
        for text in contents
    ]
    loop.run(repos(store).thoughts.bulk_create_originals(ns, rows), 120)
    return {
        "both": {r.id for r in rows if "deploy" in r.content and "release" in r.content},
        "canary": {r.id for r in rows if "canary" in r.content},
    }


def test_common_words_rank_what_rarer_words_match_on_the_engine(
    loop: LoopThread,
    store: CypherGraphStore,
    ns: str,
    local_embedder: TextEmbedder,
    crowded: dict[str, set[str]],
) -> None:
    probe = list(local_embedder.embed_query("deploy"))
    # "canary" is rare: it alone selects; "deploy" (common) only ranks.
    assert set(_text_ids(loop, store, ns, "canary deploy", probe)) == crowded["canary"]
    # Both common: thoughts with both, although single-word ones repeat theirs.
    assert set(_text_ids(loop, store, ns, "deploy release", probe)) == crowded["both"]
    # A word that matches nothing leaves the plan to the others.
    assert set(_text_ids(loop, store, ns, "zzyzx canary", probe)) == crowded["canary"]


@pytest.fixture
def seeded(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, ns: str
) -> tuple[str, list[float]]:
    writer = Writer(loop, store, local_embedder, ns)
    thought = writer.thought("the monitoring uses roles only", created_at_ms=now_ms())
    writer.thought("pasta recipes", created_at_ms=now_ms())
    return thought.id, writer.embed("monitoring")


def _text_ids(
    loop: LoopThread, store: CypherGraphStore, ns: str, text: str, vector: list[float]
) -> list[str]:
    params = filter_params(SearchFilter(), None, UsagePolicy())
    rows = loop.run(
        RetrievalRepository(store).text_candidates(
            ns, text, vector, 10, TimeView(now_ms=now_ms()), params, narrows=False
        )
    )
    return [row.thought.id for row in rows]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_text_is_a_plain_query_on_the_engine(
    loop: LoopThread,
    store: CypherGraphStore,
    ns: str,
    seeded: tuple[str, list[float]],
    local_embedder: TextEmbedder,
    text: str,
) -> None:
    target, vector = seeded
    found = _text_ids(loop, store, ns, text, vector)
    terms = query_terms(text)
    if "pasta" not in terms:  # the other thought ("pasta recipes") only when asked
        assert set(found) <= {target}
    if "monitoring" in terms:
        assert target in found
    # The whole search path too; a blank query or control characters are refused with
    # INVALID_INPUT before any engine sees them.
    service = search_service(store, local_embedder, SetClock(now_ms()))
    try:
        loop.run(service.search(ns, text))
    except InvalidInputError:
        assert not text.strip() or any(ord(ch) < 32 for ch in text)


@pytest.mark.parametrize("text", ["mon*", "rec*", "%monitorinf%", "monitorinf~1", "monit?ring"])
def test_wildcards_and_fuzzy_operators_are_literal(
    loop: LoopThread, store: CypherGraphStore, ns: str, seeded: tuple[str, list[float]], text: str
) -> None:
    _, vector = seeded
    assert _text_ids(loop, store, ns, text, vector) == []


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=12),
            st.sampled_from(["monitoring", "AND", "OR", "NOT", '"', "\\", "*", "|", "@", "%"]),
        ),
        max_size=8,
    )
)
def test_fuzzed_text_never_breaks_the_engine(
    loop: LoopThread,
    store: CypherGraphStore,
    ns: str,
    seeded: tuple[str, list[float]],
    parts: list[str],
) -> None:
    target, vector = seeded
    text = " ".join(parts)
    found = _text_ids(loop, store, ns, text, vector)
    assert set(found) <= {target}
    if "monitoring" in query_terms(text):
        assert target in found
