"""/metrics of a real service over real HTTP, on both engines: what a few operations did
shows in the counters and histograms (read with prometheus_client's own parser)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from tests.fakes.openai_server import FakeOpenAIServer
from tests.observability_support import label_values, scrape, value
from tests.support import GraphQLClient, serve_in_thread
from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.domain.access import Role
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings

CONTRIBUTE = """
mutation($ns: String!, $content: String!) {
  contribute(input: {namespace: $ns, content: $content, agentId: "agent-1",
                     agentName: "Agent"}) { thought { id } }
}"""
SEARCH = """query($ns: String!, $q: String!) {
  search(namespace: $ns, query: $q) { thought { id } similarity } }"""


def test_metrics_count_operations_errors_statements_and_embedding(
    api: GraphQLClient, ns: str
) -> None:
    url = f"{api.base_url}/metrics"
    before = scrape(url)
    for content in ("The billing service retries twice.", "Checkout calls billing."):
        api.data(CONTRIBUTE, ns=ns, content=content)
    api.data(SEARCH, ns=ns, q="billing retries")
    assert api.error_codes("{ nosuchfield }") == ["GRAPHQL_VALIDATION_FAILED"]
    assert api.error_codes(SEARCH, ns="bad namespace!", q="x") == ["VALIDATION_ERROR"]
    after = scrape(url)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    ok = {"type": "mutation", "status": "ok"}
    assert grew("tg_graphql_requests_total", operation="contribute", **ok) == 2
    assert grew("tg_graphql_requests_total", operation="search", status="ok") == 1
    assert grew("tg_graphql_requests_total", operation="search", status="error") == 1
    assert grew("tg_graphql_request_seconds_count", operation="contribute") == 2
    assert grew("tg_graphql_request_seconds_sum", operation="contribute") > 0
    assert grew("tg_graphql_errors_total", code="GRAPHQL_VALIDATION_FAILED") == 1
    assert grew("tg_graphql_errors_total", operation="search", code="VALIDATION_ERROR") == 1
    # The store's one executor: each contribution created its thought with one statement.
    assert grew("tg_engine_statement_seconds_count", statement="thought.create", mode="write") == 2
    assert "thought.create" in label_values(after, "tg_engine_statement_seconds_count", "statement")
    # Two contributions embedded their content; the search embedded its query.
    assert grew("tg_embedder_seconds_count", kind="documents") == 2
    assert grew("tg_embedder_batch_size_sum", kind="documents") == 2
    assert grew("tg_embedder_seconds_count", kind="query") >= 1
    # A bucket count is cumulative: the +Inf bucket holds every observation.
    assert value(after, "tg_engine_statement_seconds_bucket", le="+Inf") == value(
        after, "tg_engine_statement_seconds_count"
    )


def test_metrics_show_how_neo4j_grouped_the_writes(api: GraphQLClient, ns: str) -> None:
    """Neo4j's adapter groups a namespace's waiting writes into one transaction; /metrics
    counts the transactions and the statements they held. The embedded engine groups
    nothing and shows neither."""
    url = f"{api.base_url}/metrics"
    before = scrape(url)
    with ThreadPoolExecutor(max_workers=8) as pool:
        list(
            pool.map(
                lambda i: api.data(CONTRIBUTE, ns=ns, content=f"Writer {i} keeps a note."),
                range(8),
            )
        )
    after = scrape(url)
    names = {name for name, _ in after}
    if api.engine != "neo4j":
        assert not names & {
            "tg_engine_write_transactions_total",
            "tg_engine_write_statements_total",
        }
        return
    statements = value(after, "tg_engine_write_statements_total") - value(
        before, "tg_engine_write_statements_total"
    )
    transactions = value(after, "tg_engine_write_transactions_total") - value(
        before, "tg_engine_write_transactions_total"
    )
    assert statements >= 8  # each contribution's thought.create, and any write behind it
    assert 1 <= transactions <= statements


INGEST = """mutation($ns: String!, $transcript: String!) {
  ingestEpisode(namespace: $ns, transcript: $transcript) { id extractor } }"""
PRICED_MODEL = "openai/gpt-4o-mini"  # in litellm's bundled price list: a cost to count


def test_metrics_count_llm_calls_tokens_and_cost_per_namespace(
    engine_settings: Callable[..., Settings], local_embedder: TextEmbedder, ns: str
) -> None:
    with FakeOpenAIServer() as model:
        settings = engine_settings(
            embedder=EmbedderKind.LOCAL,
            llm_model=PRICED_MODEL,
            llm_api_base=model.base_url,
            llm_api_key="test",
            llm_cache=False,
            llm_retries=0,
        )
        with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
            api = GraphQLClient(base_url, settings.engine)
            try:
                api.data(INGEST, ns=ns, transcript="Alice: the deploy failed.\nBob: cold cache.")
                samples = scrape(f"{base_url}/metrics")
            finally:
                api.close()
        calls = len(model.chat_requests)
    assert calls >= 1
    assert value(samples, "tg_llm_calls_total", namespace=ns, model=PRICED_MODEL) == calls
    assert value(samples, "tg_llm_calls_total", namespace=ns, status="ok") == calls
    assert value(samples, "tg_llm_tokens_total", namespace=ns, kind="prompt") > 0
    assert value(samples, "tg_llm_tokens_total", namespace=ns, kind="completion") > 0
    assert value(samples, "tg_llm_cost_usd_total", namespace=ns) > 0
    assert value(samples, "tg_llm_call_seconds_count", model=PRICED_MODEL) == calls


def test_metrics_need_an_admin_key_once_keys_are_required(
    engine_settings: Callable[..., Settings], local_embedder: TextEmbedder, tmp_path: Path
) -> None:
    keys = KeyFile(tmp_path / "keys.json")
    texts = {
        role: keys.create(
            name=f"{role.value} scraper",
            namespaces=["ops"],
            agent_id="scraper",
            agent_name="Scraper",
            role=role,
        )[1]
        for role in (Role.READER, Role.ADMIN)
    }
    settings = engine_settings(embedder=EmbedderKind.LOCAL, keys_file=keys.path)
    with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
        url = f"{base_url}/metrics"
        refused = httpx.get(url, timeout=30)
        assert refused.status_code == 401
        assert refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        reader = httpx.get(url, headers={"authorization": f"Bearer {texts[Role.READER]}"})
        assert reader.status_code == 403
        assert reader.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN"
        samples = scrape(url, {"authorization": f"Bearer {texts[Role.ADMIN]}"})
    assert any(name.startswith("tg_") for name, _ in samples)
