"""Writing thoughts: contribute an original, refine one, and record that one supersedes
another (it is no longer current)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from thoughtgraph.api.mcp.access import with_named_agent
from thoughtgraph.api.mcp.tools.env import WRITES, Namespace, ToolEnv
from thoughtgraph.api.mcp.tools.shapes import ContributionOut, ThoughtOut, epoch_ms
from thoughtgraph.domain.models import DEFAULT_NAMESPACE, ThoughtKind
from thoughtgraph.domain.scopes import Scope
from thoughtgraph.features.access import actor_of
from thoughtgraph.features.thoughts.service import ThoughtInput

Content = Annotated[str, Field(description="The thought itself (up to 10,000 characters).")]
AgentId = Annotated[
    str | None,
    Field(description="Who contributes; required without an API key, ignored with one."),
]
AgentName = Annotated[str | None, Field(description="The agent's display name; as agent_id.")]
Reason = Annotated[
    str | None, Field(description="Why: kept on the lineage edge, searchable by meaning.")
]
Tags = Annotated[list[str] | None, Field(description="Up to 32 short labels.")]
ScopeArg = Annotated[
    Scope | None,
    Field(
        description="Whose memory it is: private (the key's user's), shared or system "
        "(admins); the namespace's default when left out."
    ),
]
UserId = Annotated[
    str | None,
    Field(description="The user a private thought belongs to: open local mode only."),
]
About = Annotated[
    str | None,
    Field(
        description="The user a person field (a category such as name or city) is about; "
        "left out: a private thought's owner, else your key's user."
    ),
]


def thought_input(
    content: str,
    agent_id: str | None,
    agent_name: str | None,
    namespace: str,
    *,
    context: str | None = None,
    session_id: str | None = None,
    tags: list[str] | None = None,
    kind: ThoughtKind | None = None,
    salience: float | None = None,
    importance: int | None = None,
    pinned: bool | None = None,
    category: str | None = None,
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
    scope: Scope | None = None,
    user_id: str | None = None,
    about: str | None = None,
) -> ThoughtInput:
    """The service's input; a field left out (or null) takes the service's default."""
    defaults = ThoughtInput(content="", agent_id="", agent_name="")
    return ThoughtInput(
        content=content,
        agent_id=agent_id or "",
        agent_name=agent_name or "",
        namespace=namespace,
        context=context,
        session_id=session_id,
        tags=tuple(tags or ()),
        kind=kind if kind is not None else defaults.kind,
        salience=salience if salience is not None else defaults.salience,
        importance=importance if importance is not None else defaults.importance,
        pinned=pinned if pinned is not None else defaults.pinned,
        category=category,
        valid_from_ms=epoch_ms(valid_from),
        valid_to_ms=epoch_ms(valid_to),
        scope=scope,
        owner_id=user_id,
        about=about,
    )


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def contribute(
        ctx: Context[Any, Any],
        content: Content,
        agent_id: AgentId = None,
        agent_name: AgentName = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
        context: Annotated[str | None, Field(description="What it was said in reply to.")] = None,
        session_id: str | None = None,
        tags: Tags = None,
        kind: Annotated[ThoughtKind | None, Field(description="fact unless given.")] = None,
        salience: Annotated[
            float | None, Field(description="0 to 1: how much it matters later (0.5).")
        ] = None,
        importance: Annotated[
            int | None, Field(description="1 to 5: forgetting spares important ones (3).")
        ] = None,
        pinned: Annotated[bool | None, Field(description="Never forgotten.")] = None,
        category: str | None = None,
        valid_from: Annotated[
            datetime | None, Field(description="Since when it is true in the world.")
        ] = None,
        valid_to: Annotated[
            datetime | None, Field(description="Until when it was true in the world.")
        ] = None,
        scope: ScopeArg = None,
        user_id: UserId = None,
        about: About = None,
        extract: Annotated[
            bool,
            Field(description="Also split a long thought into up to three facts, later."),
        ] = False,
    ) -> ContributionOut:
        """Store a new thought. The answer carries `guidance` when an existing thought is
        very similar (the new one is stored anyway), and `consent_request` when it would
        change a field about a person (name, pronouns, city, ...): then it is held, not
        stored, until that person approves it (approve_consent). With `extract` and a
        model configured, a long thought is also split into facts in the background
        (`extraction_queued`)."""
        principal = env.caller(ctx)
        data = thought_input(
            content,
            agent_id,
            agent_name,
            namespace,
            context=context,
            session_id=session_id,
            tags=tags,
            kind=kind,
            salience=salience,
            importance=importance,
            pinned=pinned,
            category=category,
            valid_from=valid_from,
            valid_to=valid_to,
            scope=scope,
            user_id=user_id,
            about=about,
        )
        contribution = await env.services.thoughts.contribute(
            with_named_agent(principal, data), extract=extract, caller=principal
        )
        return ContributionOut.of(contribution)

    async def refine(
        ctx: Context[Any, Any],
        source_id: Annotated[str, Field(description="The thought this one refines.")],
        content: Content,
        reason: Reason = None,
        agent_id: AgentId = None,
        agent_name: AgentName = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
        tags: Tags = None,
        kind: ThoughtKind | None = None,
        scope: ScopeArg = None,
        user_id: UserId = None,
    ) -> ContributionOut:
        """Store a thought that refines (and so supersedes) `source_id`; lineage links
        them. THOUGHT_NOT_FOUND when the source does not exist."""
        principal = env.caller(ctx)
        data = thought_input(
            content,
            agent_id,
            agent_name,
            namespace,
            tags=tags,
            kind=kind,
            scope=scope,
            user_id=user_id,
        )
        contribution = await env.services.thoughts.refine(
            with_named_agent(principal, data),
            source_id,
            reason=reason,
            caller=principal,
        )
        return ContributionOut.of(contribution)

    async def supersede(
        ctx: Context[Any, Any],
        newer_id: Annotated[str, Field(description="The thought that is current now.")],
        older_id: Annotated[str, Field(description="The thought it retires.")],
        reason: Annotated[str, Field(description="Why the older one no longer holds.")],
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> ThoughtOut:
        """Record that `newer_id` supersedes `older_id`: the older is kept, marked, ranked
        lower and left out of current-only reads. Returns the older thought."""
        principal = env.caller(ctx)
        older = await env.services.supersession.supersede(
            namespace,
            newer_id,
            older_id,
            reason=reason,
            actor=actor_of(principal),
            caller=principal,
        )
        return ThoughtOut.of(older)

    server.add_tool(contribute, annotations=WRITES)
    server.add_tool(refine, annotations=WRITES)
    server.add_tool(supersede, annotations=WRITES.model_copy(update={"idempotent_hint": True}))
