"""Workflows and code patterns as GraphQL shows them: the structure, and the thought that
carries it (its lineage, supersession and the rest)."""

from __future__ import annotations

import strawberry

from thoughtgraph.api.graphql.enums import ThoughtKind
from thoughtgraph.api.graphql.thoughts.types import Thought
from thoughtgraph.domain import procedures
from thoughtgraph.features.procedures.service import Extraction


@strawberry.type(description="One step of a workflow, in order.")
class WorkflowStep:
    text: str = strawberry.field(description="What to do, in the imperative.")
    detail: str | None = strawberry.field(description="How, when it needs saying.")


@strawberry.type(description="One slot of a code pattern's template, in order.")
class TemplateSlot:
    slot: str = strawberry.field(description="route, validation, error_handling, response...")
    value: str


@strawberry.type(
    description=(
        "A workflow (steps) or a code pattern (template, files): a thought of kind WORKFLOW"
        " or CODE_PATTERN whose content starts with the hint line."
    )
)
class Procedure:
    id: strawberry.ID
    kind: ThoughtKind
    trigger: str = strawberry.field(description="When it applies.")
    hint: str = strawberry.field(description="The one line context shows.")
    steps: list[WorkflowStep] = strawberry.field(description="A workflow's steps, in order.")
    template: list[TemplateSlot] = strawberry.field(description="A code pattern's template.")
    files: list[str] = strawberry.field(description="Where a code pattern was seen.")
    thought: Thought = strawberry.field(description="The thought: lineage, supersession...")

    @classmethod
    def from_domain(cls, found: procedures.Procedure) -> Procedure:
        spec = found.spec
        return cls(
            id=strawberry.ID(found.thought.id),
            kind=spec.kind,
            trigger=spec.trigger,
            hint=spec.hint,
            steps=[WorkflowStep(text=s.text, detail=s.detail) for s in spec.steps],
            template=[TemplateSlot(slot=t.slot, value=t.value) for t in spec.template],
            files=list(spec.files),
            thought=Thought.from_domain(found.thought),
        )


@strawberry.type(description="What one extractPatterns call found.")
class PatternExtraction:
    patterns: list[Procedure] = strawberry.field(
        description="Every repeated shape as a code pattern, the most places first."
    )
    created: int = strawberry.field(description="How many of them are new (the rest stored).")
    files: int = strawberry.field(description="Files read.")
    functions: int = strawberry.field(description="Functions read across them.")

    @classmethod
    def from_domain(cls, found: Extraction) -> PatternExtraction:
        return cls(
            patterns=[Procedure.from_domain(p) for p in found.patterns],
            created=found.created,
            files=found.files,
            functions=found.functions,
        )
