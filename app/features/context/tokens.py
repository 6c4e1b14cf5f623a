"""Token counts with the configured model's tokenizer, through litellm, offline.

litellm ships the tiktoken files (cl100k_base, o200k_base, ...) and Anthropic's tokenizer
in its package and points tiktoken's cache at them, so counting never downloads anything
(``LITELLM_LOCAL_MODEL_COST_MAP=True`` keeps its model map local too). Models whose
tokenizer lives on the Hugging Face hub (Llama, Cohere) cannot be loaded offline; litellm
then counts with tiktoken, and ``name`` says so.

``litellm.token_counter(model, text=...)`` is the authority: ``litellm.encode`` uses
cl100k_base for every OpenAI model (gpt-4o's o200k_base included), so the two can differ.

Importing litellm costs seconds, so a counter imports it on first use, not when built:
every process builds one at start (``build_services``), few of them count. Async callers
``await load()`` first, which does that import in a thread: the event loop serving other
requests never waits for it.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from functools import cached_property

from thoughtgraph.llm.embedders.litellm_embedder import prepare_litellm

# The tokenizer used when no model is configured: gpt-4o's o200k_base, shipped with litellm.
DEFAULT_TOKENIZER_MODEL = "gpt-4o"
_CACHE_SIZE = 4096


def tokenizer_model(model: str) -> str:
    """The name litellm picks the tokenizer by: a provider prefix litellm's counter does
    not understand is dropped for models it knows bare ("openai/gpt-4o-mini" would
    otherwise be counted as gpt-3.5-turbo, with cl100k_base instead of o200k_base)."""
    _, _, bare = model.partition("/")
    if not bare:
        return model
    prepare_litellm()
    import litellm

    known = set(litellm.open_ai_chat_completion_models) | set(litellm.anthropic_models)
    return bare if bare in known else model


def tokenizer_name(model: str) -> str:
    """Which tokenizer litellm counts ``model`` with, without loading it."""
    prepare_litellm()
    try:
        from litellm.litellm_core_utils.token_counter import openai_tokenizer_encoding_name
        from litellm.utils import huggingface_tokenizer_kind
    except ImportError:  # another litellm layout: the model name is all we can say
        return model
    kind = huggingface_tokenizer_kind(model)
    if kind == "anthropic":
        return f"{model} (anthropic, bundled)"
    if kind is not None:
        # Hub tokenizers are not shipped: offline, litellm falls back to tiktoken.
        return f"{model} ({kind} from the hub, else cl100k_base)"
    return f"{model} ({openai_tokenizer_encoding_name(model)})"


def import_tokenizers() -> None:
    """Import litellm (seconds), blocking: a service starts this in a thread at once."""
    prepare_litellm()
    import litellm  # noqa: F401


class TokenCounter:
    """Counts tokens of texts for one model; remembers recent texts (items are counted
    again and again as they are tried at several compression levels)."""

    def __init__(self, model: str | None = None) -> None:
        self._configured = model or DEFAULT_TOKENIZER_MODEL
        self.is_default = model is None
        self._cache: OrderedDict[str, int] = OrderedDict()

    @cached_property
    def model(self) -> str:
        return tokenizer_model(self._configured)

    @cached_property
    def name(self) -> str:
        return tokenizer_name(self.model)

    @cached_property
    def _count(self) -> Callable[[str], int]:
        return _litellm_counter(self.model)

    async def load(self) -> None:
        """Import litellm and load the tokenizer off the event loop (once)."""
        if "_count" not in self.__dict__:
            await asyncio.to_thread(self._load)

    def _load(self) -> None:
        self.model, self.name, self._count  # noqa: B018 - cached on first access

    async def warm(self) -> None:
        """Load the tokenizer and count once (the first count reads its files), off the
        event loop: a service does this as it starts, so that its first assembled
        contexts do not wait seconds for it (they all did, on a fresh service)."""
        await self.load()
        await asyncio.to_thread(self._count, "warm up")

    def __call__(self, text: str) -> int:
        if not text:
            return 0
        found = self._cache.get(text)
        if found is not None:
            self._cache.move_to_end(text)
            return found
        counted = self._count(text)
        self._cache[text] = counted
        if len(self._cache) > _CACHE_SIZE:
            self._cache.popitem(last=False)
        return counted


def _litellm_counter(model: str) -> Callable[[str], int]:
    prepare_litellm()
    import litellm

    def count(text: str) -> int:
        return int(litellm.token_counter(model=model, text=text))

    return count
