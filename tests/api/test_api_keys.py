"""API keys bound to namespaces, roles and an agent, over real HTTP on both engines; the
`thoughtgraph keys` commands; open local mode and its limits; request hygiene (Host header,
CORS, GraphiQL and introspection)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    Undefined,
)

from tests.api.test_api_lineage import CONTRIBUTE, SEARCH, agent
from tests.processes.test_serve_process import THOUGHTGRAPH, service_env
from tests.support import GraphQLClient, free_port, serve_in_thread
from thoughtgraph.api.graphql.schema import build_schema
from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.domain.access import Role
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings

HISTORY = """
query($id: ID!, $ns: String!) {
  history(thoughtId: $id, namespace: $ns) { actorId actorName keyId }
}"""
INTROSPECTION = "{ __schema { queryType { name } } }"


@dataclass
class Keyed:
    api: GraphQLClient
    keys: KeyFile
    texts: dict[str, str]  # role name -> key text
    ids: dict[str, str]

    @property
    def http(self) -> httpx.Client:
        return self.api.http

    def post(self, document: str, key: str | None = None, **variables: Any) -> httpx.Response:
        headers = {"authorization": f"Bearer {key}"} if key is not None else {}
        return self.api.post(document, headers=headers, **variables)

    def body(self, document: str, key: str | None = None, **variables: Any) -> dict[str, Any]:
        result: dict[str, Any] = self.post(document, key, **variables).json()
        return result


def codes(body: dict[str, Any]) -> list[str]:
    return [str((e.get("extensions") or {}).get("code")) for e in body.get("errors") or []]


@pytest.fixture
def keyed(
    engine_settings: Callable[..., Settings],
    local_embedder: TextEmbedder,
    tmp_path: Path,
    ns: str,
) -> Iterator[Keyed]:
    keys = KeyFile(tmp_path / "keys.json")
    texts, ids = {}, {}
    for role in Role:
        key, text = keys.create(
            name=f"{role.value} of {ns}",
            namespaces=[ns],
            agent_id=f"{role.value}-bot",
            agent_name=f"{role.value.title()} Bot",
            role=role,
        )
        texts[role.value], ids[role.value] = text, key.key_id
    settings = engine_settings(embedder=EmbedderKind.LOCAL, keys_file=keys.path)
    with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
        api = GraphQLClient(base_url)
        try:
            yield Keyed(api, keys, texts, ids)
        finally:
            api.close()


def test_a_request_without_a_valid_key_is_unauthenticated(keyed: Keyed, ns: str) -> None:
    for key in (None, "not-a-key", "tgk_000000000000_" + "x" * 43):
        response = keyed.post(SEARCH, key, query="anything", namespace=ns)
        assert response.status_code == 401
        assert codes(response.json()) == ["UNAUTHENTICATED"]
    # X-API-Key works as well as a bearer token.
    response = keyed.http.post(
        "/graphql",
        json={"query": "{ changes { revision } }", "variables": {}},
        headers={"x-api-key": keyed.texts["admin"]},
    )
    assert response.status_code == 200


def test_a_reader_reads_its_namespace_only_and_writes_nothing(keyed: Keyed, ns: str) -> None:
    reader = keyed.texts["reader"]
    assert not keyed.body(SEARCH, reader, query="anything", namespace=ns).get("errors")
    other = keyed.body(SEARCH, reader, query="anything", namespace=ns + "-other")
    assert codes(other) == ["FORBIDDEN"]
    refused = keyed.body(CONTRIBUTE, reader, input=agent(ns, "a reader tries to write"))
    assert codes(refused) == ["FORBIDDEN"]
    revision = keyed.body(
        "query($ns: String!) { changes(namespace: $ns) { revision } }", reader, ns=ns
    )
    assert revision["data"]["changes"]["revision"] == 0


def test_a_writer_writes_as_its_agent_and_the_change_log_names_the_key(
    keyed: Keyed, ns: str
) -> None:
    writer = keyed.texts["writer"]
    body = keyed.body(CONTRIBUTE, writer, input=agent(ns, "written through a key"))
    thought = body["data"]["contribute"]["thought"]
    # The input claimed agent "qa"; the key's agent is who wrote it.
    assert (thought["agentId"], thought["agentName"]) == ("writer-bot", "Writer Bot")
    history = keyed.body(HISTORY, writer, id=thought["id"], ns=ns)["data"]["history"]
    assert history == [
        {"actorId": "writer-bot", "actorName": "Writer Bot", "keyId": keyed.ids["writer"]}
    ]
    elsewhere = keyed.body(CONTRIBUTE, writer, input=agent(ns + "-other", "not mine"))
    assert codes(elsewhere) == ["FORBIDDEN"]


def test_a_revoked_key_stops_working_at_once(keyed: Keyed, ns: str) -> None:
    writer = keyed.texts["writer"]
    assert keyed.post(SEARCH, writer, query="x", namespace=ns).status_code == 200
    done = subprocess.run(
        [*THOUGHTGRAPH, "keys", "revoke", keyed.ids["writer"]],
        env=service_env(keyed.keys.path.parent, 0) | {"TG_KEYS_FILE": str(keyed.keys.path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert keyed.post(SEARCH, writer, query="x", namespace=ns).status_code == 401
    assert keyed.post(SEARCH, keyed.texts["reader"], query="x", namespace=ns).status_code == 200


def test_graphiql_and_introspection_are_off_once_keys_are_required(keyed: Keyed) -> None:
    admin = keyed.texts["admin"]
    page = keyed.http.get(
        "/graphql", headers={"accept": "text/html", "authorization": f"Bearer {admin}"}
    )
    assert page.status_code == 404
    assert set(codes(keyed.body(INTROSPECTION, admin))) == {"FORBIDDEN"}


def test_the_host_header_is_checked_and_cors_is_off(keyed: Keyed) -> None:
    rebound = keyed.http.get("/healthz", headers={"host": "attacker.example"})
    assert rebound.status_code == 400
    preflight = keyed.http.options(
        "/graphql",
        headers={"origin": "https://elsewhere.example", "access-control-request-method": "POST"},
    )
    assert "access-control-allow-origin" not in preflight.headers


def test_configured_cors_origins_and_graphiql_are_honoured(
    tmp_path: Path, local_embedder: TextEmbedder
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        embedder=EmbedderKind.LOCAL,
        cors_origins="https://app.example",
        graphiql=True,
        require_keys=True,
    )
    with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
        preflight = httpx.options(
            f"{base_url}/graphql",
            headers={"origin": "https://app.example", "access-control-request-method": "POST"},
        )
        assert preflight.headers["access-control-allow-origin"] == "https://app.example"
        # Keys required and none exists: every request is refused, GraphiQL too.
        refused = httpx.post(f"{base_url}/graphql", json={"query": "{ changes { revision } }"})
        assert refused.status_code == 401


# --- the commands -------------------------------------------------------------------------


def keys_command(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = service_env(tmp_path / "data", 0) | {"TG_KEYS_FILE": str(tmp_path / "keys.json")}
    return subprocess.run(
        [*THOUGHTGRAPH, "keys", *args], env=env, capture_output=True, text=True, timeout=60
    )


def test_keys_are_created_shown_once_stored_hashed_and_listed_without_secrets(
    tmp_path: Path,
) -> None:
    created = keys_command(
        tmp_path, "create", "--name", "ci bot", "--namespace", "team-a", "--namespace",
        "team-b", "--agent-id", "ci-bot", "--role", "reader",
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    text = created.stdout.strip().splitlines()[-1]
    assert text.startswith("tgk_")
    stored = (tmp_path / "keys.json").read_text()
    assert text.split("_", 2)[2] not in stored  # only the hash is kept
    assert oct((tmp_path / "keys.json").stat().st_mode & 0o777) == "0o600"
    listed = keys_command(tmp_path, "list")
    [entry] = [json.loads(line) for line in listed.stdout.splitlines()]
    assert entry["namespaces"] == ["team-a", "team-b"]
    assert entry["role"] == "reader" and entry["revoked_at"] is None
    assert "secret" not in listed.stdout and text not in listed.stdout
    bad = keys_command(
        tmp_path, "create", "--name", "x", "--namespace", "bad ns", "--agent-id", "a"
    )
    assert bad.returncode == 2 and "[VALIDATION_ERROR]" in bad.stderr


def test_an_open_service_refuses_to_listen_beyond_loopback(tmp_path: Path) -> None:
    env = service_env(tmp_path / "data", free_port())
    done = subprocess.run(
        [*THOUGHTGRAPH, "serve", "--host", "0.0.0.0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "refusing to listen on 0.0.0.0 without API keys" in done.stderr
    assert sys.executable  # the same interpreter ran it


# --- every root field: the services check the key's scope -----------------------------------


def _value(type_: Any, foreign: str) -> str:
    """A valid GraphQL literal of ``type_`` (input objects with their required fields and
    any namespace field, which addresses ``foreign``)."""
    while isinstance(type_, GraphQLNonNull):
        type_ = type_.of_type
    if isinstance(type_, GraphQLList):
        return f"[{_value(type_.of_type, foreign)}]"
    if isinstance(type_, GraphQLEnumType):
        return str(next(iter(type_.values)))
    if isinstance(type_, GraphQLInputObjectType):
        fields = [
            f"{name}: {_literal(name, field.type, foreign)}"
            for name, field in type_.fields.items()
            if name == "namespace" or _required(field.type, field.default_value)
        ]
        return "{" + ", ".join(fields) + "}"
    assert isinstance(type_, GraphQLScalarType), type_
    literals = {"Int": "1", "Float": "0.5", "Boolean": "true", "DateTime": '"2025-01-01T00:00:00Z"'}
    return literals.get(type_.name, '"x1"')


def _required(type_: Any, default: Any) -> bool:
    return isinstance(type_, GraphQLNonNull) and default is Undefined


def _literal(name: str, type_: Any, foreign: str) -> str:
    return json.dumps(foreign) if name == "namespace" else _value(type_, foreign)


def _operations(foreign: str) -> list[tuple[str, str, str]]:
    """(root type, field, document) for every root field, addressing ``foreign``."""
    schema = build_schema(Settings())._schema
    found = []
    for kind, root in (("query", schema.query_type), ("mutation", schema.mutation_type)):
        assert root is not None
        for name, field in root.fields.items():
            args = [
                f"{arg}: {_literal(arg, definition.type, foreign)}"
                for arg, definition in field.args.items()
                if arg == "namespace" or _required(definition.type, definition.default_value)
            ]
            result = field.type
            while not isinstance(result, GraphQLObjectType) and hasattr(result, "of_type"):
                result = result.of_type
            selection = " { __typename }" if isinstance(result, GraphQLObjectType) else ""
            call = f"{name}({', '.join(args)})" if args else name
            found.append((kind, name, f"{kind} {{ {call}{selection} }}"))
    return found


# Root fields that take no namespace: they answer with what the key may read instead.
ACROSS_NAMESPACES = {"namespaces"}
# Root fields about the store, not a namespace's contents: any key that may read sees them
# (which embedder the vectors come from, as /healthz shows).
STORE_WIDE = {"vectorSpaces"}


def test_every_root_field_refuses_a_key_of_another_namespace(keyed: Keyed, ns: str) -> None:
    """The services check the key's scope: every root field, asked by an admin key of
    another namespace, is FORBIDDEN, whatever it would have done; a field across
    namespaces leaves the other namespace out."""
    foreign = ns + "-not-mine"
    admin = keyed.texts["admin"]
    written = keyed.body(
        "mutation($input: ContributeInput!) { contribute(input: $input) { thought { id } } }",
        admin,
        input={"namespace": ns, "agentId": "a", "agentName": "A", "content": "Written to."},
    )
    assert "errors" not in written, written
    unchecked = []
    for kind, name, document in _operations(foreign):
        body = keyed.body(document, admin)
        if name in ACROSS_NAMESPACES:
            assert body.get("data") == {name: [ns]}, body  # its own, not the foreign one
            continue
        if name in STORE_WIDE:
            assert "errors" not in body and body["data"][name], body
            continue
        if codes(body) != ["FORBIDDEN"]:
            unchecked.append((kind, name, body))
    assert not unchecked, unchecked
