"""Input and output types of context assembly."""

from __future__ import annotations

import strawberry

from thoughtgraph.domain.context import model
from thoughtgraph.domain.context.predict import Prediction
from thoughtgraph.domain.context.session_block import Injection
from thoughtgraph.domain.context.session_block import SessionBlock as DomainBlock

strawberry.enum(
    model.Level,
    name="CompressionLevel",
    description="How much of an item is shown: full, summary, compressed or index.",
)

TIER_NAMES = {
    model.Tier.CRITICAL: "critical",
    model.Tier.RELEVANT: "relevant",
    model.Tier.BACKGROUND: "background",
    model.Tier.INDEX: "index",
}


@strawberry.input(description="What the agent is doing now; every field is optional.")
class ContextSignalsInput:
    query: str | None = None
    current_file: str | None = None
    branch: str | None = None
    recent_errors: list[str] | None = strawberry.field(
        default=None, description="Newest first; up to 20, the first 5 are looked up."
    )
    activity: str | None = strawberry.field(
        default=None, description='"debugging" widens tier 1; "onboarding" tiers 3 and 4.'
    )
    agent: str | None = strawberry.field(
        default=None, description="The agent the context is for (its open tasks are loaded)."
    )
    collaborators: list[str] | None = strawberry.field(
        default=None, description="Agent ids whose preferences are loaded into tier 2."
    )

    def to_domain(self) -> model.Signals:
        return model.Signals(
            query=self.query,
            current_file=self.current_file,
            branch=self.branch,
            recent_errors=tuple(self.recent_errors or ()),
            activity=self.activity,
            agent=self.agent,
            collaborators=tuple(self.collaborators or ()),
        )


def signals_of(given: ContextSignalsInput | None) -> model.Signals:
    return given.to_domain() if given is not None else model.Signals()


@strawberry.type(description="What one tier was given and used.")
class TierUsage:
    tier: int
    name: str
    budget: int = strawberry.field(description="Its share plus what earlier tiers left unused.")
    items: int
    tokens: int = strawberry.field(description="Tokens of the tier's section on its own.")

    @classmethod
    def from_domain(cls, usage: model.TierUsage) -> TierUsage:
        return cls(
            tier=int(usage.tier),
            name=TIER_NAMES[usage.tier],
            budget=usage.budget,
            items=usage.items,
            tokens=usage.tokens,
        )


@strawberry.type(description="One item of the context.")
class ContextItem:
    key: strawberry.ID = strawberry.field(description="A thought, contradiction or topic id.")
    tier: int
    source: str = strawberry.field(
        description="Why it was loaded: contradiction, decision, error, query, task,"
        " related_decision, preference, convention, workflow, topic_summary, topic_index."
    )
    level: model.Level
    tokens: int
    ids: list[strawberry.ID] = strawberry.field(description="Every id the item shows.")
    text: str
    confidence: float = strawberry.field(
        description="How sure the prediction is that the item will be needed (0 to 1)."
    )

    @classmethod
    def from_packed(cls, item: model.PackedItem) -> ContextItem:
        return cls(
            key=strawberry.ID(item.candidate.key),
            tier=int(item.tier),
            source=item.candidate.source,
            level=item.level,
            tokens=item.tokens,
            ids=[strawberry.ID(i) for i in sorted(item.candidate.covers)],
            text=item.line,
            confidence=item.candidate.confidence,
        )


@strawberry.type(description="How many changes of one category the delta header counts.")
class DeltaCount:
    category: str
    count: int


@strawberry.type(description="What changed since the caller's revision (at most 3 bullets).")
class DeltaHeader:
    since_revision: int
    revision: int
    counts: list[DeltaCount]
    bullets: list[str]
    truncated: bool = strawberry.field(description="More changes than were read.")
    text: str

    @classmethod
    def from_domain(cls, delta: model.DeltaHeader) -> DeltaHeader:
        return cls(
            since_revision=delta.since_revision,
            revision=delta.revision,
            counts=[DeltaCount(category=c, count=n) for c, n in delta.counts.items()],
            bullets=list(delta.bullets),
            truncated=delta.truncated,
            text=delta.render(),
        )


@strawberry.type(description="Context for an agent, tier by tier, within a token budget.")
class AssembledContext:
    text: str
    token_count: int = strawberry.field(description="Exact: the tokenizer run on `text`.")
    budget: int
    tokenizer: str = strawberry.field(description="The tokenizer tokens are counted with.")
    revision: int = strawberry.field(
        description="The namespace's revision when assembled: pass it as sinceRevision next."
    )
    tiers: list[TierUsage]
    ids: list[strawberry.ID]
    items: list[ContextItem]
    delta: DeltaHeader | None
    candidates: int = strawberry.field(description="Items considered before packing.")

    @classmethod
    def from_domain(cls, assembled: model.AssembledContext) -> AssembledContext:
        packing = assembled.packing
        return cls(
            text=packing.text,
            token_count=packing.token_count,
            budget=packing.budget,
            tokenizer=assembled.tokenizer,
            revision=assembled.revision,
            tiers=[TierUsage.from_domain(t) for t in packing.tiers],
            ids=[strawberry.ID(i) for i in packing.ids],
            items=[ContextItem.from_packed(item) for item in packing.items],
            delta=DeltaHeader.from_domain(assembled.delta) if assembled.delta else None,
            candidates=assembled.candidates,
        )


@strawberry.type(description="What assembleContext would load for these signals.")
class PredictedContext:
    items: list[ContextItem]
    confidence: float = strawberry.field(description="Token-weighted mean of the items'.")
    token_count: int
    tokenizer: str

    @classmethod
    def from_domain(cls, prediction: Prediction) -> PredictedContext:
        return cls(
            items=[ContextItem.from_packed(item) for item in prediction.items],
            confidence=prediction.confidence,
            token_count=prediction.token_count,
            tokenizer=prediction.tokenizer,
        )


@strawberry.type(description="The tagged session-start block, tags within its budget.")
class SessionBlock:
    text: str
    version: str = strawberry.field(description="A hash of the content: same memory, same hash.")
    token_count: int
    budget: int
    revision: int
    ids: list[strawberry.ID]

    @classmethod
    def build(
        cls, block: DomainBlock, assembled: model.AssembledContext, tokens: int, budget: int
    ) -> SessionBlock:
        return cls(
            text=block.text,
            version=block.version,
            token_count=tokens,
            budget=budget,
            revision=assembled.revision,
            ids=[strawberry.ID(i) for i in assembled.packing.ids],
        )


@strawberry.type(description="A text with exactly one session block.")
class SessionInjection:
    text: str
    version: str
    replaced: int = strawberry.field(description="Blocks found and replaced (0: added).")
    changed: bool = strawberry.field(description="Whether the text differs from the one given.")

    @classmethod
    def from_domain(cls, injection: Injection) -> SessionInjection:
        return cls(
            text=injection.text,
            version=injection.version,
            replaced=injection.replaced,
            changed=injection.changed,
        )
