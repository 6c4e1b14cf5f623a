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
    for a JSON object, which must validate against ``response_model``."""

    name: str
    version: str
    response_model: type[R]
    render: Callable[P, list[ChatMessage]]


def messages(system: str, user: str) -> list[ChatMessage]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
