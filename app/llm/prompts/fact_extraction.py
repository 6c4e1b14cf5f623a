"""Split a long contribution into the durable facts it states (seed 001 §13)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field

from thoughtgraph.domain.writing import MAX_CHARS, Style, checked
from thoughtgraph.llm.prompts.base import ChatMessage, Prompt, messages

NAME = "fact_extraction"
VERSION = "1"
MAX_CANDIDATES = 5

SYSTEM = f"""\
You maintain the long-term memory of AI agents. Split the contribution below into the \
durable facts it states: things worth remembering later (decisions, preferences, \
settings, plans, who does what), at most {MAX_CANDIDATES}.

Each fact:
- "content": a complete, self-contained, third-person statement that names its subject, \
with no pronouns; neutral tone; 1-2 sentences; at most {MAX_CHARS} characters; keep \
specific values (names, numbers, versions, dates, paths);
- "category": one or two words naming what it is about, or null;
- "importance": 1 (trivia) to 5 (critical).

Leave out greetings, questions, opinions about the conversation and anything the \
contribution does not say. No facts at all is a valid answer.

Answer with a JSON object only, exactly of this form:
{{"facts": [{{"content": "...", "category": "...", "importance": 3}}]}}"""


class Fact(BaseModel):
    content: Annotated[str, AfterValidator(checked(Style.SEMANTIC))]
    category: str | None = Field(default=None, max_length=64)
    importance: int = Field(default=3, ge=1, le=5)


class Response(BaseModel):
    facts: list[Fact] = Field(default_factory=list, max_length=MAX_CANDIDATES)


def render(contribution: str) -> list[ChatMessage]:
    return messages(SYSTEM, "Contribution:\n" + contribution.strip())


PROMPT = Prompt(NAME, VERSION, Response, render, temperature=0.0, max_tokens=600)
