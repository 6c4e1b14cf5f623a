"""A service on the test's engine whose keys act for users: one writer key per user
(agent ``<user>-bot``, named ``<User> Bot``), served in a thread."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.api.test_api_keys import Keyed
from tests.support import GraphQLClient, serve_in_thread
from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.domain.access import Role
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings


@contextmanager
def users_service(
    engine_settings: Callable[..., Settings],
    embedder: TextEmbedder,
    tmp_path: Path,
    ns: str,
    users: Sequence[str],
) -> Iterator[Keyed]:
    keys = KeyFile(tmp_path / "keys.json")
    texts, ids = {}, {}
    for user in users:
        key, text = keys.create(
            name=user,
            namespaces=[ns],
            agent_id=f"{user}-bot",
            agent_name=f"{user.title()} Bot",
            role=Role.WRITER,
            user=user,
        )
        texts[user], ids[user] = text, key.key_id
    settings = engine_settings(embedder=EmbedderKind.LOCAL, keys_file=keys.path)
    with serve_in_thread(create_app(settings, embedder=embedder)) as base_url:
        api = GraphQLClient(base_url)
        try:
            yield Keyed(api, keys, texts, ids)
        finally:
            api.close()


def ok(keyed: Keyed, who: str, document: str, **variables: Any) -> dict[str, Any]:
    """The data of a request by ``who``'s key that must succeed."""
    body = keyed.body(document, keyed.texts[who], **variables)
    assert not body.get("errors"), body
    data: dict[str, Any] = body["data"]
    return data
