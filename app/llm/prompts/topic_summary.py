"""Summarise what a topic's thoughts say now: newer wins, specific values kept."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field

from thoughtgraph.domain.models import _Frozen, ms_to_datetime
from thoughtgraph.domain.writing import Style, checked
from thoughtgraph.llm.prompts.base import ChatMessage, Prompt, messages

NAME = "topic_summary"
VERSION = "3"  # 3: the writing rules (domain/writing.py) in the text and the answer

SYSTEM = """\
You maintain the long-term memory of AI agents. You are given the thoughts (short \
statements) filed under one topic, oldest first, each with an id and the date it was \
learned. Write the topic's summary: what is true now, as one paragraph; and the topic's name.

Rules:
- Newer wins: when two thoughts disagree about the same thing, keep the newer one's value \
and list the older thought's id in "superseded_ids".
- Keep specific values: names, numbers, ports, versions, dates, hostnames, commands.
- No preamble ("This topic is about..."), no speculation, nothing the thoughts do not say.
- A neutral, third-person paragraph: never "I", "we" or "you".
- At most {max_words} words.
- The name: what a person would title the topic, a noun phrase of 1 to 4 words \
("Pottery Class", "Kubernetes Upgrade", "Lisbon Trip"), no verbs, no filler words.

Answer with a JSON object only, exactly of this form:
{{"name": "...", "summary": "...", "superseded_ids": ["id", ...]}}"""


class ThoughtForSummary(_Frozen):
    id: str
    text: str
    at_ms: int  # when the service learned it


class Response(BaseModel):
    # Checked by the caller (keyphrases.valid_name), which falls back to the offline name:
    # a bad name must not cost the summary.
    name: str | None = None
    summary: Annotated[str, Field(min_length=1), AfterValidator(checked(Style.SUMMARY))]
    superseded_ids: list[str] = Field(default_factory=list)


def render(
    thoughts: Sequence[ThoughtForSummary], max_words: int, topic: str | None = None
) -> list[ChatMessage]:
    ordered = sorted(thoughts, key=lambda thought: (thought.at_ms, thought.id))
    items = [
        {
            "id": thought.id,
            "learned": ms_to_datetime(thought.at_ms).strftime("%Y-%m-%d"),
            "text": thought.text,
        }
        for thought in ordered
    ]
    heading = f"Topic: {topic}\n" if topic else ""
    user = heading + "Thoughts:\n" + json.dumps(items, ensure_ascii=False, indent=1)
    return messages(SYSTEM.format(max_words=max_words), user)


PROMPT = Prompt(NAME, VERSION, Response, render)
