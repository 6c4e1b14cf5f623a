"""Input types of workflows and code patterns, mapped onto the service's values."""

from __future__ import annotations

import strawberry

from thoughtgraph.domain.models import DEFAULT_NAMESPACE
from thoughtgraph.domain.procedures import TemplateSlot, WorkflowStep
from thoughtgraph.features.procedures.extraction import SourceFile
from thoughtgraph.features.procedures.service import Authoring


@strawberry.input
class WorkflowStepInput:
    text: str
    detail: str | None = None

    def to_domain(self) -> WorkflowStep:
        return WorkflowStep(text=self.text, detail=self.detail)


@strawberry.input
class TemplateSlotInput:
    slot: str
    value: str

    def to_domain(self) -> TemplateSlot:
        return TemplateSlot(slot=self.slot, value=self.value)


@strawberry.input
class SourceFileInput:
    path: str = strawberry.field(description="Its extension names its language.")
    content: str

    def to_domain(self) -> SourceFile:
        return SourceFile(path=self.path, content=self.content)


@strawberry.input
class _Authoring:
    agent_id: str
    agent_name: str
    namespace: str = DEFAULT_NAMESPACE
    tags: list[str] | None = strawberry.field(default_factory=list)
    importance: int | None = strawberry.field(default=None, description="1 to 5 (3).")
    category: str | None = strawberry.field(default=None, description="procedural unless given.")
    refines: strawberry.ID | None = strawberry.field(
        default=None, description="The workflow or pattern of the same kind this refines."
    )
    reason: str | None = strawberry.field(default=None, description="Why it refines it.")

    def to_authoring(self) -> Authoring:
        defaults = Authoring(namespace="", agent_id="", agent_name="")
        return Authoring(
            namespace=self.namespace,
            agent_id=self.agent_id,
            agent_name=self.agent_name,
            tags=tuple(self.tags or ()),
            importance=self.importance if self.importance is not None else defaults.importance,
            category=self.category,
            reason=self.reason,
        )


@strawberry.input(description="A workflow: ordered steps, a trigger, a hint (derived if null).")
class RecordWorkflowInput(_Authoring):
    steps: list[WorkflowStepInput]
    trigger: str
    hint: str | None = None


@strawberry.input(
    description=(
        "A workflow read off an episode by the language model; `trigger` and `hint` the"
        " model's and derived when null."
    )
)
class RecordWorkflowFromEpisodeInput(_Authoring):
    episode_id: strawberry.ID
    trigger: str | None = None
    hint: str | None = None


@strawberry.input(description="A code pattern: a trigger, a template, a hint, its files.")
class RecordPatternInput(_Authoring):
    trigger: str
    template: list[TemplateSlotInput]
    hint: str | None = None
    files: list[str] | None = strawberry.field(default_factory=list)
