"""What the vectors of a store are: made by an embedder, or placeholders of a service
without one (TG_EMBEDDER=none, full-text search only; docs/reembedding.md)."""

from __future__ import annotations

# The name an embedder-less service records for its placeholder vectors: "none:<dimension>".
TEXT_ONLY_PREFIX = "none:"


def is_text_only(embedder_name: str) -> bool:
    """Whether vectors (or a store) recorded under this embedder name are placeholders."""
    return embedder_name.startswith(TEXT_ONLY_PREFIX)
