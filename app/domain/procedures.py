"""Procedural memory (seed 001 §12, seed 002 memory types 3 and 4): workflows and code
patterns as thoughts of their own kinds.

A workflow is an ordered list of steps (each a short imperative text with an optional
detail), a trigger (when it applies) and a one-line hint ("deploy: test→build→prod"). A
code pattern is a trigger, a structured template (slot → value, in order), a hint and the
files it was seen in. Both are stored as thoughts (kind ``workflow`` / ``code_pattern``)
whose content is the hint line followed by the steps or template, so search and lineage
treat them like any thought; the structure is kept beside it on the same node.

Retrieval rule: procedural thoughts stay out of the default context and search; an agent
asks for them by role (executor, planner), by activity (coding...) or through its
allowlist (the ``procedural`` category). Pure: values, checks and renderings only.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.context.compression import Levels
from thoughtgraph.domain.context.model import Candidate, Level, Tier
from thoughtgraph.domain.errors import InvalidInputError, InvalidStateError, ThoughtgraphError
from thoughtgraph.domain.models import Thought, ThoughtKind

PROCEDURAL_KINDS = frozenset(
    {ThoughtKind.PROCEDURE, ThoughtKind.WORKFLOW, ThoughtKind.CODE_PATTERN}
)
STRUCTURED_KINDS = frozenset({ThoughtKind.WORKFLOW, ThoughtKind.CODE_PATTERN})
PROCEDURAL_CATEGORY = "procedural"  # an allowlist naming it asks for procedural hints
EXECUTION_AGENTS = frozenset({"executor", "planner"})
EXECUTION_ACTIVITIES = frozenset({"coding", "debugging", "deploying", "executing", "planning"})

MAX_STEPS = 50
MAX_STEP_CHARS = 300
MAX_DETAIL_CHARS = 2_000
MAX_TRIGGER_CHARS = 200
MAX_HINT_CHARS = 200
MAX_TEMPLATE_SLOTS = 30
MAX_SLOT_CHARS = 64
MAX_SLOT_VALUE_CHARS = 500
MAX_FILES = 100
MAX_PATH_CHARS = 500
HEAD_WORDS = 3  # a step's head in a derived hint: its first words, up to a separator
ARROW = "→"
_HEAD_END = re.compile(r"\s+[-–—]\s+|[:(,;]")  # noqa: RUF001 (dashes are separators)


class UnparseableCodeError(InvalidInputError):
    """A file given for pattern extraction does not parse in its language."""

    code = "UNPARSEABLE_CODE"


class UnsupportedLanguageError(InvalidInputError):
    """A file whose language pattern extraction does not read (by its extension)."""

    code = "UNSUPPORTED_LANGUAGE"


class InputTooLargeError(InvalidInputError):
    """Too many files, a file too large, or too much code in one call."""

    code = "INPUT_TOO_LARGE"


class LLMNotConfiguredError(ThoughtgraphError):
    """A workflow from an episode needs a language model (``TG_LLM_MODEL``); offline,
    workflows are recorded explicitly only."""

    code = "LLM_NOT_CONFIGURED"


class NoWorkflowFoundError(InvalidStateError):
    """The model found no stable sequence of actions in the episode."""

    code = "NO_WORKFLOW_FOUND"


@dataclass(frozen=True)
class WorkflowStep:
    text: str
    detail: str | None = None


@dataclass(frozen=True)
class TemplateSlot:
    slot: str  # e.g. route, validation, error_handling, response
    value: str


@dataclass(frozen=True)
class ProcedureSpec:
    """The structure of a workflow (steps) or a code pattern (template, files)."""

    kind: ThoughtKind
    trigger: str
    hint: str
    steps: tuple[WorkflowStep, ...] = ()
    template: tuple[TemplateSlot, ...] = ()
    files: tuple[str, ...] = ()

    @property
    def content(self) -> str:
        """The thought's text: the hint first (what context shows), then the body."""
        if self.kind is ThoughtKind.WORKFLOW:
            lines = [
                f"{n}. {step.text}" + (f" ({step.detail})" if step.detail else "")
                for n, step in enumerate(self.steps, start=1)
            ]
        else:
            lines = [f"{slot.slot}: {slot.value}" for slot in self.template]
            if self.files:
                lines.append("seen in: " + ", ".join(self.files))
        body = "\n".join([self.hint, f"when: {self.trigger}", *lines])
        return body[: check.MAX_CONTENT_CHARS]


@dataclass(frozen=True)
class Procedure:
    """A stored workflow or code pattern: the thought and its structure."""

    thought: Thought
    spec: ProcedureSpec


# --- checks ------------------------------------------------------------------------------
def require_steps(steps: Sequence[WorkflowStep]) -> tuple[WorkflowStep, ...]:
    if not steps:
        raise InvalidInputError("a workflow needs at least one step", field="steps")
    if len(steps) > MAX_STEPS:
        raise InvalidInputError(
            f"at most {MAX_STEPS} steps, {len(steps)} given", field="steps", limit=MAX_STEPS
        )
    return tuple(
        WorkflowStep(
            text=check.require_name(f"steps[{n}].text", step.text, MAX_STEP_CHARS),
            detail=check.optional_text(f"steps[{n}].detail", step.detail, MAX_DETAIL_CHARS),
        )
        for n, step in enumerate(steps)
    )


def require_template(template: Sequence[TemplateSlot]) -> tuple[TemplateSlot, ...]:
    if not template:
        raise InvalidInputError("a code pattern needs at least one template slot", field="template")
    if len(template) > MAX_TEMPLATE_SLOTS:
        raise InvalidInputError(
            f"at most {MAX_TEMPLATE_SLOTS} template slots, {len(template)} given",
            field="template",
        )
    slots = tuple(
        TemplateSlot(
            slot=check.require_name(f"template[{n}].slot", item.slot, MAX_SLOT_CHARS),
            value=check.require_name(f"template[{n}].value", item.value, MAX_SLOT_VALUE_CHARS),
        )
        for n, item in enumerate(template)
    )
    if len({s.slot for s in slots}) != len(slots):
        raise InvalidInputError("a template slot is named twice", field="template")
    return slots


def require_files(files: Sequence[str]) -> tuple[str, ...]:
    if len(files) > MAX_FILES:
        raise InvalidInputError(f"at most {MAX_FILES} files, {len(files)} given", field="files")
    paths = [
        check.require_name(f"files[{n}]", path, MAX_PATH_CHARS) for n, path in enumerate(files)
    ]
    return tuple(dict.fromkeys(paths))


def require_trigger(trigger: str) -> str:
    return " ".join(check.require_name("trigger", trigger, MAX_TRIGGER_CHARS).split())


def require_hint(hint: str | None, derived: str) -> str:
    """The hint given (one line), else the derived one."""
    if hint is None or not hint.strip():
        return derived
    text = check.require_name("hint", hint, MAX_HINT_CHARS)
    if "\n" in text or "\r" in text:
        raise InvalidInputError("a hint is one line", field="hint")
    return text


# --- hints -------------------------------------------------------------------------------
def step_head(text: str) -> str:
    """A step's head for a hint: the text before its first separator, at most
    ``HEAD_WORDS`` words, lower case ("Run the tests: pnpm test" → "run the tests")."""
    head = _HEAD_END.split(text, maxsplit=1)[0].strip() or text.strip()
    return " ".join(head.lower().split()[:HEAD_WORDS])


def compact_hint(trigger: str, heads: Sequence[str]) -> str:
    """``trigger: a→b→c``, cut to ``MAX_HINT_CHARS`` (with an ellipsis) when longer."""
    hint = f"{trigger.strip().lower()}: " + ARROW.join(h for h in heads if h)
    if len(hint) <= MAX_HINT_CHARS:
        return hint
    return hint[: MAX_HINT_CHARS - 1].rstrip(ARROW + " ") + "…"


def workflow_hint(trigger: str, steps: Sequence[WorkflowStep]) -> str:
    """The derived hint of a workflow: its trigger and its steps' heads, in order."""
    return compact_hint(trigger, [step_head(step.text) for step in steps])


def pattern_hint(trigger: str, template: Sequence[TemplateSlot]) -> str:
    """The derived hint of a code pattern: its trigger and its template's values' heads."""
    return compact_hint(trigger, [step_head(slot.value) for slot in template])


def workflow_spec(trigger: str, steps: Sequence[WorkflowStep], hint: str | None) -> ProcedureSpec:
    trigger = require_trigger(trigger)
    checked = require_steps(steps)
    return ProcedureSpec(
        kind=ThoughtKind.WORKFLOW,
        trigger=trigger,
        hint=require_hint(hint, workflow_hint(trigger, checked)),
        steps=checked,
    )


def pattern_spec(
    trigger: str, template: Sequence[TemplateSlot], hint: str | None, files: Sequence[str]
) -> ProcedureSpec:
    trigger = require_trigger(trigger)
    checked = require_template(template)
    return ProcedureSpec(
        kind=ThoughtKind.CODE_PATTERN,
        trigger=trigger,
        hint=require_hint(hint, pattern_hint(trigger, checked)),
        template=checked,
        files=require_files(files),
    )


# --- retrieval ---------------------------------------------------------------------------
def wants_procedures(
    agent: str | None, activity: str | None, allowed_categories: Collection[str] | None
) -> bool:
    """Whether a reader asks for procedural hints: an executor or planner, an activity
    that executes (coding...), or an allowlist naming the ``procedural`` category."""
    if agent is not None and agent.strip().lower() in EXECUTION_AGENTS:
        return True
    if activity is not None and activity.strip().lower() in EXECUTION_ACTIVITIES:
        return True
    return allowed_categories is not None and PROCEDURAL_CATEGORY in allowed_categories


def searched_kinds(kinds: Collection[ThoughtKind], categories: Collection[str]) -> list[str] | None:
    """The kinds a search may return: those asked for; else, unless the search reads the
    ``procedural`` category, every kind but the procedural ones (None: any kind)."""
    if kinds:
        return [kind.value for kind in kinds]
    if PROCEDURAL_CATEGORY in categories:
        return None
    return [kind.value for kind in ThoughtKind if kind not in PROCEDURAL_KINDS]


def hint_line(thought: Thought) -> str:
    """The line a procedural thought shows in context: its first line (the hint)."""
    first = thought.content.strip().splitlines()[0] if thought.content.strip() else ""
    return first[:MAX_HINT_CHARS]


def procedure_item(thought: Thought, score: float, *, confidence: float = 0.5) -> Candidate:
    """A tier-3 hint: the hint line and, at the detailed levels, how to expand it (the
    ``procedure`` query with its id returns the steps or the template)."""
    hint = hint_line(thought)
    label = thought.kind.value.replace("_", " ")
    expand = f' (expand: procedure id "{thought.id}")'

    def render(level: Level) -> str:
        return f"- [{label}] {hint}" + (expand if level is not Level.INDEX else "")

    return Candidate(
        key=thought.id,
        tier=Tier.BACKGROUND,
        source="workflow",  # seed 002: tier 3 "workflow hints"
        score=score,
        renderings=Levels(render),
        covers=frozenset({thought.id}),
        confidence=confidence,
    )
