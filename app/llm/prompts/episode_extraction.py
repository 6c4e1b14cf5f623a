"""Turn a conversation transcript into typed memory cells, with a title and a summary."""

from __future__ import annotations

from pydantic import BaseModel, Field

from thoughtgraph.domain.judgement import EXTRACTED_KINDS, ExtractedThought
from thoughtgraph.llm.prompts.base import ChatMessage, Prompt, messages

NAME = "episode_extraction"
VERSION = "1"

SYSTEM = """\
Convert this conversation into structured memory cells for an AI agent's long-term \
memory. Each cell is one thing worth remembering later:
- "kind": one of {kinds};
- "salience": 0-1, how much it matters later (a decision or a risk high, a passing \
remark low);
- "content": 1-2 sentences that stand on their own (name the subject; no "he", "it", \
"the above"), keeping specific values: names, numbers, versions, dates, commands, paths;
- "topic_hint": a few words naming what it is about, or null.

Discard greetings, dead ends, acknowledgements and small talk. Do not invent anything the \
conversation does not say. At most {max_thoughts} cells.

Also give the episode a "title" (under 10 words) and a "summary" (1-3 sentences).

Answer with a JSON object only, exactly of this form:
{{"title": "...", "summary": "...", "thoughts": [{{"kind": "fact", "salience": 0.5, \
"content": "...", "topic_hint": "..."}}]}}"""


class Response(BaseModel):
    title: str = ""
    summary: str = ""
    thoughts: list[ExtractedThought] = Field(default_factory=list)


def render(transcript: str, max_thoughts: int = 30) -> list[ChatMessage]:
    system = SYSTEM.format(kinds=", ".join(EXTRACTED_KINDS), max_thoughts=max_thoughts)
    return messages(system, "Conversation:\n" + transcript.strip())


PROMPT = Prompt(NAME, VERSION, Response, render)
