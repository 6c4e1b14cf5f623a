"""Judge several pairs of similar thoughts in one call: update, conflict or compatible."""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import BaseModel, Field

from thoughtgraph.domain.judgement import PairRelation, PairToJudge
from thoughtgraph.domain.models import ms_to_datetime
from thoughtgraph.llm.prompts.base import ChatMessage, Prompt, messages

NAME = "contradictions"
VERSION = "1"

SYSTEM = """\
You maintain the long-term memory of AI agents. Each memory is a short statement. You are \
given pairs of statements that are similar in wording; for each pair, decide how the newer \
statement relates to the older one (older and newer by when the memory learned them).

Relations:
- "update": the newer statement replaces the older one. Both are about the same subject \
(same service, person, setting, decision...) and the subject's value changed over time: a \
new port, owner, version, date, tool, preference or decision. Cue words such as "now", "no \
longer", "moved to", "switched to", "replaced", "renamed", "instead of" are strong hints, \
but a plain new value for a single-valued property (one port, one owner, one deploy day) \
is an update too.
- "conflict": both cannot be true at the same time, but it is not clear that the newer one \
replaces the older (for instance they disagree with no sign of a change over time).
- "compatible": both can be true together. Choose this when the statements are about \
different subjects (the billing service vs the auth service), when the newer one adds to \
the older ("also", "too", a second item), or when they say the same thing.

Be precise: similar wording is not a contradiction. Different subjects with different \
values are compatible. Only flag a pair when the same subject cannot have both values.

Answer with a JSON object only, exactly of this form, one verdict per pair, same pair_id:
{"verdicts": [{"pair_id": "...", "relation": "update" | "conflict" | "compatible", \
"confidence": 0.0-1.0, "explanation": "one short sentence"}]}"""


class PairVerdictAnswer(BaseModel):
    pair_id: str
    relation: PairRelation
    confidence: float = Field(ge=0.0, le=1.0)
    explanation: str = ""


class Response(BaseModel):
    verdicts: list[PairVerdictAnswer]


def render(pairs: Sequence[PairToJudge]) -> list[ChatMessage]:
    items = [
        {
            "pair_id": pair.pair_id,
            "older": {"learned": _day(pair.older_at_ms), "text": pair.older_text},
            "newer": {"learned": _day(pair.newer_at_ms), "text": pair.newer_text},
        }
        for pair in pairs
    ]
    user = "Pairs:\n" + json.dumps(items, ensure_ascii=False, indent=1)
    return messages(SYSTEM, user)


def _day(epoch_ms: int) -> str:
    return ms_to_datetime(epoch_ms).strftime("%Y-%m-%d %H:%M UTC")


PROMPT = Prompt(NAME, VERSION, Response, render)
