"""The pure rules of procedural memory: derived hints, the shapes the parsers read, and
which shapes group into patterns (no store)."""

from __future__ import annotations

import pytest

from thoughtgraph.domain.code_shapes import FunctionShape, group_shapes
from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.procedures import (
    MAX_HINT_CHARS,
    UnparseableCodeError,
    WorkflowStep,
    step_head,
    wants_procedures,
    workflow_hint,
    workflow_spec,
)
from thoughtgraph.features.procedures.ecmascript_shapes import (
    javascript_shapes,
    tsx_shapes,
    typescript_shapes,
)
from thoughtgraph.features.procedures.python_shapes import python_shapes

HANDLER_PY = """
@api.put("/items/<id>")
async def update_item(id):
    try:
        body = ItemModel.model_validate(await request.get_json())
    except (ValidationError, KeyError):
        return jsonify({"error": "bad"}), 422
    return jsonify({"data": body, "id": id}), 200
"""
HANDLER_JS = """
app.put('/items/:id', async (req, res) => {
  try {
    const body = Item.safeParse(req.body);
    res.status(200).json({ data: body, id: req.params.id });
  } catch (e) {
    res.sendStatus(422);
  }
});
"""

HANDLER_TS = """
type Params = { id: string };
app.put('/items/:id', async (req: Request<Params>, res: Response): Promise<void> => {
  try {
    const body = Item.safeParse(req.body) as Parsed<Item>;
    res.status(200).json({ data: body!, id: req.params.id });
  } catch (e: unknown) {
    res.sendStatus(422);
  }
});
"""
COMPONENT_TSX = """
export const Row = ({ item }: { item: Item }): JSX.Element => <li>{item.name}</li>;
"""


def test_step_heads_and_hints() -> None:
    assert step_head("Run the tests: pnpm test --coverage") == "run the tests"
    assert step_head("Build (docker) the image") == "build"
    assert step_head("Deploy - staging first") == "deploy"
    assert step_head("verify the five smoke checks") == "verify the five"
    steps = [WorkflowStep(t) for t in ("test", "build", "stage", "verify", "prod")]
    assert workflow_hint("Deploy", steps) == "deploy: test→build→stage→verify→prod"
    long = workflow_hint("x", [WorkflowStep(f"step number {n}") for n in range(60)])
    assert len(long) <= MAX_HINT_CHARS and long.endswith("…")
    spec = workflow_spec("  deploy   now ", steps, None)
    assert spec.trigger == "deploy now" and spec.hint.startswith("deploy now: ")
    with pytest.raises(InvalidInputError):
        workflow_spec("deploy", [WorkflowStep("  ")], None)


def test_who_asks_for_procedures() -> None:
    assert not wants_procedures(None, None, None)
    assert not wants_procedures("qa", "reviewing", {"profile"})
    assert wants_procedures("Executor", None, None)
    assert wants_procedures(None, "coding", None)
    assert wants_procedures("qa", None, {"procedural"})


def test_both_parsers_read_the_four_facets() -> None:
    (py,) = python_shapes("items.py", HANDLER_PY, field="f")
    assert [(f.slot, f.value) for f in py.facets] == [
        ("route", "@*.put(path)"),
        ("validation", "*.model_validate(input)"),
        ("error_handling", "try/except KeyError|ValidationError → 422"),
        ("response", "jsonify({data, id}), 200"),
    ]
    (js,) = javascript_shapes("items.js", HANDLER_JS, field="f")
    assert [(f.slot, f.value) for f in js.facets] == [
        ("route", "*.put(path, handler)"),
        ("validation", "*.safeParse(input)"),
        ("error_handling", "try/catch → 422"),
        ("response", "status.json({data, id}), 200"),
    ]


def test_typescript_reads_as_javascript_and_tsx_by_its_extension() -> None:
    (js,) = javascript_shapes("items.js", HANDLER_JS, field="f")
    (ts,) = typescript_shapes("items.ts", HANDLER_TS, field="f")
    assert ts.language == "typescript" and ts.facets == js.facets
    (row,) = tsx_shapes("Row.tsx", COMPONENT_TSX, field="f")
    assert row.name == "Row" and row.facets == ()
    # JSX is TSX only (a `.ts` file may use `<T>x` casts instead); bad types do not parse.
    for read, path, code in (
        (typescript_shapes, "Row.ts", COMPONENT_TSX),
        (typescript_shapes, "a.ts", "let total: = 1;"),
        (tsx_shapes, "b.tsx", "const a = <div>;"),
    ):
        with pytest.raises(UnparseableCodeError, match=f"{path} is not valid TypeScript"):
            read(path, code, field="files[0].content")


def test_groups_need_two_places_and_three_facets() -> None:
    (py,) = python_shapes("a.py", HANDLER_PY, field="f")
    twin = FunctionShape("b.py", py.language, "other", 3, py.facets)
    thin = FunctionShape("c.py", py.language, "thin", 1, py.facets[:2])
    thin_twin = FunctionShape("d.py", py.language, "thin2", 1, py.facets[:2])
    assert group_shapes([py]) == []
    assert group_shapes([thin, thin_twin]) == []
    (group,) = group_shapes([py, twin, thin, thin_twin])
    assert (
        group.files == ("a.py", "b.py")
        and group.hint == "endpoint: put→model_validate→try/except→jsonify"
    )
    assert group.pattern_id("ns") == group_shapes([twin, py])[0].pattern_id("ns")
    assert group.pattern_id("ns") != group.pattern_id("other")
