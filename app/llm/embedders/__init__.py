"""Text embedders: local sentence-transformers, any litellm model, or hash vectors.

Importing this package is cheap: torch/sentence-transformers and litellm are imported
only when a model is loaded or called.
"""

from thoughtgraph.llm.embedders.base import DEFAULT_BATCH_SIZE, TextEmbedder
from thoughtgraph.llm.embedders.factory import build_embedder
from thoughtgraph.llm.embedders.hashing import DEFAULT_HASH_DIMENSION, HashEmbedder
from thoughtgraph.llm.embedders.litellm_embedder import LiteLLMEmbedder, prepare_litellm
from thoughtgraph.llm.embedders.local import LOCAL_MODEL_NAME, LocalEmbedder, bundled_model_path

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "DEFAULT_HASH_DIMENSION",
    "LOCAL_MODEL_NAME",
    "HashEmbedder",
    "LiteLLMEmbedder",
    "LocalEmbedder",
    "TextEmbedder",
    "build_embedder",
    "bundled_model_path",
    "prepare_litellm",
]
