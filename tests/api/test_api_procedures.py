"""Workflows and code patterns over GraphQL on real HTTP, on both engines: recorded (a
workflow refined), extracted from the shipped code base, listed and expanded by id; out of
the default context and in a coding agent's as hints; bad input refused with its code,
nothing written; the extraction weighed by its files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from graphql import parse

from tests.api.test_api_keys import codes
from tests.support import GraphQLClient
from thoughtgraph.api.graphql.cost import measure_operation
from thoughtgraph.api.graphql.schema import build_schema
from thoughtgraph.settings import Settings

CODEBASE = Path(__file__).parents[1] / "fixtures" / "codebase"
PROCEDURE_FIELDS = """
  id kind trigger hint steps { text detail } template { slot value } files
  thought { id type kind category content sources { id } superseded }
"""
RECORD_WORKFLOW = f"""mutation($input: RecordWorkflowInput!) {{
  recordWorkflow(input: $input) {{ {PROCEDURE_FIELDS} }} }}"""
FROM_EPISODE = """mutation($input: RecordWorkflowFromEpisodeInput!) {
  recordWorkflowFromEpisode(input: $input) { id } }"""
RECORD_PATTERN = f"""mutation($input: RecordPatternInput!) {{
  recordPattern(input: $input) {{ {PROCEDURE_FIELDS} }} }}"""
EXTRACT = f"""mutation($ns: String!, $files: [SourceFileInput!]!) {{
  extractPatterns(namespace: $ns, files: $files, agentId: "indexer", agentName: "Indexer") {{
    created files functions patterns {{ {PROCEDURE_FIELDS} }} }} }}"""
PROCEDURES = f"""query($ns: String!, $kind: ThoughtKind!, $retired: Boolean!) {{
  procedures(namespace: $ns, kind: $kind, includeRetired: $retired) {{ {PROCEDURE_FIELDS} }}
}}"""
PROCEDURE = f"""query($ns: String!, $id: ID!) {{
  procedure(namespace: $ns, id: $id) {{ {PROCEDURE_FIELDS} }} }}"""
CONTEXT = """query($ns: String!, $signals: ContextSignalsInput) {
  assembleContext(namespace: $ns, budget: 4000, signals: $signals) { text ids } }"""
REVISION = """query($ns: String!) { changes(namespace: $ns) { revision } }"""
STEPS = [
    {"text": "test", "detail": "pnpm test --coverage"},
    {"text": "build", "detail": "docker build -t app:$SHA ."},
    {"text": "stage"},
    {"text": "verify"},
    {"text": "prod"},
]


def files() -> list[dict[str, str]]:
    return [
        {"path": str(path.relative_to(CODEBASE)), "content": path.read_text()}
        for path in sorted(CODEBASE.rglob("*"))
        if path.suffix in {".py", ".js", ".ts", ".tsx"}
    ]


def workflow_input(ns: str, **fields: Any) -> dict[str, Any]:
    return {
        "namespace": ns,
        "agentId": "planner-1",
        "agentName": "Planner",
        "trigger": "deploy",
        "steps": STEPS,
        **fields,
    }


def revision(api: GraphQLClient, ns: str) -> int:
    return int(api.data(REVISION, ns=ns)["changes"]["revision"])


def test_workflows_round_trip_with_lineage(api: GraphQLClient, ns: str) -> None:
    first = api.data(RECORD_WORKFLOW, input=workflow_input(ns))["recordWorkflow"]
    assert first["kind"] == "WORKFLOW" and first["hint"] == "deploy: test→build→stage→verify→prod"
    assert first["steps"][0] == {"text": "test", "detail": "pnpm test --coverage"}
    assert first["thought"]["category"] == "procedural" and first["template"] == []
    refined = api.data(
        RECORD_WORKFLOW,
        input=workflow_input(
            ns,
            steps=[*STEPS[:3], {"text": "canary", "detail": "5% for 10 minutes"}, *STEPS[3:]],
            hint="deploy: test→build→stage→canary→verify→prod",
            refines=first["id"],
            reason="canaries caught two bad releases",
        ),
    )["recordWorkflow"]
    assert refined["thought"]["type"] == "REFINEMENT"
    assert refined["thought"]["sources"] == [{"id": first["id"]}]
    listed = api.data(PROCEDURES, ns=ns, kind="WORKFLOW", retired=False)["procedures"]
    assert [p["id"] for p in listed] == [refined["id"]]
    old = api.data(PROCEDURE, ns=ns, id=first["id"])["procedure"]
    assert old["thought"]["superseded"] is True and old["steps"] == first["steps"]


def test_extracted_patterns_are_hints_for_a_coding_agent_only(api: GraphQLClient, ns: str) -> None:
    found = api.data(EXTRACT, ns=ns, files=files())["extractPatterns"]
    assert (found["created"], found["files"]) == (3, 9)
    hints = {p["hint"]: p for p in found["patterns"]}
    assert set(hints) == {
        "endpoint: post→load→try/except→jsonify",
        "endpoint: post→validate→try/catch→json",
        "endpoint: put→parse→try/catch→json",
    }
    assert hints["endpoint: post→validate→try/catch→json"]["files"] == [
        "routes/orders.js",
        "routes/users.js",
    ]
    assert hints["endpoint: put→parse→try/catch→json"]["files"] == [
        "server/invoices.ts",
        "server/payments.ts",
    ]
    ids = {p["id"] for p in found["patterns"]}
    api.data(RECORD_WORKFLOW, input=workflow_input(ns))
    api.data(
        """mutation($ns: String!) { contribute(input: {namespace: $ns, agentId: "a",
        agentName: "A", content: "Releases are cut from the main branch."}) { thought { id } } }""",
        ns=ns,
    )
    default = api.data(CONTEXT, ns=ns)["assembleContext"]
    assert "Releases are cut" in default["text"]
    assert not ids & set(default["ids"]) and "deploy: test→build" not in default["text"]
    coding = api.data(CONTEXT, ns=ns, signals={"activity": "coding"})["assembleContext"]
    assert ids <= set(coding["ids"]) and "deploy: test→build→stage→verify→prod" in coding["text"]
    pattern_id = next(iter(ids))
    assert f'procedure id "{pattern_id}"' in coding["text"]
    expanded = api.data(PROCEDURE, ns=ns, id=pattern_id)["procedure"]
    assert [t["slot"] for t in expanded["template"]] == [
        "route",
        "validation",
        "error_handling",
        "response",
    ]


def test_bad_input_is_refused_with_a_code_and_writes_nothing(api: GraphQLClient, ns: str) -> None:
    api.data(RECORD_WORKFLOW, input=workflow_input(ns))
    before = revision(api, ns)
    broken = [*files(), {"path": "api/broken.py", "content": "def handler(:\n    pass\n"}]
    cases: list[tuple[str, str, dict[str, Any]]] = [
        ("VALIDATION_ERROR", RECORD_WORKFLOW, {"input": workflow_input(ns, steps=[])}),
        (
            "VALIDATION_ERROR",
            RECORD_PATTERN,
            {
                "input": {
                    "namespace": ns,
                    "agentId": "a",
                    "agentName": "A",
                    "trigger": "endpoint",
                    "template": [],
                }
            },
        ),
        (
            "LLM_NOT_CONFIGURED",
            FROM_EPISODE,
            {"input": {"namespace": ns, "agentId": "a", "agentName": "A", "episodeId": "e-1"}},
        ),
        ("UNPARSEABLE_CODE", EXTRACT, {"ns": ns, "files": broken}),
        ("UNSUPPORTED_LANGUAGE", EXTRACT, {"ns": ns, "files": [{"path": "a.rb", "content": ""}]}),
        (
            "INPUT_TOO_LARGE",
            EXTRACT,
            {"ns": ns, "files": [{"path": "big.js", "content": "x = 1;\n" * 40_000}]},
        ),
    ]
    for code, document, variables in cases:
        body = api.execute(document, **variables)
        assert codes(body) == [code], body
    assert revision(api, ns) == before


def test_the_extraction_is_weighed_by_its_files(api: GraphQLClient, ns: str) -> None:
    """Each file weighs 20 (fifty: past the heavy-operation threshold, under the cost
    cap); sixty are refused by their count before any is parsed."""
    schema = build_schema(Settings())
    small = [{"path": f"m{n}.py", "content": "def f():\n    return 1\n"} for n in range(50)]
    for count in (1, 10, 50):
        measured = measure_operation(
            schema._schema, parse(EXTRACT), None, {"ns": ns, "files": small[:count]}
        )
        assert measured is not None and measured.cost >= 20 * count
    found = api.data(EXTRACT, ns=ns, files=small)["extractPatterns"]
    assert (found["files"], found["created"]) == (50, 0)
    too_many = [*small, *({"path": f"n{n}.py", "content": ""} for n in range(10))]
    assert codes(api.execute(EXTRACT, ns=ns, files=too_many)) == ["INPUT_TOO_LARGE"]
