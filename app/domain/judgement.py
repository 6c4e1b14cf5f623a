"""What the knowledge-maintenance judges take and give: pairs of thoughts, verdicts on them,
thoughts extracted from a transcript, and what the LLM calls behind them cost."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal, get_args

from pydantic import AliasChoices, Field, field_validator

from thoughtgraph.domain.models import _Frozen

RULES_DETECTOR = "rules"

ExtractedKind = Literal[
    "fact",
    "decision",
    "preference",
    "task",
    "risk",
    "code_ref",
    "insight",
    "procedure",
    "episode_note",
]
EXTRACTED_KINDS: tuple[str, ...] = get_args(ExtractedKind)


@dataclass(frozen=True, slots=True)
class PairToJudge:
    """Two similar thoughts; "older" and "newer" by when the service learned them. A plain
    dataclass: a consolidation run builds a hundred thousand, from typed values."""

    pair_id: str
    older_id: str
    older_text: str
    older_at_ms: int
    newer_id: str
    newer_text: str
    newer_at_ms: int
    similarity: float  # cosine of the two embeddings


class PairRelation(StrEnum):
    # The newer statement replaces the older: the same subject's value changed over time.
    UPDATE = "update"
    # They cannot both be true, but it is not clear that the newer replaces the older.
    CONFLICT = "conflict"
    # Both can be true, or they are about different subjects.
    COMPATIBLE = "compatible"


@dataclass(frozen=True, slots=True)
class Verdict:
    """A judge's answer on one pair (a plain dataclass, as many as pairs)."""

    pair_id: str
    relation: PairRelation
    confidence: float
    explanation: str
    detector: str  # RULES_DETECTOR or the LLM's model name

    def __post_init__(self) -> None:
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"a verdict's confidence is in [0, 1], not {self.confidence}")

    @property
    def contradicts(self) -> bool:
        return self.relation is not PairRelation.COMPATIBLE


class ExtractedThought(_Frozen):
    """One memory cell drawn from a transcript (by the LLM or the offline splitter)."""

    # The seed prompt called it "cell_type"; models sometimes answer with that name.
    kind: ExtractedKind = Field(validation_alias=AliasChoices("kind", "cell_type"))
    content: str = Field(min_length=1)
    salience: float = Field(ge=0.0, le=1.0)
    topic_hint: str | None = None

    @field_validator("kind", mode="before")
    @classmethod
    def _lower_kind(cls, value: object) -> object:
        # "Fact", " decision ": a model's casing is not worth a repair round trip.
        return value.strip().lower().replace("-", "_") if isinstance(value, str) else value


class LLMUsage(_Frozen):
    """What LLM calls cost: provider calls, tokens, dollars (0 when the price is unknown),
    and how many answers came from the cache instead."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cached_answers: int = 0

    def add(self, other: LLMUsage) -> LLMUsage:
        return LLMUsage(
            calls=self.calls + other.calls,
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            cost_usd=self.cost_usd + other.cost_usd,
            cached_answers=self.cached_answers + other.cached_answers,
        )


@dataclass(eq=False)  # a meter is itself: compared by identity (it links to its parent)
class UsageMeter:
    """Counts LLM usage for one run and holds its call budget.

    The run's meter gives each namespace a meter of its own (:meth:`for_namespace`) with
    the same budget (``llm_max_calls_per_run`` is per namespace and run); what a namespace
    meter records is added to the run's totals too. ``max_calls`` None means no budget.
    """

    max_calls: int | None = None
    namespace: str | None = None
    usage: LLMUsage = field(default_factory=LLMUsage)
    spent: int = 0  # calls granted by try_spend
    _parent: UsageMeter | None = field(default=None, repr=False)
    _children: dict[str, UsageMeter] = field(default_factory=dict, repr=False)

    def for_namespace(self, namespace: str) -> UsageMeter:
        child = self._children.get(namespace)
        if child is None:
            child = UsageMeter(max_calls=self.max_calls, namespace=namespace, _parent=self)
            self._children[namespace] = child
        return child

    @property
    def by_namespace(self) -> dict[str, LLMUsage]:
        return {name: child.usage for name, child in sorted(self._children.items())}

    @property
    def remaining(self) -> int | None:
        return None if self.max_calls is None else max(0, self.max_calls - self.spent)

    @property
    def exhausted(self) -> bool:
        return self.remaining == 0

    def try_spend(self) -> bool:
        """Take one call from the budget; False (nothing taken) once it is used up."""
        if self.exhausted:
            return False
        self.spent += 1
        return True

    def record(self, usage: LLMUsage) -> None:
        self.usage = self.usage.add(usage)
        if self._parent is not None:
            self._parent.record(usage)
