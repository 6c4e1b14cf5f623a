"""The vocabulary of context assembly: tiers, compression levels, signals, candidates and
what an assembly returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum, StrEnum


class Tier(IntEnum):
    """The four tiers, filled in this order."""

    CRITICAL = 1  # open contradictions, decisions for the file or task, errors and fixes
    RELEVANT = 2  # query and signal matches, related decisions, collaborators' preferences
    BACKGROUND = 3  # conventions, topic summaries, workflow hints
    INDEX = 4  # "ask me about": topics, with pointers to expand


class Level(StrEnum):
    """Compression levels, most detailed first."""

    FULL = "full"
    SUMMARY = "summary"
    COMPRESSED = "compressed"
    INDEX = "index"


LEVELS = (Level.FULL, Level.SUMMARY, Level.COMPRESSED, Level.INDEX)
# The most detailed level each tier renders at; an item that does not fit is tried at the
# next levels down before it is left out.
TIER_LEVEL: Mapping[Tier, Level] = {
    Tier.CRITICAL: Level.FULL,
    Tier.RELEVANT: Level.SUMMARY,
    Tier.BACKGROUND: Level.COMPRESSED,
    Tier.INDEX: Level.INDEX,
}
TIER_TITLES: Mapping[Tier, str] = {
    Tier.CRITICAL: "## Critical",
    Tier.RELEVANT: "## Relevant",
    Tier.BACKGROUND: "## Background",
    Tier.INDEX: "## Ask me about (expand with topic(id) or search)",
}


def levels_from(level: Level) -> tuple[Level, ...]:
    return LEVELS[LEVELS.index(level) :]


@dataclass(frozen=True)
class Signals:
    """What the agent is doing now."""

    query: str | None = None
    current_file: str | None = None
    branch: str | None = None
    recent_errors: tuple[str, ...] = ()
    activity: str | None = None
    agent: str | None = None
    collaborators: tuple[str, ...] = ()


@dataclass(frozen=True)
class Candidate:
    """Something worth loading, with its text at each compression level it has.

    ``covers`` are the ids it shows (its thoughts, topic or contradiction): an item is left
    out when anything it covers is already in the context, so nothing appears twice.
    """

    key: str
    tier: Tier
    source: str  # why it was picked: contradiction, decision, error, query, preference...
    score: float  # rank within its tier, higher first
    renderings: Mapping[Level, str]
    covers: frozenset[str]
    confidence: float = 0.5  # how sure the prediction is that it will be needed

    def text_at(self, level: Level) -> str | None:
        return self.renderings.get(level)


@dataclass(frozen=True)
class PackedItem:
    candidate: Candidate
    tier: Tier
    level: Level
    line: str
    tokens: int


@dataclass(frozen=True)
class TierUsage:
    tier: Tier
    budget: int  # what the tier was given, including what earlier tiers left unused
    items: int
    tokens: int
    returned: int = 0  # of its budget, what it took back of the later tiers' unused share


@dataclass(frozen=True)
class Packing:
    """The packed context: text, its exact token count and what went where."""

    text: str
    token_count: int
    budget: int
    items: tuple[PackedItem, ...]
    tiers: tuple[TierUsage, ...]
    header_tokens: int = 0
    trimmed: int = 0  # items dropped because the whole text counted more than its parts

    @property
    def ids(self) -> list[str]:
        """Every id the context shows, in order of appearance, each once."""
        seen: dict[str, None] = {}
        for item in self.items:
            for covered in sorted(item.candidate.covers):
                seen.setdefault(covered, None)
        return list(seen)


@dataclass(frozen=True)
class DeltaHeader:
    since_revision: int
    revision: int
    counts: Mapping[str, int]
    bullets: tuple[str, ...]
    truncated: bool = False  # more events than were read: counts are lower bounds

    def render(self) -> str:
        return "\n".join([self.title, *self.bullets])

    @property
    def title(self) -> str:
        plus = "+" if self.truncated else ""
        shown = ", ".join(f"{n}{plus} {category}" for category, n in self.counts.items())
        return f"Memory updates since rev {self.since_revision}: {shown} (now rev {self.revision})"


@dataclass(frozen=True)
class AssembledContext:
    packing: Packing
    tokenizer: str
    revision: int
    delta: DeltaHeader | None = None
    candidates: int = 0  # items considered before packing
