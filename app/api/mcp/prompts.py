"""MCP prompts: ready-made requests a user picks in an agent's client, under the same
keys and caller rules as the tools.

- ``remember_conversation``: keep what matters from a conversation (search first, then
  contribute, refine or supersede; or ingest it whole as an episode)
- ``what_changed_since``: the namespace's changes after a revision, to be summarised
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from thoughtgraph.api.mcp.resources import coded
from thoughtgraph.api.mcp.tools.env import ToolEnv
from thoughtgraph.api.mcp.tools.history import ChangeOut, ChangesOut
from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.models import DEFAULT_NAMESPACE

REMEMBER = """\
Remember what matters from the conversation below in the thoughtgraph namespace \
"{namespace}".

1. List the durable facts, decisions, preferences, tasks and risks it contains: each one \
self-contained (names, not pronouns), one statement each. Leave out small talk and \
anything only true for this moment.
2. For each, `search` the namespace first. If a thought already says it, skip it; if one \
says something it changes, `refine` that thought (or `supersede` it when it no longer \
holds), giving the reason; otherwise `contribute` it with the right `kind`.
3. If the whole exchange is worth keeping as it was said, `ingest_episode` its turns too.
4. Answer with one line per thought you wrote: its id, kind and what it says.

Conversation:
{conversation}"""

CHANGED = """\
Here is what changed in the thoughtgraph namespace "{namespace}" after revision \
{revision} (one line per change: revision, time, kind, subject, who):

{changes}

Summarise it for me: what is new, what was refined or superseded (and by what), what \
was forgotten, and any open contradictions. Read a thought with `search`, `history` or \
the resource thoughtgraph://thoughts/<id>?namespace={namespace} where a line is not \
enough. Next time, ask for the changes after revision {now}."""


def revision_of(text: str) -> int:
    """A prompt's argument arrives as text: the revision it names."""
    try:
        return int(text.strip())
    except ValueError:
        raise InvalidInputError("revision: a whole number", field="revision") from None


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    @server.prompt(
        name="remember_conversation",
        description="Keep the durable facts, decisions and preferences of a conversation.",
    )
    @coded
    async def remember_conversation(
        conversation: str, ctx: Context[Any, Any], namespace: str = DEFAULT_NAMESPACE
    ) -> str:
        env.caller(ctx)  # a caller without a valid key is refused, as by the tools
        return REMEMBER.format(namespace=namespace, conversation=conversation.strip())

    @server.prompt(
        name="what_changed_since",
        description="Summarise what changed in a namespace after a revision.",
    )
    @coded
    async def what_changed_since(
        revision: str, ctx: Context[Any, Any], namespace: str = DEFAULT_NAMESPACE
    ) -> str:
        principal = env.caller(ctx)
        after = revision_of(revision)
        service = env.services.history
        now = await service.revision(namespace, caller=principal)
        events = await service.changes(namespace, after, caller=principal)
        changes = ChangesOut(revision=now, events=[ChangeOut.of(event) for event in events])
        return CHANGED.format(
            namespace=namespace, revision=after, changes=changes.as_text(), now=now
        )
