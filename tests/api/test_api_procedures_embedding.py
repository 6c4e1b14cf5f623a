"""extractPatterns over real HTTP with a hosted embedder (an OpenAI-compatible server the
test starts), on both engines: every pattern an extraction finds is embedded in one
request, and an extraction that finds them all stored already embeds nothing."""

from __future__ import annotations

from collections.abc import Callable

from tests.api.test_api_procedures import EXTRACT, files
from tests.fakes.openai_server import FakeOpenAIServer, openai_server_fixture
from tests.support import GraphQLClient, serve_in_thread
from thoughtgraph.server import create_app
from thoughtgraph.settings import Settings

# The contract suite's dimension: on Neo4j the session shares one database.
openai_server = openai_server_fixture(dimension=384)


def test_an_extraction_embeds_its_patterns_in_one_request(
    openai_server: FakeOpenAIServer, engine_settings: Callable[..., Settings], ns: str
) -> None:
    settings = engine_settings(**openai_server.embedder_settings())
    with serve_in_thread(create_app(settings)) as base_url:
        api = GraphQLClient(base_url)
        openai_server.reset()
        found = api.data(EXTRACT, ns=ns, files=files())["extractPatterns"]
        batched = [request.json["input"] for request in openai_server.embedding_requests]
        openai_server.reset()
        again = api.data(EXTRACT, ns=ns, files=files())["extractPatterns"]
        api.close()
    assert found["created"] == 3
    contents = [p["thought"]["content"] for p in found["patterns"]]
    assert len(batched) == 1 and sorted(batched[0]) == sorted(contents)
    assert again["created"] == 0 and openai_server.embedding_requests == []
