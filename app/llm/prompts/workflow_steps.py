"""Summarise the stable sequence of actions in an episode into numbered imperative steps
(seed 001 §12: procedural memory, written only when an agent asks for it)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from thoughtgraph.llm.prompts.base import ChatMessage, Prompt, messages

NAME = "workflow_steps"
VERSION = "1"
MAX_STEPS = 20
MAX_NARRATIVE_CHARS = 20_000

SYSTEM = """\
You turn what an AI agent did in a conversation into a reusable workflow. Read the \
conversation and find the stable sequence of actions that achieved its goal (the steps \
that would be repeated next time, not dead ends, chatter or one-off values).

Write:
- "trigger": when the workflow applies, 1 to 4 lower-case words ("deploy", "new endpoint");
- "steps": 1 to {max_steps} steps in order, each an imperative "text" of at most 8 words \
("Run the tests") and, only when the conversation gives it, a "detail": the exact \
command, path or value (null otherwise).
When the conversation holds no such sequence, answer with an empty "steps" list.
Nothing the conversation does not say.

Answer with a JSON object only, exactly of this form:
{{"trigger": "...", "steps": [{{"text": "...", "detail": "..."}}]}}"""


class Step(BaseModel):
    text: str = Field(min_length=1, max_length=300)
    detail: str | None = Field(default=None, max_length=2_000)


class Response(BaseModel):
    trigger: str = Field(min_length=1, max_length=200)
    steps: list[Step] = Field(default_factory=list, max_length=MAX_STEPS)


def render(narrative: str) -> list[ChatMessage]:
    system = SYSTEM.format(max_steps=MAX_STEPS)
    return messages(system, "Conversation:\n" + narrative.strip()[:MAX_NARRATIVE_CHARS])


PROMPT = Prompt(NAME, VERSION, Response, render)
