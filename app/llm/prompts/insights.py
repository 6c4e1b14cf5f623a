"""Insights about a person (seed 001 §3): from their latest activity, their new facts and a
recent snippet of conversation, 1 to 3 short third-person insights into how they relate,
trust, feel and what they come to prefer. Deterministic and short: temperature 0, at most
220 output tokens."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field, field_validator

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.models import _Frozen, ms_to_datetime
from thoughtgraph.domain.writing import MAX_CHARS, Style, checked
from thoughtgraph.llm.prompts.base import ChatMessage, Prompt, messages

NAME = "insights"
VERSION = "1"
TEMPERATURE = 0.0
MAX_TOKENS = 220
# What one prompt is given at most.
MAX_ACTIVITY = 5
MAX_FACTS = 3
MAX_SNIPPET_CHARS = 1_000
MAX_INSIGHTS = 3
MAX_TAGS = 5
MAX_TAG_CHARS = 40

SYSTEM = """\
You maintain the long-term memory of AI agents. You are given what the memory recently \
recorded about one person: their latest activity (newest first), the facts learned about \
them since their last insight, and a recent snippet of conversation. Write 1 to {most} \
insights about the person: how they relate to the agents and to others, what builds or \
costs their trust, their emotions, how their preferences and working style evolve.

Rules:
- Third person: name the person ("{person} ..."); never "I", "we", "our" or "you": the \
AI does not speak and does not address anyone.
- Each insight 1-2 sentences, at most {max_chars} characters.
- Only what the input supports: no speculation, no advice, no restating a fact as it is.
- "tags": 1 to {max_tags} short lowercase words ("trust", "style", "mood").
- "importance": 2.

Answer with a JSON object only, exactly of this form:
{{"insights": [{{"summary": "...", "tags": ["..."], "importance": 2}}]}}"""


class ThoughtForInsight(_Frozen):
    kind: str
    text: str
    at_ms: int  # when the service learned it


InsightText = Annotated[str, AfterValidator(checked(Style.INSIGHT))]


class Insight(BaseModel):
    summary: InsightText
    tags: list[str] = Field(default_factory=list)
    importance: int = 2  # asked for; what is stored is the job's (always 2)

    @field_validator("tags", mode="before")
    @classmethod
    def _tags(cls, value: object) -> list[str]:
        """Short words kept, the rest dropped: a bad tag must not cost the insight."""
        if not isinstance(value, list):
            return []
        kept: list[str] = []
        for tag in value:
            word = " ".join(tag.lower().split()) if isinstance(tag, str) else ""
            if len(word) > MAX_TAG_CHARS or word in kept:
                continue
            try:
                kept.append(check.require_tag("tags", word))
            except InvalidInputError:
                continue
        return kept[:MAX_TAGS]


class Response(BaseModel):
    insights: list[Insight] = Field(min_length=1, max_length=MAX_INSIGHTS)


def _item(thought: ThoughtForInsight) -> dict[str, str]:
    return {
        "kind": thought.kind,
        "learned": ms_to_datetime(thought.at_ms).strftime("%Y-%m-%d"),
        "text": thought.text,
    }


def snippet_of(text: str) -> str:
    """The last MAX_SNIPPET_CHARS of a conversation (its most recent part), whitespace
    normalised."""
    body = " ".join(text.split())
    if len(body) <= MAX_SNIPPET_CHARS:
        return body
    return "…" + body[-(MAX_SNIPPET_CHARS - 1) :]


def render(
    person: str,
    activity: Sequence[ThoughtForInsight],
    facts: Sequence[ThoughtForInsight],
    snippet: str,
) -> list[ChatMessage]:
    """The prompt holds at most MAX_ACTIVITY items of activity, MAX_FACTS new facts and
    MAX_SNIPPET_CHARS of snippet, whatever it is given."""
    system = SYSTEM.format(person=person, most=MAX_INSIGHTS, max_chars=MAX_CHARS, max_tags=MAX_TAGS)
    user = (
        f"Person: {person}\n"
        "Latest activity (newest first):\n"
        + json.dumps([_item(t) for t in activity[:MAX_ACTIVITY]], ensure_ascii=False, indent=1)
        + "\nNew facts:\n"
        + json.dumps([_item(t) for t in facts[:MAX_FACTS]], ensure_ascii=False, indent=1)
        + "\nRecent conversation:\n"
        + json.dumps(snippet_of(snippet), ensure_ascii=False)
    )
    return messages(system, user)


PROMPT = Prompt(NAME, VERSION, Response, render, temperature=TEMPERATURE, max_tokens=MAX_TOKENS)
