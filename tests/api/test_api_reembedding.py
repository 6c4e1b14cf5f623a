"""The vector spaces over GraphQL, on both engines (real HTTP): `vectorSpaces` names the
active embedder; `reembed` on a service that runs no worker is refused (INVALID_STATE) and
changes nothing. The re-embed itself: tests/features/reembedding."""

from __future__ import annotations

from tests.support import GraphQLClient

SPACES = "{ vectorSpaces { active { slot embedder dimension } next { slot } retiredSlot } }"
REEMBED = 'mutation { reembed(embedder: "hash", dimension: 24) { active { slot } } }'


def test_vector_spaces_and_a_reembed_without_a_worker(api: GraphQLClient) -> None:
    before = api.data(SPACES)["vectorSpaces"]
    # What the store was built with (on the session's Neo4j: the first test's embedder).
    assert before["active"]["slot"] == 0 and before["active"]["embedder"]
    assert before["active"]["dimension"] == 384
    assert before["next"] is None and before["retiredSlot"] is None
    assert api.error_codes(REEMBED) == ["INVALID_STATE"]
    assert api.data(SPACES)["vectorSpaces"] == before
