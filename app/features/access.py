"""Key scope, checked once, by the services: a caller's role must allow the action and its
key the namespace. Every interface passes its caller; a call from inside the service (a
job, another service, the CLI) passes none and is trusted."""

from __future__ import annotations

from dataclasses import replace

from thoughtgraph.domain.access import Action, Principal
from thoughtgraph.domain.changes import Actor
from thoughtgraph.features.thoughts.inputs import ThoughtInput

# Who the change log names for a write without an API key (open local mode).
LOCAL_ACTOR = Actor(id="local", name="local")


def check_access(caller: Principal | None, action: Action, namespace: str | None) -> None:
    """FORBIDDEN when ``caller`` may not do ``action`` on ``namespace``."""
    if caller is not None:
        caller.require(action, namespace)


def written_as(caller: Principal | None, data: ThoughtInput) -> ThoughtInput:
    """A write through an API key is the key's agent's, and the change log names the key;
    the agent the input names counts only without a key (open local mode)."""
    if caller is None or caller.key_id is None or caller.agent_id is None:
        return data
    return replace(
        data,
        agent_id=caller.agent_id,
        agent_name=caller.agent_name or caller.agent_id,
        key_id=caller.key_id,
    )


def actor_of(caller: Principal) -> Actor:
    """The actor of a write other than a contribution: the key's agent, and the key."""
    if caller.agent_id is None:
        return LOCAL_ACTOR.model_copy(update={"key_id": caller.key_id})
    return Actor(
        id=caller.agent_id, name=caller.agent_name or caller.agent_id, key_id=caller.key_id
    )


__all__ = ["LOCAL_ACTOR", "Action", "Principal", "actor_of", "check_access", "written_as"]
