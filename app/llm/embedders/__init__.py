"""Text embedders: local sentence-transformers, any litellm model, or hash vectors.

Importing this package is cheap: torch/sentence-transformers and litellm are imported
only when a model is loaded or called.
"""

from app.llm.embedders.base import DEFAULT_BATCH_SIZE, TextEmbedder
from app.llm.embedders.factory import build_embedder
from app.llm.embedders.hashing import DEFAULT_HASH_DIMENSION, HashEmbedder
from app.llm.embedders.litellm_embedder import LiteLLMEmbedder, prepare_litellm
from app.llm.embedders.local import LOCAL_MODEL_NAME, LocalEmbedder, bundled_model_path

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
