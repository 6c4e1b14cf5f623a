"""The hardening issue's reproductions, over real HTTP on both engines: each gets a coded
error, writes nothing, and leaves the engine serving."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import pytest

from tests.api.test_api_lineage import CONTRIBUTE, REVISION, agent, contribute, revision
from tests.support import GraphQLClient

NUL, SURROGATE = "\x00", "\ud800"


def healthy(api: GraphQLClient) -> bool:
    return api.http.get("/readyz").status_code == 200


def error(body: dict[str, object]) -> dict[str, object]:
    errors = body.get("errors")
    assert isinstance(errors, list) and errors, body
    first = errors[0]
    assert isinstance(first, dict)
    return first


def test_a_namespace_with_a_trailing_newline_is_refused(api: GraphQLClient) -> None:
    # It crashed the embedded engine (a unique-constrained property holding "nl\n").
    body = api.execute(CONTRIBUTE, input=agent("nl\n", "x"))
    assert error(body)["extensions"] == {"code": "VALIDATION_ERROR", "field": "namespace"}
    assert healthy(api)
    assert revision(api, "nl") == 0


@pytest.mark.parametrize("bad", [NUL, SURROGATE, "\x07", "\uffff"])
@pytest.mark.parametrize("field", ["content", "agentName", "context", "sessionId", "tags"])
def test_characters_no_engine_can_take_are_refused_naming_the_field(
    api: GraphQLClient, ns: str, bad: str, field: str
) -> None:
    value: object = f"a{bad}b"
    if field == "tags":
        value = [f"a{bad}b"]
    payload = {**agent(ns, "clean content"), field: value}
    body = api.execute(CONTRIBUTE, input=payload)
    extensions = error(body)["extensions"]
    assert extensions == {"code": "VALIDATION_ERROR", "field": field}
    assert revision(api, ns) == 0
    assert healthy(api)


@pytest.mark.parametrize("bad", [NUL, SURROGATE])
def test_hostile_search_text_is_refused_before_the_embedder(
    api: GraphQLClient, ns: str, bad: str
) -> None:
    body = api.execute(
        "query($q: String!, $ns: String!) { search(query: $q, namespace: $ns) { id } }",
        q=f"find{bad}me",
        ns=ns,
    )
    assert error(body)["extensions"] == {"code": "VALIDATION_ERROR", "field": "query"}


@pytest.mark.parametrize(
    "cursor",
    [
        "eyJjIjoxZTQwMCwiaSI6IngifQ==",  # {"c":1e400,"i":"x"}: an infinite createdAt
        base64.urlsafe_b64encode(b'{"c": true, "i": "x"}').decode(),
        base64.urlsafe_b64encode(b'{"c": 1, "i": "not-a-uuid"}').decode(),
        base64.urlsafe_b64encode(b"[1, 2]").decode(),
        base64.urlsafe_b64encode(b"\xff\xfe").decode(),
        "%%%",
        "x" * 10_000,
    ],
)
def test_malformed_cursors_are_validation_errors(api: GraphQLClient, ns: str, cursor: str) -> None:
    body = api.execute(
        "query($ns: String!, $after: String) { thoughts(namespace: $ns, after: $after) "
        "{ nodes { id } } }",
        ns=ns,
        after=cursor,
    )
    assert error(body)["extensions"] == {"code": "VALIDATION_ERROR", "field": "after"}


def test_list_filters_are_validated(api: GraphQLClient, ns: str) -> None:
    document = (
        "query($ns: String!, $f: ThoughtFilterInput) { thoughts(namespace: $ns, filter: $f) "
        "{ nodes { id } } }"
    )
    for key, field in (("tag", "filter.tag"), ("agentId", "filter.agentId")):
        body = api.execute(document, ns=ns, f={key: f"x{NUL}"})
        assert error(body)["extensions"] == {"code": "VALIDATION_ERROR", "field": field}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b'{"query": "{ __typename }", "x": "\xff\xfe"}', "not valid UTF-8"),
        (b"123", "must be a JSON object"),
        (b"null", "must be a JSON object"),
        (b'"text"', "must be a JSON object"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b"{not json", "Unable to parse"),
    ],
)
def test_unreadable_bodies_get_a_coded_400(api: GraphQLClient, body: bytes, message: str) -> None:
    response = api.http.post("/graphql", content=body, headers={"content-type": "application/json"})
    assert response.status_code == 400, response.text
    [only] = response.json()["errors"]
    assert only["extensions"] == {"code": "BAD_REQUEST"}
    assert message in only["message"]
    assert healthy(api)


def test_an_oversized_body_is_refused_before_it_is_read(api: GraphQLClient, ns: str) -> None:
    content = "x" * 2_000_000
    payload = json.dumps({"query": CONTRIBUTE, "variables": {"input": agent(ns, content)}})
    response = api.http.post(
        "/graphql", content=payload, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json()["errors"][0]["extensions"] == {"code": "REQUEST_TOO_LARGE"}

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams in
        for _ in range(40):
            yield b"x" * 100_000

    streamed = api.http.post(
        "/graphql", content=chunks(), headers={"content-type": "application/json"}
    )
    assert streamed.status_code == 413
    assert revision(api, ns) == 0


def test_a_clean_write_still_works_after_all_that(api: GraphQLClient, ns: str) -> None:
    written = contribute(api, ns, "still serving", tags=["β", "group-1"], sessionId="s-1")
    assert written["revision"] == 1
    assert api.data(REVISION, namespace=ns)["changes"]["revision"] == 1
