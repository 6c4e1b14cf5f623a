"""The adapters' client pair against the real service: plans driven in many short-lived
event loops (a framework running each sync call in a loop of its own) all succeed and
leave no connection open on a finished loop (one client per loop, dropped unclosed, left
two unclosed sockets and transports behind each)."""

from __future__ import annotations

import asyncio
import gc
import warnings

from tests.support import GraphQLClient
from thoughtgraph.client.models import ContributeManyInput
from thoughtgraph.integrations.plans import ClientPair, Plan, contribute_all, listing


def _write(n: int) -> Plan:
    note = ContributeManyInput(
        content=f"loop note {n}", agent_id="looper", agent_name="Looper", tags=["loops"]
    )
    return contribute_all([note])


def test_plans_in_many_loops_leave_no_connection_open(api: GraphQLClient, ns: str) -> None:
    pair = ClientPair(api.base_url, namespace=ns)
    gc.collect()  # what earlier tests left unclosed is collected before the count
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        for n in range(5):  # each in an event loop of its own, closed afterwards
            asyncio.run(pair.adrive(_write(n)))
        gc.collect()
    unclosed = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert unclosed == []

    async def listed() -> list[str]:
        found = await pair.adrive(listing("loops"))
        await pair.aclose()  # another loop than the kept client's: nothing to close here
        return sorted(t.content for t in found)

    assert asyncio.run(listed()) == [f"loop note {n}" for n in range(5)]
    pair.close()
