"""Workflows and code patterns on both engines, through the service a request reaches:
recorded with their structure and lineage (a refined workflow, a superseded pattern),
extracted from the code base in tests/fixtures/codebase (the repeated handler shapes, not
the noise), kept out of the default context and given to an executor or a coding agent as
hints, and bad input refused with its code and nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.knowledge_support import make_runtime
from tests.support import LoopThread
from thoughtgraph.domain.access import Principal, Role
from thoughtgraph.domain.changes import Actor
from thoughtgraph.domain.context.model import Signals
from thoughtgraph.domain.errors import InvalidInputError, ThoughtgraphError
from thoughtgraph.domain.models import ThoughtKind, ThoughtType
from thoughtgraph.domain.procedures import TemplateSlot, WorkflowStep
from thoughtgraph.domain.retrieval import SearchFilter
from thoughtgraph.features.procedures.extraction import MAX_EXTRACT_FILES, SourceFile
from thoughtgraph.features.procedures.service import Authoring
from thoughtgraph.features.thoughts.inputs import ThoughtInput
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.runtime import Runtime
from thoughtgraph.store.cypher_store import CypherGraphStore

CODEBASE = Path(__file__).parents[2] / "fixtures" / "codebase"
DEPLOY = [
    WorkflowStep("test", "pnpm test --coverage"),
    WorkflowStep("build", "docker build -t app:$SHA ."),
    WorkflowStep("stage"),
    WorkflowStep("verify", "smoke tests against staging"),
    WorkflowStep("prod"),
]


def author(ns: str, reason: str | None = None) -> Authoring:
    return Authoring(namespace=ns, agent_id="agent-1", agent_name="Agent", reason=reason)


def codebase() -> list[SourceFile]:
    return [
        SourceFile(path=str(path.relative_to(CODEBASE)), content=path.read_text())
        for path in sorted(CODEBASE.rglob("*"))
        if path.suffix in {".py", ".js", ".ts", ".tsx"}
    ]


def revision(loop: LoopThread, runtime: Runtime, ns: str) -> int:
    return loop.run(runtime.repos.changes.revision(ns))


def test_a_workflow_round_trips_and_a_refinement_replaces_it(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    service = runtime.services.procedures
    first = loop.run(service.record_workflow(author(ns), "deploy", DEPLOY))
    assert first.spec.hint == "deploy: test→build→stage→verify→prod"
    assert first.thought.kind is ThoughtKind.WORKFLOW and first.thought.category == "procedural"
    assert first.thought.content.splitlines()[0] == first.spec.hint
    stored = loop.run(service.get(ns, first.thought.id))
    assert stored is not None and stored.spec == first.spec
    assert [s.detail for s in stored.spec.steps][:2] == ["pnpm test --coverage", DEPLOY[1].detail]

    steps = [*DEPLOY[:3], WorkflowStep("Run the smoke tests: make smoke"), DEPLOY[4]]
    refined = loop.run(
        service.record_workflow(
            author(ns, reason="smoke tests are a make target now"),
            "deploy",
            steps,
            refines=first.thought.id,
        )
    )
    assert refined.thought.type is ThoughtType.REFINEMENT
    assert refined.thought.source_ids == (first.thought.id,)
    assert refined.spec.hint == "deploy: test→build→stage→run the smoke→prod"
    listed = loop.run(service.listing(ns, ThoughtKind.WORKFLOW))
    assert [p.thought.id for p in listed] == [refined.thought.id]
    everything = loop.run(service.listing(ns, ThoughtKind.WORKFLOW, include_retired=True))
    assert {p.thought.id for p in everything} == {first.thought.id, refined.thought.id}
    lineage = loop.run(runtime.services.lineage.lineage(ns, refined.thought.id))
    assert first.thought.id in {node.thought_id for node in lineage.chain}


def test_a_pattern_is_superseded_through_the_usual_path(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    service = runtime.services.procedures
    template = [TemplateSlot("route", "@app.post(path)"), TemplateSlot("response", "jsonify")]
    old = loop.run(service.record_pattern(author(ns), "new endpoint", template, files=["a.py"]))
    assert old.spec.hint == "new endpoint: @app.post→jsonify"
    assert old.spec.files == ("a.py",) and old.spec.template == tuple(template)
    newer_template = [*template[:1], TemplateSlot("response", "json envelope {data, error}")]
    new = loop.run(
        service.record_pattern(
            author(ns), "new endpoint", newer_template, hint="endpoint: route→envelope"
        )
    )
    assert new.spec.hint == "endpoint: route→envelope"
    loop.run(
        runtime.services.supersession.supersede(
            ns,
            new.thought.id,
            old.thought.id,
            reason="envelopes everywhere",
            actor=Actor(id="agent-1", name="Agent"),
        )
    )
    listed = loop.run(service.listing(ns, ThoughtKind.CODE_PATTERN))
    assert [p.thought.id for p in listed] == [new.thought.id]
    retired = loop.run(service.get(ns, old.thought.id))
    assert retired is not None and retired.thought.superseded_by == new.thought.id


def test_extraction_finds_the_repeated_handlers_and_not_the_noise(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    service = runtime.services.procedures
    found = loop.run(service.extract_patterns(author(ns), codebase()))
    assert found.files == 9 and found.created == 3 and found.functions > 10
    by_hint = {p.spec.hint: p for p in found.patterns}
    assert set(by_hint) == {
        "endpoint: post→load→try/except→jsonify",
        "endpoint: post→validate→try/catch→json",
        "endpoint: put→parse→try/catch→json",
    }
    python = by_hint["endpoint: post→load→try/except→jsonify"]
    assert python.spec.trigger == "new python post endpoint"
    assert python.spec.files == ("api/orders.py", "api/users.py")
    assert [(t.slot, t.value) for t in python.spec.template] == [
        ("route", "@*.post(path)"),
        ("validation", "*.load(input)"),
        ("error_handling", "try/except ValidationError → 400"),
        ("response", "jsonify({data}), 201"),
    ]
    javascript = by_hint["endpoint: post→validate→try/catch→json"]
    assert javascript.spec.files == ("routes/orders.js", "routes/users.js")
    assert javascript.thought.kind is ThoughtKind.CODE_PATTERN
    # TypeScript: the same reader, types read past (annotations, generics, `as`, `!`).
    typescript = by_hint["endpoint: put→parse→try/catch→json"]
    assert typescript.spec.trigger == "new typescript put endpoint"
    assert typescript.spec.files == ("server/invoices.ts", "server/payments.ts")
    assert [(t.slot, t.value) for t in typescript.spec.template] == [
        ("route", "*.put(path, handler)"),
        ("validation", "*.parse(input)"),
        ("error_handling", "try/catch → 400"),
        ("response", "json({data, id})"),
    ]
    # Noise: helpers, the one-off handlers, the 422 variant, a React component are in no
    # pattern.
    seen_in = {path for p in found.patterns for path in p.spec.files}
    assert not seen_in & {"util/helpers.py", "lib/format.js", "web/InvoiceList.tsx"}
    assert "422" not in " ".join(t.value for p in found.patterns for t in p.spec.template)
    listed = loop.run(service.listing(ns, ThoughtKind.CODE_PATTERN))
    assert {p.thought.id for p in listed} == {p.thought.id for p in found.patterns}

    before = revision(loop, runtime, ns)
    again = loop.run(service.extract_patterns(author(ns), codebase()))
    assert again.created == 0 and revision(loop, runtime, ns) == before
    assert [p.thought.id for p in again.patterns] == [p.thought.id for p in found.patterns]


def test_procedures_stay_out_of_the_default_context(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    service = runtime.services.procedures
    workflow = loop.run(service.record_workflow(author(ns), "deploy", DEPLOY))
    found = loop.run(service.extract_patterns(author(ns), codebase()))
    fact = loop.run(
        runtime.services.thoughts.contribute(
            ThoughtInput(
                content="The staging cluster runs in Frankfurt.",
                agent_id="agent-1",
                agent_name="Agent",
                namespace=ns,
            )
        )
    ).thought
    ids = {workflow.thought.id, *(p.thought.id for p in found.patterns)}
    context = runtime.services.context

    plain = loop.run(context.assemble(ns, budget=4000))
    assert fact.id in plain.packing.ids and not ids & set(plain.packing.ids)
    asked = loop.run(context.assemble(ns, budget=4000, signals=Signals(query="how do we deploy")))
    assert not ids & set(asked.packing.ids)

    for signals in (Signals(activity="coding"), Signals(agent="executor")):
        given = loop.run(context.assemble(ns, budget=4000, signals=signals))
        assert ids <= set(given.packing.ids), signals
        text = given.packing.text
        hint = "- [workflow] deploy: test→build→stage→verify→prod"
        assert f'{hint} (expand: procedure id "{workflow.thought.id}")' in text
        assert "endpoint: post→load→try/except→jsonify" in text
        assert "pnpm test" not in text  # the hint only; the steps come on demand


def test_bad_input_is_refused_and_writes_nothing(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    service = runtime.services.procedures
    fact = loop.run(
        runtime.services.thoughts.contribute(
            ThoughtInput(
                content="Deploys go out on Tuesdays.", agent_id="a", agent_name="A", namespace=ns
            )
        )
    ).thought
    pattern = loop.run(
        service.record_pattern(author(ns), "new endpoint", [TemplateSlot("route", "post")])
    )
    before = revision(loop, runtime, ns)
    files = codebase()
    cases: list[tuple[str, object]] = [
        ("VALIDATION_ERROR", service.record_workflow(author(ns), "deploy", [])),
        ("VALIDATION_ERROR", service.record_workflow(author(ns), " ", DEPLOY)),
        ("VALIDATION_ERROR", service.record_workflow(author(ns), "deploy", DEPLOY, hint="a\nb")),
        ("VALIDATION_ERROR", service.record_pattern(author(ns), "new endpoint", [])),
        ("VALIDATION_ERROR", service.record_workflow(author(ns), "d", DEPLOY, refines=fact.id)),
        (
            "VALIDATION_ERROR",
            service.record_workflow(author(ns), "d", DEPLOY, refines=pattern.thought.id),
        ),
        (
            "UNPARSEABLE_CODE",
            service.extract_patterns(
                author(ns), [*files, SourceFile("api/broken.py", "def handler(:\n  pass")]
            ),
        ),
        (
            "UNPARSEABLE_CODE",
            service.extract_patterns(
                author(ns), [*files, SourceFile("routes/broken.js", "router.post('/x', (req) => {")]
            ),
        ),
        (
            "UNPARSEABLE_CODE",
            service.extract_patterns(
                author(ns), [*files, SourceFile("server/broken.ts", "const x: = 1;")]
            ),
        ),
        (
            "UNSUPPORTED_LANGUAGE",
            service.extract_patterns(author(ns), [*files, SourceFile("main.go", "package main")]),
        ),
        (
            "INPUT_TOO_LARGE",
            service.extract_patterns(
                author(ns),
                [SourceFile(f"f{n}.py", "x = 1\n") for n in range(MAX_EXTRACT_FILES + 1)],
            ),
        ),
        (
            "INPUT_TOO_LARGE",
            service.extract_patterns(author(ns), [SourceFile("big.py", "x = 1\n" * 40_000)]),
        ),
        ("VALIDATION_ERROR", service.extract_patterns(author(ns), [])),
    ]
    for code, call in cases:
        with pytest.raises(ThoughtgraphError) as raised:
            loop.run(call)  # type: ignore[arg-type]
        assert raised.value.code == code, (code, raised.value.message)
        assert isinstance(raised.value, InvalidInputError)
    assert revision(loop, runtime, ns) == before
    assert loop.run(service.listing(ns, ThoughtKind.WORKFLOW)) == []
    assert [p.thought.id for p in loop.run(service.listing(ns, ThoughtKind.CODE_PATTERN))] == [
        pattern.thought.id
    ]


ALLOWLIST = """
categories:
  custom:
    - name: procedural
      context: rag
allowlists:
  executor: [procedural, tasks]
  stylist: [preferences]
"""


def test_allowlists_decide_who_reads_procedures(
    loop: LoopThread, store: CypherGraphStore, local_embedder: TextEmbedder, tmp_path: Path, ns: str
) -> None:
    policy = tmp_path / "allowlist.yaml"
    policy.write_text(ALLOWLIST)
    runtime = make_runtime(store, local_embedder, tmp_path, allowlist_file=policy)
    try:
        service = runtime.services.procedures
        workflow = loop.run(service.record_workflow(author(ns), "deploy", DEPLOY))

        def key(agent: str) -> Principal:
            return Principal(
                key_id=f"key-{agent}",
                agent_id=agent,
                agent_name=agent,
                role=Role.WRITER,
                namespaces=(ns,),
                agent=agent,
            )

        executor, stylist = key("executor"), key("stylist")
        listed = loop.run(service.listing(ns, ThoughtKind.WORKFLOW, caller=executor))
        assert [p.thought.id for p in listed] == [workflow.thought.id]
        assert loop.run(service.listing(ns, ThoughtKind.WORKFLOW, caller=stylist)) == []
        assert loop.run(service.get(ns, workflow.thought.id, caller=stylist)) is None
        context = runtime.services.context
        given = loop.run(context.assemble(ns, budget=2000, caller=executor))
        assert workflow.thought.id in given.packing.ids
        refused = loop.run(context.assemble(ns, budget=2000, caller=stylist))
        assert workflow.thought.id not in refused.packing.ids
    finally:
        loop.run(runtime.services.close())


def test_search_returns_procedures_only_when_asked(
    loop: LoopThread, runtime: Runtime, ns: str
) -> None:
    workflow = loop.run(runtime.services.procedures.record_workflow(author(ns), "deploy", DEPLOY))
    fact = loop.run(
        runtime.services.thoughts.contribute(
            ThoughtInput(
                content="We deploy the shop to production after staging.",
                agent_id="a",
                agent_name="A",
                namespace=ns,
            )
        )
    ).thought
    search = runtime.services.search
    anyone = Principal.anyone()
    default = loop.run(search.search_for(anyone, ns, "deploy test build stage prod"))
    assert fact.id in {h.thought.id for h in default}
    assert workflow.thought.id not in {h.thought.id for h in default}
    for asked in (
        SearchFilter(kinds=(ThoughtKind.WORKFLOW,)),
        SearchFilter(categories=("procedural",)),
    ):
        hits = loop.run(search.search_for(anyone, ns, "deploy test build", filter=asked))
        assert [h.thought.id for h in hits] == [workflow.thought.id], asked
