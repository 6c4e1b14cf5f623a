"""`namespaces` over real HTTP, on both engines: the namespaces written to that the caller
may read, sorted. Open local mode and a key for every namespace see them all; a key that
names namespaces sees only those of them that were written to. Other tests write to other
namespaces of the same engine, so only this test's own names are asserted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.api.test_api_keys import Keyed
from tests.support import GraphQLClient, serve_in_thread
from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.domain.access import ALL_NAMESPACES, Role
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings

NAMESPACES = "{ namespaces }"
CONTRIBUTE = "mutation($input: ContributeInput!) { contribute(input: $input) { thought { id } } }"


def contribution(namespace: str) -> dict[str, str]:
    return {
        "content": f"A thought written to {namespace}.",
        "agentId": "lister",
        "agentName": "Lister",
        "namespace": namespace,
    }


def test_open_local_mode_lists_every_namespace_written_to(api: GraphQLClient, ns: str) -> None:
    first, second, unwritten = f"{ns}-a", f"{ns}-b", f"{ns}-never"
    for namespace in (second, first):
        api.data(CONTRIBUTE, input=contribution(namespace))
    listed = api.data(NAMESPACES)["namespaces"]
    assert {first, second} <= set(listed)
    assert unwritten not in listed
    assert listed == sorted(listed)


def test_a_key_lists_only_the_written_namespaces_it_may_read(
    engine_settings: Callable[..., Settings],
    local_embedder: TextEmbedder,
    tmp_path: Path,
    ns: str,
) -> None:
    first, second, unwritten = f"{ns}-a", f"{ns}-b", f"{ns}-never"
    keys = KeyFile(tmp_path / "keys.json")
    texts = {}
    for name, role, namespaces in (
        ("admin", Role.ADMIN, [ALL_NAMESPACES]),
        ("reader", Role.READER, [first, unwritten]),
    ):
        _, texts[name] = keys.create(
            name=name, namespaces=namespaces, agent_id=f"{name}-bot", agent_name=name, role=role
        )
    settings = engine_settings(embedder=EmbedderKind.LOCAL, keys_file=keys.path)
    with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
        keyed = Keyed(GraphQLClient(base_url), keys, texts, {})
        try:
            for namespace in (first, second):
                written = keyed.body(CONTRIBUTE, texts["admin"], input=contribution(namespace))
                assert not written.get("errors"), written
            seen = {name: keyed.body(NAMESPACES, texts[name]) for name in texts}
        finally:
            keyed.api.close()

    assert not seen["admin"].get("errors"), seen["admin"]
    everything = seen["admin"]["data"]["namespaces"]
    assert {first, second} <= set(everything)
    assert unwritten not in everything
    assert everything == sorted(everything)
    # The reader's key names `first` and a namespace nothing was written to: only `first`.
    assert seen["reader"] == {"data": {"namespaces": [first]}}
