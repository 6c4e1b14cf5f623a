"""What a search may ask for (filters, retrieval mode, two-tier results) and what it
explains about each hit. Shared by GraphQL, MCP, recall and context assembly, which all
call ``SearchService.search`` with these models."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from thoughtgraph.domain.knowledge import Topic
from thoughtgraph.domain.models import SearchHit, ThoughtKind, ThoughtState

# What a search returns when the caller names no k (every interface shows this default).
DEFAULT_SEARCH_K = 10
# The tiered search's thoughts and topics when the caller names none.
DEFAULT_TIERED_K = 7
# Related thoughts listed when the caller names no count.
DEFAULT_RELATED_FIRST = 10
MAX_TOPIC_LIMIT = 10

MAX_LIMIT = 25
DEFAULT_TOPIC_LIMIT = 3


class RetentionTier(StrEnum):
    """How alive a thought is, from its retention score."""

    HOT = "hot"
    WARM = "warm"
    COLD = "cold"
    ARCHIVED = "archived"


class RetrievalMode(StrEnum):
    """Which tiers a search reaches."""

    REFLEXIVE = "reflexive"  # hot only: automatic injection
    STANDARD = "standard"  # hot and warm: the default
    DEEP = "deep"  # and cold: explicit historical questions
    EXHAUSTIVE = "exhaustive"  # and archived and forgotten (soft-deleted): audit


class DetailLevel(StrEnum):
    """Seed 004: ``summary`` returns topic summaries only, ``full`` summaries then
    thoughts."""

    SUMMARY = "summary"
    FULL = "full"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class SearchFilter(_Frozen):
    """Narrows the candidates inside the store (every given field must match); None and
    empty lists mean no constraint. ``tags``: the thought carries every one of them;
    ``updated_*``: its last write (its creation: thoughts are immutable, changes make new
    ones); ``states``: only meaningful in exhaustive mode, the one that reaches forgotten
    thoughts."""

    kinds: tuple[ThoughtKind, ...] = ()
    categories: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    agent_id: str | None = None
    importance_min: int | None = None
    importance_max: int | None = None
    pinned: bool | None = None
    updated_after_ms: int | None = None
    updated_before_ms: int | None = None
    states: tuple[ThoughtState, ...] = ()
    current_only: bool = False  # also settable through the time view

    @property
    def narrows(self) -> bool:
        """Whether it can leave out thoughts the vector index ranks first (the search
        then starts with a wider beam; a mode's tiers do not count: they usually leave
        most thoughts in, and widening covers the rest)."""
        return self != SearchFilter()


class RetrievalOptions(_Frozen):
    """Everything beyond the query, k and threshold. The default is hybrid search with
    the priors, lineage and supersession adjustments (``hybrid=False``: vector search,
    the evaluation's baseline); ``expand`` adds the graph expansion (together: the full
    retrieval)."""

    filter: SearchFilter = SearchFilter()
    mode: RetrievalMode = RetrievalMode.STANDARD
    # Full-text and vector candidates, scored by cosine plus a full-text bonus and the
    # priors (domain.ranking.scoring).
    hybrid: bool = True
    # Graph expansion of the pool (features.search.expanded): a few statements and
    # embeddings more per search. None: when the hits come from conversation sessions
    # (what a caller who leaves it out gets).
    expand: bool | None = False
    record_access: bool = True  # count the hits as retrieved (usage tracking)


class ScoreExplanation(_Frozen):
    """How a hit's score came about (app/domain/ranking/scoring.py): ``score = min(1,
    relevance x prior_factor x lineage_factor) x supersession_factor x kind_factor``, where
    ``relevance`` fuses the scaled cosine and the scaled BM25 of the query's words,
    ``prior_factor = 0.9 + 0.1 prior`` and ``prior`` weighs the four priors."""

    vector_rank: int | None  # 1-based rank among the vector candidates, None if absent
    text_rank: int | None  # among the full-text candidates
    text_score: float | None  # the engine's own full-text score
    keyword_score: float  # BM25 of the query's words, scored by the service
    fusion: float  # reciprocal rank fusion of the two lists, raw (reported, not scored)
    relevance: float  # 0.55 x scaled cosine + 0.45 x scaled BM25, 0..1 (scoring.py)
    salience_decay: float  # salience x exp(-0.01 x age_days)
    usage: float  # the retention score: recency of use, retrievals, cites, ignores
    pheromone: float  # 1 - 1/weight: what refinements and use earned it, 0..1
    related: float  # strongest RELATED_TO link to another candidate, 0..1
    prior: float
    prior_factor: float
    lineage_factor: float  # x0.7 refined, x1.2 refines a refined hit, else 1
    supersession_factor: float  # superseded_rank_factor when superseded, else 1
    kind_factor: float = 1.0  # insight_rank_factor for an insight, else 1
    score: float


class RankedHit(SearchHit):
    """A search hit with its retention and, from hybrid search, the components of its
    score; a SearchHit everywhere one is expected."""

    retention: float = 1.0
    tier: RetentionTier = RetentionTier.HOT
    explanation: ScoreExplanation | None = None


class TopicHit(_Frozen):
    topic: Topic
    similarity: float  # cosine similarity of its summary to the query, 0..1


class TieredResult(_Frozen):
    """The two tiers: topic summaries first, then thoughts (none at ``summary``)."""

    topics: tuple[TopicHit, ...]
    thoughts: tuple[RankedHit, ...]
    detail_level: DetailLevel


class UsagePolicy(_Frozen):
    """Retention scoring and the tier thresholds, from settings."""

    half_life_days: float = Field(default=30.0, gt=0)
    activation_boost: float = Field(default=0.1, ge=0)
    cite_weight: float = Field(default=3.0, ge=0)  # a citation counts as this many retrievals
    ignore_penalty: float = Field(default=0.5, ge=0)  # each ignore divides by (1 + this)
    hot_threshold: float = 0.6
    warm_threshold: float = 0.3
    cold_threshold: float = 0.1
