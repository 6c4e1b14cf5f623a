"""Answer a question from retrieved memories, resolving relative dates against when each
memory was written."""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import BaseModel, Field

from thoughtgraph.domain.models import _Frozen
from thoughtgraph.llm.prompts.base import ChatMessage, Prompt, messages

NAME = "recall"
VERSION = "1"

SYSTEM = """\
You answer questions from the long-term memory of AI agents. You are given a question and \
the memories retrieved for it, most relevant first. Each memory has an id, the date it was \
written, its text, whether a newer memory replaced it, and the relative time expressions \
in its text ("yesterday", "last week", ...) already resolved against the date it was \
written.

Rules:
- Use only the memories. If they do not answer the question, say so and give a low \
confidence.
- Relative times are relative to when the memory was written, never to today: "yesterday" \
in a memory written on 2023-05-08 means 2023-05-07. Use the resolved dates given.
- Prefer current memories over replaced ones, unless the question asks about the past.
- "sources" lists the ids of the memories the answer rests on, and only those.
- "requires_inference" is true when the answer needed reasoning beyond copying a memory \
(resolving a date, combining memories).

Answer with a JSON object only, exactly of this form:
{"answer": "...", "confidence": 0.0-1.0, "reasoning": "one or two sentences", \
"sources": ["id", ...], "requires_inference": true | false}"""


class MemoryForRecall(_Frozen):
    id: str
    written: str  # YYYY-MM-DD, UTC: the memory's valid-from day
    text: str
    replaced: bool = False
    resolved: tuple[str, ...] = ()  # '"yesterday" = 2023-05-07'


class Response(BaseModel):
    answer: str = Field(min_length=1)
    confidence: float = Field(ge=0.0, le=1.0)
    reasoning: str = ""
    sources: list[str] = Field(default_factory=list)
    requires_inference: bool = False


def render(question: str, memories: Sequence[MemoryForRecall]) -> list[ChatMessage]:
    items = [
        {
            "id": memory.id,
            "written": memory.written,
            "text": memory.text,
            **({"replaced": True} if memory.replaced else {}),
            **({"resolved": list(memory.resolved)} if memory.resolved else {}),
        }
        for memory in memories
    ]
    user = f"Question: {question}\nMemories:\n" + json.dumps(items, ensure_ascii=False, indent=1)
    return messages(SYSTEM, user)


PROMPT = Prompt(NAME, VERSION, Response, render)
