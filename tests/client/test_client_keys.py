"""The client authenticates the way the service expects (``Authorization: Bearer``): with a
key it acts as the key's agent, without one or with a wrong one, or outside the key's
namespaces, the refusal is ThoughtgraphAPIError with the service's code."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.api.keyed_support import users_service
from thoughtgraph.client import ThoughtgraphAPIError, ThoughtgraphClient
from thoughtgraph.client.models import ContributeInput
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.settings import Settings


def test_the_api_key_decides_who_writes_and_where(
    engine_settings: Callable[..., Settings],
    local_embedder: TextEmbedder,
    tmp_path: Path,
    ns: str,
) -> None:
    note = ContributeInput(content="Keys decide the agent.", agent_id="x", agent_name="X")
    with users_service(engine_settings, local_embedder, tmp_path, ns, ["ana"]) as keyed:
        url = keyed.api.base_url
        with ThoughtgraphClient(url, api_key=keyed.texts["ana"], namespace=ns) as tg:
            made = tg.contribute(note)
            assert (made.thought.agent_id, made.thought.agent_name) == ("ana-bot", "Ana Bot")
            with pytest.raises(ThoughtgraphAPIError) as elsewhere:
                tg.thoughts(namespace=f"{ns}-other")
            assert elsewhere.value.code == "FORBIDDEN"
        for key in (None, "tg_not-a-real-key"):
            with ThoughtgraphClient(url, api_key=key, namespace=ns) as anonymous:
                with pytest.raises(ThoughtgraphAPIError) as refused:
                    anonymous.contribute(note)
                assert refused.value.code == "UNAUTHENTICATED", refused.value
