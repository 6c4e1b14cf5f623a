"""Turn a conversation transcript into typed memory cells, with a title and a summary."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, Field, ValidationInfo, field_validator

from thoughtgraph.domain.judgement import EXTRACTED_KINDS, ExtractedThought
from thoughtgraph.domain.writing import MAX_CHARS, Style, checked_text, thought_style
from thoughtgraph.llm.prompts.base import ChatMessage, Prompt, messages

NAME = "episode_extraction"
VERSION = "2"  # 2: the writing rules (domain/writing.py) in the text and the answer

SYSTEM = """\
Convert this conversation into structured memory cells for an AI agent's long-term \
memory. Each cell is one thing worth remembering later:
- "kind": one of {kinds};
- "salience": 0-1, how much it matters later (a decision or a risk high, a passing \
remark low);
- "content": 1-2 sentences, at most {max_chars} characters, that stand on their own: \
a neutral third-person statement that names its subject (a person by name, never "he", \
"she", "they", "the above"), never "I", "we" or "you" (a person's own words may be quoted), \
keeping specific values: names, numbers, versions, dates, commands, paths; an \
"episode_note" says in the past tense what was discussed, decided or done;
- "topic_hint": a few words naming what it is about, or null.

Discard greetings, dead ends, acknowledgements and small talk. Do not invent anything the \
conversation does not say. At most {max_thoughts} cells.

Also give the episode a "title" (under 10 words) and a "summary": 1-2 sentences in the \
past tense saying what was discussed, decided or done (no "I", "we" or "you").

Answer with a JSON object only, exactly of this form:
{{"title": "...", "summary": "...", "thoughts": [{{"kind": "fact", "salience": 0.5, \
"content": "...", "topic_hint": "..."}}]}}"""


def _written(thought: ExtractedThought, info: ValidationInfo) -> ExtractedThought:
    """The content as its kind's style wants it (trimmed if need be), or a ValueError."""
    content = checked_text(thought.content, thought_style(thought.kind), info.context)
    return (
        thought if content == thought.content else thought.model_copy(update={"content": content})
    )


# Not on ExtractedThought itself: the offline splitter makes those too, from turns as said.
WrittenThought = Annotated[ExtractedThought, AfterValidator(_written)]


class Response(BaseModel):
    title: str = ""
    summary: str = ""  # empty: the compression prompt's summary stands in
    thoughts: list[WrittenThought] = Field(default_factory=list)

    @field_validator("summary")
    @classmethod
    def _episodic(cls, summary: str, info: ValidationInfo) -> str:
        return checked_text(summary, Style.EPISODIC, info.context) if summary.strip() else ""


def render(transcript: str, max_thoughts: int = 30) -> list[ChatMessage]:
    system = SYSTEM.format(
        kinds=", ".join(EXTRACTED_KINDS), max_thoughts=max_thoughts, max_chars=MAX_CHARS
    )
    return messages(system, "Conversation:\n" + transcript.strip())


PROMPT = Prompt(NAME, VERSION, Response, render)
