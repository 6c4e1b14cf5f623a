"""Every Python example of docs/clients.md runs as written against the live service (its
URL and namespaces swapped for the test's): the typed client, the LangGraph store in a
compiled graph and the LangChain history under RunnableWithMessageHistory."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from tests.support import GraphQLClient

PAGE = Path(__file__).resolve().parents[2] / "docs" / "clients.md"


def examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


def test_the_page_has_an_example_per_client() -> None:
    found = examples()
    assert len(found) == 4
    assert "ThoughtgraphClient(" in found[0] and "AsyncThoughtgraphClient(" in found[1]
    assert "compile(store=store)" in found[2] and "RunnableWithMessageHistory(" in found[3]


@pytest.mark.parametrize("index", range(4))
def test_each_example_runs(api: GraphQLClient, ns: str, index: int, tmp_path: Path) -> None:
    source = examples()[index].replace('"http://127.0.0.1:8000"', repr(api.base_url))
    source, swapped = re.subn(r'namespace="([a-z-]+-example)"', rf'namespace="\1-{ns}"', source)
    assert swapped >= 1  # each example writes to a namespace of its own
    script = tmp_path / f"example_{index}.py"
    script.write_text(source, encoding="utf-8")
    runpy.run_path(str(script), run_name="__main__")
