"""Property-based fuzzing over real HTTP, on both engines: generated hostile strings go
through every string argument of every operation. Each answer is a success or a coded
error a caller can act on (never INTERNAL_ERROR, and never a store or embedder failure,
which would mean the input reached them); an error writes nothing; the engine serves on.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.api.test_api_lineage import contribute, revision
from tests.support import GraphQLClient

# Codes that describe the caller's input or document; anything else is a defect here.
CALLER_CODES = {
    "VALIDATION_ERROR",
    "THOUGHT_NOT_FOUND",
    "MUTUAL_EXCLUSION",
    "MIN_CONSOLIDATION",
    "GRAPHQL_VALIDATION_FAILED",
    "GRAPHQL_PARSE_FAILED",
    "BAD_REQUEST",
    "REQUEST_TOO_LARGE",
}
WRITE = "{ thought { id } revision }"
OPERATIONS: dict[str, str] = {
    "contribute": f"mutation($input: ContributeInput!) {{ contribute(input: $input) {WRITE} }}",
    "refine": f"mutation($input: RefineInput!) {{ refine(input: $input) {WRITE} }}",
    "consolidate": f"mutation($input: ConsolidateInput!) {{ consolidate(input: $input) {WRITE} }}",
    "thought": "query($id: ID!, $ns: String!) { thought(id: $id, namespace: $ns) { id } }",
    "thoughts": (
        "query($ns: String!, $after: String, $f: ThoughtFilterInput) "
        "{ thoughts(namespace: $ns, after: $after, filter: $f) { nodes { id } } }"
    ),
    "search": "query($q: String!, $ns: String!) { search(query: $q, namespace: $ns) { id } }",
    "lineage": "query($id: ID!, $ns: String!) { lineage(id: $id, namespace: $ns) { truncated } }",
    "searchChanges": (
        "query($q: String!, $ns: String!) { searchChanges(query: $q, namespace: $ns) { reason } }"
    ),
    "history": (
        "query($id: ID!, $ns: String!) { history(thoughtId: $id, namespace: $ns) { revision } }"
    ),
    "changes": "query($ns: String!) { changes(namespace: $ns) { revision } }",
}
THOUGHT_FIELDS = ("content", "agentId", "agentName", "namespace", "context", "sessionId")
# (operation, path to the string the fuzzer replaces inside the variables)
CASES: list[tuple[str, tuple[str | int, ...]]] = [
    *(("contribute", ("input", field)) for field in (*THOUGHT_FIELDS, "reason")),
    ("contribute", ("input", "tags", 0)),
    ("contribute", ("input", "refines")),
    ("contribute", ("input", "consolidates", 0)),
    *(("refine", ("input", field)) for field in (*THOUGHT_FIELDS, "reason", "sourceId")),
    ("consolidate", ("input", "sourceIds", 1)),
    ("consolidate", ("input", "content")),
    ("thought", ("id",)),
    ("thought", ("ns",)),
    ("thoughts", ("ns",)),
    ("thoughts", ("after",)),
    ("thoughts", ("f", "tag")),
    ("thoughts", ("f", "agentId")),
    ("search", ("q",)),
    ("search", ("ns",)),
    ("lineage", ("id",)),
    ("lineage", ("ns",)),
    ("searchChanges", ("q",)),
    ("history", ("id",)),
    ("changes", ("ns",)),
]
SPECIALS = [
    "",
    " ",
    "nl\n",
    "\x00",
    "a\x00b",
    "\ud800",
    "x\udfff",
    "\uffff",
    "\x1b[31m",
    "'",
    '"',
    "\\",
    "}) MATCH (n) DETACH DELETE n //",
    "' OR 1=1 --",
    "$namespace",
    "{{ vector($embedding) }}",
    "__NAMESPACE_LABEL__",
    "\u202egnp.exe",
    "😀" * 500,
    "00000000-0000-0000-0000-000000000000",
    "default",
    "a" * 100_000,
]
hostile = st.one_of(
    st.sampled_from(SPECIALS),
    st.text(st.characters(exclude_categories=()), max_size=40),  # surrogates included
    st.text(max_size=3).map(lambda unit: unit * 5_000),
)


def variables_for(operation: str, ns: str, a: str, b: str) -> dict[str, Any]:
    thought = {"content": "fuzzed", "agentId": "fuzz", "agentName": "Fuzz", "namespace": ns}
    every: dict[str, dict[str, Any]] = {
        "contribute": {"input": {**thought, "tags": ["t"], "refines": None, "consolidates": None}},
        "refine": {"input": {**thought, "sourceId": a, "reason": "why"}},
        "consolidate": {"input": {**thought, "sourceIds": [a, b]}},
        "thought": {"id": a, "ns": ns},
        "thoughts": {"ns": ns, "after": None, "f": {"tag": "t", "agentId": "fuzz"}},
        "search": {"q": "what was fuzzed", "ns": ns},
        "lineage": {"id": a, "ns": ns},
        "searchChanges": {"q": "why", "ns": ns},
        "history": {"id": a, "ns": ns},
        "changes": {"ns": ns},
    }
    return every[operation]


def replaced(variables: dict[str, Any], path: tuple[str | int, ...], value: str) -> dict[str, Any]:
    result: dict[str, Any] = copy.deepcopy(variables)
    target: Any = result
    for depth, key in enumerate(path[:-1]):
        if target[key] is None:  # an absent list the fuzzed element goes into
            target[key] = [] if isinstance(path[depth + 1], int) else {}
        target = target[key]
    last = path[-1]
    if isinstance(last, int):
        target.extend(["00000000-0000-4000-8000-000000000000"] * (last + 1 - len(target)))
    target[last] = value
    return result


@pytest.mark.slow
@pytest.mark.parametrize(("operation", "path"), CASES, ids=lambda v: str(v))
def test_hostile_strings_get_coded_answers_and_write_nothing(
    api: GraphQLClient, ns: str, operation: str, path: tuple[str | int, ...]
) -> None:
    a = contribute(api, ns, "fuzz source a")["thought"]["id"]
    b = contribute(api, ns, "fuzz source b")["thought"]["id"]
    base = variables_for(operation, ns, a, b)

    # The values known to have hurt an engine always run; hypothesis adds random ones.
    @settings(
        max_examples=12,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(value=hostile)
    @example(value="\x00")
    @example(value="x\ud800")
    @example(value="nl\n")
    @example(value="")
    @example(value="}) MATCH (n) DETACH DELETE n //")
    @example(value="a" * 100_000)
    def one(value: str) -> None:
        before = revision(api, ns)
        response = api.post(OPERATIONS[operation], **replaced(base, path, value))
        status, body = response.status_code, response.json()
        errors = body.get("errors") or []
        assert status == 200 or 400 <= status < 500, (status, body)
        codes = {(error.get("extensions") or {}).get("code") for error in errors}
        assert codes <= CALLER_CODES, (value[:80], body)
        if errors:
            assert revision(api, ns) == before, f"an error wrote to {ns}: {value[:80]!r}"

    one()
    assert api.http.get("/readyz").status_code == 200
    assert contribute(api, ns, "still writable")["revision"] == revision(api, ns)
