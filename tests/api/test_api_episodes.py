"""A conversation imported as users expect, through the GraphQL HTTP API on both engines:
``ingestEpisode(turns: ...)`` writes one thought per turn by its speaker, in the session,
valid from the turn's time, in order; a bad turn writes nothing."""

from __future__ import annotations

from typing import Any

from tests.api.test_api_lineage import revision
from tests.support import GraphQLClient
from thoughtgraph.features.episodes.turns import MAX_TURNS, speaker_id

INGEST_TURNS = """
mutation($ns: String!, $turns: [TurnInput!], $sessionId: String, $transcript: String) {
  ingestEpisode(namespace: $ns, turns: $turns, sessionId: $sessionId,
                transcript: $transcript) {
    id title summary narrative extractor thoughtIds
    thoughts(first: 100) { id content agentId agentName sessionId validFrom episodeId }
  }
}
"""
TURNS = [
    {"speaker": "Nora", "text": "I signed up for a pottery class.", "at": "2024-05-01T18:00:00Z"},
    {"speaker": "Omar", "text": "Which studio runs it?", "at": "2024-05-01T18:01:00Z"},
    {
        "speaker": "Nora",
        "text": "The community studio on Elm Street.",
        "at": "2024-05-01T18:02:00Z",
    },
]


def ingest(api: GraphQLClient, ns: str, **variables: Any) -> dict[str, Any]:
    episode: dict[str, Any] = api.data(INGEST_TURNS, ns=ns, **variables)["ingestEpisode"]
    return episode


def test_turns_become_thoughts_by_their_speakers_in_the_session(
    api: GraphQLClient, ns: str
) -> None:
    episode = ingest(api, ns, turns=TURNS, sessionId="s-2024-05-01")
    thoughts = episode["thoughts"]
    assert [t["id"] for t in thoughts] == episode["thoughtIds"]
    assert [t["content"] for t in thoughts] == [
        "Nora: I signed up for a pottery class.",
        "Omar: Which studio runs it?",
        "Nora: The community studio on Elm Street.",
    ]
    assert [t["agentName"] for t in thoughts] == ["Nora", "Omar", "Nora"]
    assert [t["agentId"] for t in thoughts] == [speaker_id(n) for n in ("Nora", "Omar", "Nora")]
    assert thoughts[0]["agentId"] != thoughts[1]["agentId"]
    assert {t["sessionId"] for t in thoughts} == {"s-2024-05-01"}
    assert {t["episodeId"] for t in thoughts} == {episode["id"]}
    assert [t["validFrom"][:16] for t in thoughts] == [
        "2024-05-01T18:00",
        "2024-05-01T18:01",
        "2024-05-01T18:02",
    ]
    assert episode["narrative"].splitlines() == [t["content"] for t in thoughts]
    assert episode["summary"] and episode["extractor"] == "offline"

    before = revision(api, ns)
    again = ingest(api, ns, turns=TURNS, sessionId="s-2024-05-01")
    assert again["id"] == episode["id"] and revision(api, ns) == before  # nothing new


def test_without_a_session_or_times_the_episode_gives_them(api: GraphQLClient, ns: str) -> None:
    turns = [{"speaker": t["speaker"], "text": t["text"]} for t in TURNS]
    episode = ingest(api, ns, turns=turns)
    thoughts = episode["thoughts"]
    assert {t["sessionId"] for t in thoughts} == {episode["id"]}
    assert len({t["validFrom"] for t in thoughts}) == 1  # the episode's time


def test_a_bad_turn_writes_nothing(api: GraphQLClient, ns: str) -> None:
    before = revision(api, ns)
    good = TURNS[0]
    refused: list[tuple[dict[str, Any], str]] = [
        ({"turns": [good, {**good, "text": "   "}]}, "VALIDATION_ERROR"),
        ({"turns": [good, {**good, "speaker": ""}]}, "VALIDATION_ERROR"),
        ({"turns": [good, {**good, "speaker": "Dr: Who"}]}, "VALIDATION_ERROR"),
        ({"turns": [good, {**good, "text": "x" * 10_000}]}, "VALIDATION_ERROR"),
        ({"turns": [good, {**good, "text": "bad \x00 byte"}]}, "VALIDATION_ERROR"),
        ({"turns": [good] * (MAX_TURNS + 1)}, "VALIDATION_ERROR"),
        ({"turns": []}, "VALIDATION_ERROR"),
        ({"turns": [good], "sessionId": "not a session id!"}, "VALIDATION_ERROR"),
        ({"turns": [good], "transcript": "Nora: hi there everyone"}, "MUTUAL_EXCLUSION"),
        ({"transcript": "Nora: hi there everyone", "sessionId": "s-1"}, "VALIDATION_ERROR"),
        ({}, "VALIDATION_ERROR"),
    ]
    for variables, code in refused:
        assert api.error_codes(INGEST_TURNS, ns=ns, **variables) == [code], variables
    assert revision(api, ns) == before
    assert api.data("query($ns: String!) { episodes(namespace: $ns) { id } }", ns=ns) == {
        "episodes": []
    }
