"""The client covers the live schema: every root field has a sync and an async method whose
parameters are the field's arguments, every document the client sends validates against
the schema, and the generated modules are what scripts/generate_client.py writes today (a
schema change without a regeneration fails here, not in a user's program)."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

from graphql import parse, validate

from tests.client.support import root_fields, schema, snake
from thoughtgraph.client import AsyncThoughtgraphClient, ThoughtgraphClient
from thoughtgraph.client.core import Operation
from thoughtgraph.client.operations import fragments

REPO = Path(__file__).resolve().parents[2]


def operations() -> dict[str, Operation[object]]:
    """Every Operation the client's modules define, by root field."""
    import thoughtgraph.client.client as combined

    found: dict[str, Operation[object]] = {}
    for base in ThoughtgraphClient.__mro__:
        module = sys.modules[base.__module__]
        for value in vars(module).values():
            if isinstance(value, Operation):
                found[value.field] = value
    assert combined.ThoughtgraphClient is ThoughtgraphClient
    return found


def test_every_root_field_has_a_sync_and_an_async_method_with_its_arguments() -> None:
    live = schema()
    assert live.query_type and live.mutation_type
    fields = {**live.query_type.fields, **live.mutation_type.fields}
    missing = []
    for name in root_fields():
        method = snake(name)
        sync = getattr(ThoughtgraphClient, method, None)
        aio = getattr(AsyncThoughtgraphClient, method, None)
        if sync is None or aio is None or not inspect.iscoroutinefunction(aio):
            missing.append(name)
            continue
        expected = [snake(argument) for argument in fields[name].args]
        assert list(inspect.signature(sync).parameters)[1:] == expected, name
        assert list(inspect.signature(aio).parameters)[1:] == expected, name
    assert not missing, f"root fields without a client method: {missing}"
    assert len(root_fields()) >= 50  # the schema was read (50 root fields in issue 23)


def test_every_document_validates_against_the_schema() -> None:
    found = operations()
    assert set(found) == set(root_fields())
    for field, operation in found.items():
        errors = validate(schema(), parse(operation.document))
        assert not errors, (field, errors)
    # Every fragment is spread by some document (none is dead weight).
    spread = " ".join(op.document for op in found.values())
    assert all(f"fragment {name} " in spread for name in fragments.FRAGMENTS)


def test_the_generated_modules_are_up_to_date() -> None:
    generator = REPO / "scripts" / "generate_client.py"
    done = subprocess.run(
        [sys.executable, str(generator), "--check"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
