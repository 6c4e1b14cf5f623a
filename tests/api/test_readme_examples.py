"""The GraphiQL examples in README.md run as written against the live service."""

from __future__ import annotations

from pathlib import Path

from tests.support import GraphQLClient

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_operations() -> list[str]:
    block = README.read_text().split("```graphql", 1)[1].split("```", 1)[0]
    operations: list[str] = []
    current: list[str] = []
    depth = 0
    for line in block.splitlines():
        if not line.strip() and depth == 0:
            continue
        current.append(line)
        depth += line.count("{") - line.count("}")
        if depth == 0:
            operations.append("\n".join(current))
            current = []
    return operations


def test_every_readme_example_runs(api: GraphQLClient) -> None:
    operations = readme_operations()
    assert len(operations) >= 8
    first = api.data(operations[0])["contribute"]["thought"]["id"]
    second = api.data(operations[0].replace("by status and role", "by their heartbeat"))
    second_id = second["contribute"]["thought"]["id"]
    for operation in operations[1:]:
        document = (
            operation.replace("<id1>", first).replace("<id2>", second_id).replace("<id>", first)
        )
        data = api.data(document)
        assert all(value is not None for value in data.values()), (document, data)
