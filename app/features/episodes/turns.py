"""A conversation given as structured turns (speaker, text, time): each turn becomes one
thought, "Speaker: text", by the speaker (an agent of its own), in the episode's session,
valid from the turn's time. Every turn is checked before anything is written."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.knowledge import stable_id

MAX_TURNS = 1_000  # a long conversation (hundreds of turns); a bigger one is sent in parts
MAX_SPEAKER_CHARS = 100
# "Speaker: text" is one thought: the text leaves room for the name.
MAX_TURN_CHARS = check.MAX_CONTENT_CHARS - MAX_SPEAKER_CHARS - 2
MAX_CONVERSATION_CHARS = 400_000  # the narrative the episode keeps: all turns together


@dataclass(frozen=True)
class Turn:
    speaker: str
    text: str
    at_ms: int | None = None  # when it was said; None: the episode's time


@dataclass(frozen=True)
class CheckedTurn:
    speaker: str
    text: str
    at_ms: int | None
    agent_id: str

    @property
    def content(self) -> str:
        return f"{self.speaker}: {self.text}"


def speaker_id(name: str) -> str:
    """A stable agent id for a speaker: the name's ASCII letters (readable) and a hash of
    the whole name (so "Zoë" and "Zoe" stay apart). The same formula as the LoCoMo eval."""
    readable = re.sub(r"[^A-Za-z0-9_-]", "", name)[:40] or "speaker"
    return f"{readable}-{hashlib.sha1(name.encode()).hexdigest()[:6]}"


def check_turns(turns: Sequence[Turn]) -> list[CheckedTurn]:
    """Every turn checked, or InvalidInputError naming the first bad one ("turns[3].text")."""
    if not turns:
        raise InvalidInputError("give at least one turn", field="turns")
    if len(turns) > MAX_TURNS:
        raise InvalidInputError(
            f"at most {MAX_TURNS} turns per episode, {len(turns)} given", field="turns"
        )
    checked: list[CheckedTurn] = []
    total = 0
    for index, turn in enumerate(turns):
        where = f"turns[{index}]"
        speaker = check.require_name(f"{where}.speaker", turn.speaker.strip(), MAX_SPEAKER_CHARS)
        if ":" in speaker:
            raise InvalidInputError("a speaker's name has no colon", field=f"{where}.speaker")
        text = check.require_text(f"{where}.text", turn.text.strip(), MAX_TURN_CHARS)
        if turn.at_ms is not None and turn.at_ms < 0:
            raise InvalidInputError("a turn's time is after 1970", field=f"{where}.at")
        total += len(speaker) + len(text) + 3
        if total > MAX_CONVERSATION_CHARS:
            raise InvalidInputError(
                f"at most {MAX_CONVERSATION_CHARS} characters of turns per episode",
                field="turns",
            )
        checked.append(CheckedTurn(speaker, text, turn.at_ms, speaker_id(speaker)))
    return checked


def narrative(turns: Sequence[CheckedTurn]) -> str:
    """The transcript the episode keeps: one "Speaker: text" line per turn."""
    return "\n".join(turn.content for turn in turns)


def episode_id_of_turns(
    namespace: str, turns: Sequence[CheckedTurn], session_id: str | None
) -> str:
    """From the turns, their times and the session: the same conversation sent again is
    the same episode (nothing new written)."""
    times = ",".join("" if t.at_ms is None else str(t.at_ms) for t in turns)
    return stable_id("episode", namespace, "turns", narrative(turns), times, session_id or "")
