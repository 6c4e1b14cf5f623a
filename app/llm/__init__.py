"""Model access: text embedders now, LLM features later.

Heavy libraries (torch, sentence-transformers, litellm) load lazily, on first use.
"""

from thoughtgraph.llm.embedders import (
    HashEmbedder,
    LiteLLMEmbedder,
    LocalEmbedder,
    TextEmbedder,
    build_embedder,
    prepare_litellm,
)

__all__ = [
    "HashEmbedder",
    "LiteLLMEmbedder",
    "LocalEmbedder",
    "TextEmbedder",
    "build_embedder",
    "prepare_litellm",
]
