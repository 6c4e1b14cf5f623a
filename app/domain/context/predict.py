"""Predictive prefetch: what an assembly for these signals would load, each
item with how sure the prediction is that it will be needed (its candidate's
confidence). Pure."""

from __future__ import annotations

from dataclasses import dataclass

from thoughtgraph.domain.context.model import PackedItem, Packing


@dataclass(frozen=True)
class Prediction:
    items: tuple[PackedItem, ...]
    confidence: float  # token-weighted mean of the items' confidence; 0 when empty
    token_count: int
    tokenizer: str


def predict(packing: Packing, tokenizer: str) -> Prediction:
    weight = sum(item.tokens for item in packing.items)
    overall = (
        sum(item.candidate.confidence * item.tokens for item in packing.items) / weight
        if weight
        else 0.0
    )
    return Prediction(
        items=packing.items,
        confidence=round(overall, 3),
        token_count=packing.token_count,
        tokenizer=tokenizer,
    )
