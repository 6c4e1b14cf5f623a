"""Procedural memory: record a workflow or a code pattern (a refinement with
``refines``), extract code patterns from files, a workflow read off an episode by the
language model, and read them back (the newest of a kind, or one in full) through the
service GraphQL's procedure fields call."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from thoughtgraph.api.mcp.access import require_named_agent
from thoughtgraph.api.mcp.compact import listing, procedure_body
from thoughtgraph.api.mcp.tools.env import READ_ONLY, WRITES, Namespace, ToolEnv
from thoughtgraph.api.mcp.tools.shapes import ThoughtOut
from thoughtgraph.api.mcp.tools.thoughts import AgentId, AgentName, Reason, Tags
from thoughtgraph.domain import procedures
from thoughtgraph.domain.access import Principal
from thoughtgraph.domain.models import DEFAULT_NAMESPACE, ThoughtKind
from thoughtgraph.features.procedures.extraction import SourceFile
from thoughtgraph.features.procedures.service import Authoring, Extraction

Trigger = Annotated[str, Field(description="When it applies (up to 200 characters).")]
Hint = Annotated[
    str | None,
    Field(description="The one line context shows; derived from the trigger when left out."),
]
Refines = Annotated[
    str | None, Field(description="The workflow or pattern of the same kind this refines.")
]
Importance = Annotated[int | None, Field(description="1 to 5 (3).")]
Category = Annotated[str | None, Field(description="procedural unless given.")]


class Step(BaseModel):
    text: str = Field(description="What to do, in the imperative.")
    detail: str | None = Field(default=None, description="How, when it needs saying.")


class Slot(BaseModel):
    slot: str = Field(description="route, validation, error_handling, response...")
    value: str


class SourceFileIn(BaseModel):
    path: str = Field(description="Its extension names its language (.py, .js...).")
    content: str


class ProcedureOut(BaseModel):
    id: str
    kind: ThoughtKind
    trigger: str
    hint: str
    steps: list[Step]  # a workflow's, in order
    template: list[Slot]  # a code pattern's, in order
    files: list[str]  # where a code pattern was seen
    thought: ThoughtOut  # the thought that carries it: lineage, supersession...

    @classmethod
    def of(cls, found: procedures.Procedure) -> ProcedureOut:
        spec = found.spec
        return cls(
            id=found.thought.id,
            kind=spec.kind,
            trigger=spec.trigger,
            hint=spec.hint,
            steps=[Step(text=s.text, detail=s.detail) for s in spec.steps],
            template=[Slot(slot=t.slot, value=t.value) for t in spec.template],
            files=list(spec.files),
            thought=ThoughtOut.of(found.thought),
        )

    def line(self) -> str:
        """``<id> <kind> <date> [markers] <hint>``."""
        return self.thought.model_copy(update={"content": self.hint}).line()

    def as_text(self) -> str:
        """Its line, then its trigger and its steps or template."""
        steps = ((s.text, s.detail) for s in self.steps)
        template = ((t.slot, t.value) for t in self.template)
        return "\n".join([self.line(), *procedure_body(self.trigger, steps, template, self.files)])


class RecordedOut(BaseModel):
    procedure: ProcedureOut

    def as_text(self) -> str:
        return "stored: " + self.procedure.line()


class FoundOut(BaseModel):
    procedure: ProcedureOut | None  # None: no workflow or pattern the caller sees

    def as_text(self) -> str:
        return self.procedure.as_text() if self.procedure is not None else "procedure: none"


class ProceduresOut(BaseModel):
    procedures: list[ProcedureOut]

    def as_text(self) -> str:
        return listing("procedures", (p.line() for p in self.procedures))


class ExtractionOut(BaseModel):
    patterns: list[ProcedureOut]  # every repeated shape, the most places first
    created: int  # how many of them are new (the rest were stored already)
    files: int
    functions: int

    @classmethod
    def of(cls, found: Extraction) -> ExtractionOut:
        patterns = [ProcedureOut.of(p) for p in found.patterns]
        return cls(
            patterns=patterns, created=found.created, files=found.files, functions=found.functions
        )

    def as_text(self) -> str:
        header = f"patterns from {self.files} files, {self.functions} functions, {self.created} new"
        return listing(header, (p.line() for p in self.patterns))


def authoring(
    principal: Principal,
    namespace: str,
    agent_id: str | None,
    agent_name: str | None,
    *,
    tags: list[str] | None = None,
    importance: int | None = None,
    category: str | None = None,
    reason: str | None = None,
) -> Authoring:
    """The service's input; a field left out takes the service's default."""
    require_named_agent(principal, agent_id or "", agent_name or "")
    defaults = Authoring(namespace="", agent_id="", agent_name="")
    return Authoring(
        namespace=namespace,
        agent_id=agent_id or "",
        agent_name=agent_name or "",
        tags=tuple(tags or ()),
        importance=importance if importance is not None else defaults.importance,
        category=category,
        reason=reason,
    )


def register(server: MCPServer[Any], env: ToolEnv) -> None:
    async def record_workflow(
        ctx: Context[Any, Any],
        trigger: Trigger,
        steps: Annotated[list[Step], Field(description="In order, 1 to 50.")],
        hint: Hint = None,
        refines: Refines = None,
        reason: Reason = None,
        agent_id: AgentId = None,
        agent_name: AgentName = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
        tags: Tags = None,
        importance: Importance = None,
        category: Category = None,
    ) -> RecordedOut:
        """Record a workflow: its steps in order, its trigger and a hint ("deploy:
        test→build→prod", derived when left out); with `refines`, a refinement of that
        workflow. No step, or a refined thought that is no workflow: VALIDATION_ERROR,
        nothing written."""
        principal = env.caller(ctx)
        author = authoring(
            principal,
            namespace,
            agent_id,
            agent_name,
            tags=tags,
            importance=importance,
            category=category,
            reason=reason,
        )
        recorded = await env.services.procedures.record_workflow(
            author,
            trigger,
            [procedures.WorkflowStep(text=s.text, detail=s.detail) for s in steps],
            hint=hint,
            refines=refines,
            caller=principal,
        )
        return RecordedOut(procedure=ProcedureOut.of(recorded))

    async def workflow_from_episode(
        ctx: Context[Any, Any],
        episode_id: Annotated[str, Field(description="The episode to read the steps off.")],
        trigger: Annotated[str | None, Field(description="The model's when left out.")] = None,
        hint: Hint = None,
        refines: Refines = None,
        agent_id: AgentId = None,
        agent_name: AgentName = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> RecordedOut:
        """Record the workflow the language model reads off an episode (its stable
        sequence of actions as steps). Without a model LLM_NOT_CONFIGURED, with no such
        sequence NO_WORKFLOW_FOUND, an unknown episode NOT_FOUND: nothing written."""
        principal = env.caller(ctx)
        recorded = await env.services.procedures.record_workflow_from_episode(
            authoring(principal, namespace, agent_id, agent_name),
            episode_id,
            trigger=trigger,
            hint=hint,
            refines=refines,
            caller=principal,
        )
        return RecordedOut(procedure=ProcedureOut.of(recorded))

    async def record_pattern(
        ctx: Context[Any, Any],
        trigger: Trigger,
        template: Annotated[list[Slot], Field(description="Its slots in order, 1 to 30.")],
        hint: Hint = None,
        files: Annotated[list[str] | None, Field(description="Where it was seen.")] = None,
        refines: Refines = None,
        reason: Reason = None,
        agent_id: AgentId = None,
        agent_name: AgentName = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
        tags: Tags = None,
        importance: Importance = None,
        category: Category = None,
    ) -> RecordedOut:
        """Record a code pattern: its trigger, its template (slot → value), a hint
        (derived when left out) and its files; with `refines`, a refinement of that
        pattern."""
        principal = env.caller(ctx)
        author = authoring(
            principal,
            namespace,
            agent_id,
            agent_name,
            tags=tags,
            importance=importance,
            category=category,
            reason=reason,
        )
        recorded = await env.services.procedures.record_pattern(
            author,
            trigger,
            [procedures.TemplateSlot(slot=t.slot, value=t.value) for t in template],
            hint=hint,
            files=files or (),
            refines=refines,
            caller=principal,
        )
        return RecordedOut(procedure=ProcedureOut.of(recorded))

    async def extract_patterns(
        ctx: Context[Any, Any],
        files: Annotated[
            list[SourceFileIn],
            Field(description="The code: up to 50 Python, JavaScript or TypeScript files."),
        ],
        agent_id: AgentId = None,
        agent_name: AgentName = None,
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> ExtractionOut:
        """Store each function shape repeated across the files (route, validation, error
        handling, response) as a code pattern; one stored already is returned as it is. A
        file that does not parse is UNPARSEABLE_CODE, another language
        UNSUPPORTED_LANGUAGE, too much code INPUT_TOO_LARGE: nothing is written."""
        principal = env.caller(ctx)
        found = await env.services.procedures.extract_patterns(
            authoring(principal, namespace, agent_id, agent_name),
            [SourceFile(path=f.path, content=f.content) for f in files],
            caller=principal,
        )
        return ExtractionOut.of(found)

    async def procedures_(
        ctx: Context[Any, Any],
        kind: Annotated[ThoughtKind, Field(description="workflow or code_pattern.")],
        namespace: Namespace = DEFAULT_NAMESPACE,
        first: Annotated[int | None, Field(description="1 to 100 (20).")] = None,
        include_retired: Annotated[
            bool, Field(description="Also superseded and refined ones.")
        ] = False,
    ) -> ProceduresOut:
        """The newest workflows or code patterns, one line each (id, kind, date, hint);
        `procedure` reads one in full."""
        found = await env.services.procedures.listing(
            namespace,
            kind,
            first=first,
            include_retired=include_retired,
            caller=env.caller(ctx),
        )
        return ProceduresOut(procedures=[ProcedureOut.of(p) for p in found])

    async def procedure(
        ctx: Context[Any, Any],
        id: Annotated[str, Field(description="The workflow's or pattern's id.")],
        namespace: Namespace = DEFAULT_NAMESPACE,
    ) -> FoundOut:
        """A workflow or code pattern in full (what a context hint expands to): its
        numbered steps, or its template and files; null when there is none."""
        found = await env.services.procedures.get(namespace, id, caller=env.caller(ctx))
        return FoundOut(procedure=ProcedureOut.of(found) if found is not None else None)

    server.add_tool(record_workflow, annotations=WRITES)
    server.add_tool(workflow_from_episode, annotations=WRITES)
    server.add_tool(record_pattern, annotations=WRITES)
    server.add_tool(
        extract_patterns, annotations=WRITES.model_copy(update={"idempotent_hint": True})
    )
    server.add_tool(procedures_, name="procedures", annotations=READ_ONLY)
    server.add_tool(procedure, annotations=READ_ONLY)
