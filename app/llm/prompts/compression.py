"""Compress a text to a short summary and a one-line version of it."""

from __future__ import annotations

from pydantic import BaseModel, Field

from thoughtgraph.llm.prompts.base import ChatMessage, Prompt, messages

NAME = "compression"
VERSION = "1"

SYSTEM = """\
You compress memories of AI agents so they cost fewer tokens to recall. Given a text, write:
- "summary": at most {max_summary_words} words, keeping every specific value (names, \
numbers, versions, dates, commands, paths) and decision;
- "line": one line of at most {max_line_chars} characters saying what the text is about \
and its key value.
Nothing the text does not say.

Answer with a JSON object only, exactly of this form:
{{"summary": "...", "line": "..."}}"""


class Response(BaseModel):
    summary: str = Field(min_length=1)
    line: str = Field(min_length=1)


def render(text: str, max_summary_words: int = 60, max_line_chars: int = 100) -> list[ChatMessage]:
    system = SYSTEM.format(max_summary_words=max_summary_words, max_line_chars=max_line_chars)
    return messages(system, "Text:\n" + text.strip())


PROMPT = Prompt(NAME, VERSION, Response, render)
