"""What a prompt is, for :class:`thoughtgraph.llm.client.LLMClient`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, ParamSpec, TypeVar

from pydantic import BaseModel

P = ParamSpec("P")
R = TypeVar("R", bound=BaseModel)

# {"role": "system" | "user" | "assistant", "content": ...}, as chat completion APIs take.
ChatMessage = dict[str, str]


@dataclass(frozen=True)
class Prompt(Generic[P, R]):
    """A named, versioned prompt: ``render`` turns its variables into chat messages asking
    for a JSON object, which must validate against ``response_model``.

    ``temperature`` and ``max_tokens`` override the client's for this prompt alone (None:
    the client's); ``max_tokens`` only ever lowers the client's limit."""

    name: str
    version: str
    response_model: type[R]
    render: Callable[P, list[ChatMessage]]
    temperature: float | None = None
    max_tokens: int | None = None


def messages(system: str, user: str) -> list[ChatMessage]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
