"""Predictive prefetch (seed 002): what an assembly for these signals would load, each
item with how sure the prediction is that it will be needed. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from app.context.model import Level, Packing, Tier


@dataclass(frozen=True)
class PredictedItem:
    key: str
    tier: Tier
    source: str
    level: Level
    confidence: float
    preview: str
    ids: tuple[str, ...]
    tokens: int


@dataclass(frozen=True)
class Prediction:
    items: tuple[PredictedItem, ...]
    confidence: float  # token-weighted mean of the items' confidence; 0 when empty
    token_count: int
    tokenizer: str


def predict(packing: Packing, tokenizer: str) -> Prediction:
    items = tuple(
        PredictedItem(
            key=item.candidate.key,
            tier=item.tier,
            source=item.candidate.source,
            level=item.level,
            confidence=item.candidate.confidence,
            preview=item.line,
            ids=tuple(sorted(item.candidate.covers)),
            tokens=item.tokens,
        )
        for item in packing.items
    )
    weight = sum(item.tokens for item in items)
    overall = sum(item.confidence * item.tokens for item in items) / weight if weight else 0.0
    return Prediction(
        items=items,
        confidence=round(overall, 3),
        token_count=packing.token_count,
        tokenizer=tokenizer,
    )
