"""Consent for changes to a field about a person, through the interfaces, on both engines:
keys that act for Ana, Bob and Carol, GraphQL over real HTTP and MCP over streamable HTTP.
A change to Ana's city proposed by Bob is held, not written, until Ana's own key approves
it; Bob cannot approve it, Carol does not see it, a rejection changes nothing, and no other
way of changing the value (supersede) gets around it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.api.keyed_support import ok, users_service
from tests.api.test_api_keys import Keyed, codes
from tests.mcp_support import (
    call,
    everything,
    keyed_env,
    mcp_server,
    refused,
    user_keys,
)
from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.settings import Settings

USERS = ("ana", "bob", "carol")
REQUEST = """id namespace person field sensitivity status value thoughtId replacesIds
  evidence proposedById proposedByName signals createdAt expiresAt decidedAt decidedBy note"""
THOUGHT_FIELDS = "id content category about scope superseded supersededBy { id }"
CONTRIBUTE = f"""mutation($input: ContributeInput!) {{ contribute(input: $input) {{
  thought {{ {THOUGHT_FIELDS} }} consentRequest {{ {REQUEST} }} }} }}"""
CONTRIBUTE_MANY = f"""mutation($inputs: [ContributeManyInput!]!) {{
  contributeMany(inputs: $inputs) {{ thought {{ id }} consentRequest {{ {REQUEST} }} }} }}"""
THOUGHT = f"""query($id: ID!, $ns: String!) {{
  thought(id: $id, namespace: $ns) {{ {THOUGHT_FIELDS} }} }}"""
REQUESTS = f"""query($ns: String!, $status: ConsentStatus, $first: Int) {{
  consentRequests(namespace: $ns, status: $status, first: $first) {{ {REQUEST} }} }}"""
APPROVE = f"""mutation($ns: String!, $id: ID!, $note: String) {{
  approveConsent(namespace: $ns, id: $id, note: $note) {{ {REQUEST} }} }}"""
REJECT = f"""mutation($ns: String!, $id: ID!, $note: String) {{
  rejectConsent(namespace: $ns, id: $id, note: $note) {{ {REQUEST} }} }}"""
SUPERSEDE = """mutation($ns: String!, $newer: ID!, $older: ID!) {
  supersede(namespace: $ns, newerId: $newer, olderId: $older, reason: "she moved") { id } }"""
HISTORY = """query($id: ID!, $ns: String!) {
  history(thoughtId: $id, namespace: $ns) { kind actorId } }"""
CHANGES = """query($ns: String!) { changes(namespace: $ns) {
  revision events { kind subjectKind subjectId actorId } } }"""


@pytest.fixture
def keyed(
    engine_settings: Callable[..., Settings],
    local_embedder: TextEmbedder,
    tmp_path: Path,
    ns: str,
) -> Iterator[Keyed]:
    """A writer key for each of Ana, Bob and Carol, each acting for that user."""
    with users_service(engine_settings, local_embedder, tmp_path, ns, USERS) as keyed:
        yield keyed


def contribute(keyed: Keyed, who: str, ns: str, content: str, **extra: Any) -> dict[str, Any]:
    data = {"content": content, "agentId": "x", "agentName": "x", "namespace": ns}
    found: dict[str, Any] = ok(keyed, who, CONTRIBUTE, input=data | extra)["contribute"]
    return found


def thought(keyed: Keyed, who: str, ns: str, thought_id: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = ok(keyed, who, THOUGHT, id=thought_id, ns=ns)["thought"]
    return found


def requests(keyed: Keyed, who: str, ns: str, **options: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = ok(keyed, who, REQUESTS, ns=ns, **options)["consentRequests"]
    return found


def revision(keyed: Keyed, ns: str) -> int:
    return int(ok(keyed, "ana", CHANGES, ns=ns)["changes"]["revision"])


def test_a_change_to_a_persons_city_waits_for_that_persons_approval(keyed: Keyed, ns: str) -> None:
    city = {"category": "city", "scope": "SHARED"}
    # The first value is not a change: written as any thought is, about the key's user.
    lisbon = contribute(keyed, "ana", ns, "Ana lives in Lisbon", **city)
    assert lisbon["consentRequest"] is None
    old = lisbon["thought"]
    assert (old["about"], old["category"], old["superseded"]) == ("ana", "city", False)
    assert thought(keyed, "bob", ns, old["id"]) == old

    # Bob proposes another value: held, not written.
    before = revision(keyed, ns)
    porto = contribute(keyed, "bob", ns, "Ana lives in Porto", about="ana", **city)
    request = porto["consentRequest"]
    assert request is not None
    assert (request["status"], request["person"], request["field"]) == ("PENDING", "ana", "city")
    assert (request["sensitivity"], request["value"]) == ("SENSITIVE", "Ana lives in Porto")
    assert request["replacesIds"] == [old["id"]]
    assert request["thoughtId"] == porto["thought"]["id"]
    assert (request["proposedById"], request["proposedByName"]) == ("bob-bot", "Bob Bot")
    assert request["signals"] == 1 and request["decidedAt"] is None
    assert porto["thought"]["about"] == "ana"
    new_id = porto["thought"]["id"]
    for who in USERS:
        assert thought(keyed, who, ns, new_id) is None
    assert thought(keyed, "ana", ns, old["id"]) == old  # still Ana's current city

    # The person and the proposer see it; nobody else does.
    assert [r["id"] for r in requests(keyed, "ana", ns)] == [request["id"]]
    assert [r["id"] for r in requests(keyed, "bob", ns, status="PENDING")] == [request["id"]]
    assert requests(keyed, "bob", ns, status="APPROVED") == []
    assert requests(keyed, "carol", ns) == []

    # Only Ana's key decides: Bob is FORBIDDEN, to Carol the request does not exist.
    denied = keyed.body(APPROVE, keyed.texts["bob"], ns=ns, id=request["id"])
    assert codes(denied) == ["FORBIDDEN"] and denied["data"] is None
    for document in (APPROVE, REJECT):
        hidden = keyed.body(document, keyed.texts["carol"], ns=ns, id=request["id"])
        assert codes(hidden) == ["NOT_FOUND"]
    assert thought(keyed, "ana", ns, new_id) is None
    assert revision(keyed, ns) == before + 1  # the request's own event, nothing written

    # Ana approves: the new value is written and supersedes the old one.
    approved = ok(keyed, "ana", APPROVE, ns=ns, id=request["id"], note="yes, I moved")
    decided = approved["approveConsent"]
    assert (decided["status"], decided["decidedBy"], decided["note"]) == (
        "APPROVED",
        "ana",
        "yes, I moved",
    )
    assert decided["decidedAt"] is not None
    current = thought(keyed, "carol", ns, new_id)
    assert current is not None
    assert (current["content"], current["about"], current["superseded"]) == (
        "Ana lives in Porto",
        "ana",
        False,
    )
    retired = thought(keyed, "bob", ns, old["id"])
    assert retired is not None and retired["superseded"]
    assert retired["supersededBy"] == {"id": new_id}
    # Approving again finds it applied; rejecting it now is INVALID_STATE.
    again = ok(keyed, "ana", APPROVE, ns=ns, id=request["id"])["approveConsent"]
    assert (again["status"], again["decidedAt"]) == ("APPROVED", decided["decidedAt"])
    late = keyed.body(REJECT, keyed.texts["ana"], ns=ns, id=request["id"])
    assert codes(late) == ["INVALID_STATE"]
    assert [r["status"] for r in requests(keyed, "bob", ns)] == ["APPROVED"]

    # The change log has the request and the decision, made by Ana's key.
    events = ok(keyed, "ana", CHANGES, ns=ns)["changes"]["events"]
    about_request = [
        (e["kind"], e["actorId"])
        for e in events
        if (e["subjectKind"], e["subjectId"]) == ("CONSENT_REQUEST", request["id"])
    ]
    assert about_request == [("CONSENT_REQUESTED", "bob-bot"), ("CONSENT_DECIDED", "ana-bot")]
    # The thought was written as Bob proposed it; Ana's approval retired the old value.
    for tid in (old["id"], new_id):
        history = ok(keyed, "carol", HISTORY, id=tid, ns=ns)["history"]
        written_by = "ana-bot" if tid == old["id"] else "bob-bot"
        assert [(e["kind"], e["actorId"]) for e in history] == [
            ("CREATED", written_by),
            ("SUPERSEDED", "ana-bot"),
        ]


def test_a_rejected_change_changes_nothing_and_nothing_gets_around_consent(
    keyed: Keyed, ns: str
) -> None:
    city = {"category": "city", "scope": "SHARED"}
    current = contribute(keyed, "ana", ns, "Ana lives in Lisbon", **city)["thought"]
    # Proposed through contributeMany: the batch's payload says it was held.
    data = {"content": "Ana lives in Braga", "agentId": "x", "agentName": "x", "namespace": ns}
    (held,) = ok(keyed, "bob", CONTRIBUTE_MANY, inputs=[data | city | {"about": "ana"}])[
        "contributeMany"
    ]
    request = held["consentRequest"]
    assert request is not None and request["status"] == "PENDING"
    assert held["thought"]["id"] == request["thoughtId"]

    before = revision(keyed, ns)
    rejected = ok(keyed, "ana", REJECT, ns=ns, id=request["id"], note="I did not move")
    decided = rejected["rejectConsent"]
    assert (decided["status"], decided["decidedBy"]) == ("REJECTED", "ana")
    assert thought(keyed, "ana", ns, request["thoughtId"]) is None
    assert thought(keyed, "bob", ns, current["id"]) == current  # still current
    assert revision(keyed, ns) == before + 1  # the decision's event, nothing else
    # Rejecting again finds it rejected (nothing happens); approving it is INVALID_STATE.
    again = ok(keyed, "ana", REJECT, ns=ns, id=request["id"])["rejectConsent"]
    assert (again["status"], again["decidedAt"]) == ("REJECTED", decided["decidedAt"])
    late = keyed.body(APPROVE, keyed.texts["ana"], ns=ns, id=request["id"])
    assert codes(late) == ["INVALID_STATE"]
    assert late["errors"][0]["extensions"]["field"] == "id"
    assert thought(keyed, "ana", ns, request["thoughtId"]) is None

    # The same value again is not a change; supersede of the current value is refused.
    same = contribute(keyed, "bob", ns, "ana lives in lisbon.", about="ana", **city)
    assert same["consentRequest"] is None
    newer = contribute(keyed, "bob", ns, "Ana has been seen in Faro a lot.")["thought"]
    before = revision(keyed, ns)
    for who in ("bob", "ana"):
        body = keyed.body(
            SUPERSEDE, keyed.texts[who], ns=ns, newer=newer["id"], older=current["id"]
        )
        assert codes(body) == ["CONSENT_REQUIRED"], body
        assert current["id"] in body["errors"][0]["extensions"]["ids"]
    assert thought(keyed, "carol", ns, current["id"]) == current
    assert revision(keyed, ns) == before

    # Bad input is refused before anything is looked up.
    for document in (APPROVE, REJECT):
        for bad in ("", "no spaces allowed"):
            body = keyed.body(document, keyed.texts["ana"], ns=ns, id=bad)
            assert codes(body) == ["VALIDATION_ERROR"], body
            assert body["errors"][0]["extensions"]["field"] == "id"
    too_long = keyed.body(APPROVE, keyed.texts["ana"], ns=ns, id=request["id"], note="x" * 2001)
    assert codes(too_long) == ["VALIDATION_ERROR"]
    for first in (0, 101):
        body = keyed.body(REQUESTS, keyed.texts["ana"], ns=ns, first=first)
        assert codes(body) == ["VALIDATION_ERROR"]
    unknown = keyed.body(REQUESTS, keyed.texts["ana"], ns=ns, status="MAYBE")
    assert codes(unknown) == ["GRAPHQL_VALIDATION_FAILED"]
    missing = keyed.body(APPROVE, keyed.texts["ana"], ns=ns, id="consent-no-such-request")
    assert codes(missing) == ["NOT_FOUND"]


def test_consent_over_mcp(
    engine_settings: Callable[..., Settings],
    tmp_path: Path,
    ns: str,
    request: pytest.FixtureRequest,
) -> None:
    keys = KeyFile(tmp_path / "keys.json")
    texts = user_keys(keys, ns, USERS)
    env = keyed_env(engine_settings, request, keys)
    field = {"category": "pronouns", "scope": "shared", "namespace": ns}

    async def scenario() -> None:
        with mcp_server("http", env, tmp_path / "mcp.log") as server:
            async with server.session(texts["ana"]) as ana:
                first = await call(ana, "contribute", content="Ana uses she/her.", **field)
                assert first["consent_request"] is None
                assert first["thought"]["about"] == "ana"
            async with server.session(texts["bob"]) as bob:
                held = await call(
                    bob, "contribute", content="Ana uses they/them.", about="ana", **field
                )
                proposal = held["consent_request"]
                assert proposal is not None
                assert {k: proposal[k] for k in ("status", "person", "field")} == {
                    "status": "pending",
                    "person": "ana",
                    "field": "pronouns",
                }
                assert held["thought"]["about"] == "ana"
                assert held["thought"]["id"] not in await everything(bob, ns)
                listed = await call(bob, "consent_requests", namespace=ns)
                assert [r["id"] for r in listed["requests"]] == [proposal["id"]]
                assert listed["requests"][0]["replaces_ids"] == [first["thought"]["id"]]
                code = await refused(
                    bob, "approve_consent", request_id=proposal["id"], namespace=ns
                )
                assert code == "FORBIDDEN"
            async with server.session(texts["carol"]) as carol:
                assert (await call(carol, "consent_requests", namespace=ns))["requests"] == []
                code = await refused(
                    carol, "reject_consent", request_id=proposal["id"], namespace=ns
                )
                assert code == "NOT_FOUND"
            async with server.session(texts["ana"]) as ana:
                decided = await call(
                    ana, "approve_consent", request_id=proposal["id"], namespace=ns, note="ok"
                )
                assert (decided["status"], decided["decided_by"], decided["note"]) == (
                    "approved",
                    "ana",
                    "ok",
                )
                assert await everything(ana, ns) >= {held["thought"]["id"]}
                code = await refused(ana, "reject_consent", request_id=proposal["id"], namespace=ns)
                assert code == "INVALID_STATE"
                code = await refused(ana, "approve_consent", request_id="", namespace=ns)
                assert code == "VALIDATION_ERROR"

    asyncio.run(scenario())
