"""LoCoMo (Maharana et al., ACL 2024) conversations and questions, parsed for retrieval.

The file is a list of samples: ``conversation`` holds ``session_N`` turn lists and
``session_N_date_time`` dates; ``qa`` holds questions with ``evidence`` turn ids
(``D<session>:<turn>``) and a ``category``. Sessions are counted from the ``session_N``
keys (a sample may carry date keys without a session). Evidence strings are sometimes
malformed (``"D8:6; D9:17"``, ``"D:11:26"``, ``"D30:05"``): they are split on ``;`` and
spaces, normalised, and ids that name no turn are dropped. Questions left without
evidence are skipped (they cannot be scored).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import Any

import dateparser

CATEGORIES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
HEADLINE_CATEGORIES = (1, 2, 3, 4)

_SESSION_KEY = re.compile(r"session_(\d+)")
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")
_SPLIT = re.compile(r"[;,\s]+")


class LocomoFormatError(ValueError):
    """The file is not LoCoMo-shaped (the message says where)."""


@dataclass(frozen=True)
class Turn:
    dia_id: str  # "D<session>:<turn>"
    session: int
    index: int  # position in its session, from 0
    speaker: str
    text: str
    caption: str | None

    @property
    def content(self) -> str:
        """What is stored: who said it, what, and the photo they shared if any."""
        said = f"{self.speaker}: {self.text}".strip()
        return f"{said} [shared a photo: {self.caption}]" if self.caption else said


@dataclass(frozen=True)
class Session:
    number: int
    at_ms: int  # the session's date, epoch milliseconds (UTC)
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Question:
    text: str
    category: int
    evidence: tuple[str, ...]  # existing turn ids, normalised, in order, no repeats


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    sessions: tuple[Session, ...]
    questions: tuple[Question, ...]
    skipped_questions: int  # no usable evidence
    dropped_evidence: int  # evidence ids naming no turn

    @property
    def turns(self) -> list[Turn]:
        return [turn for session in self.sessions for turn in session.turns]

    @property
    def last_at_ms(self) -> int:
        return max((s.at_ms for s in self.sessions), default=0)


def load_conversations(path: Path) -> list[Conversation]:
    try:
        samples = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LocomoFormatError(f"cannot read {path}: {exc}") from exc
    if not isinstance(samples, list):
        raise LocomoFormatError(f"{path}: expected a list of samples")
    return [parse_sample(sample, position) for position, sample in enumerate(samples)]


def parse_sample(sample: Any, position: int = 0) -> Conversation:
    if not isinstance(sample, Mapping) or not isinstance(sample.get("conversation"), Mapping):
        raise LocomoFormatError(f"sample #{position}: no conversation")
    sample_id = str(sample.get("sample_id") or f"sample-{position}")
    sessions = _sessions(sample_id, sample["conversation"])
    known = {turn.dia_id for session in sessions for turn in session.turns}
    questions: list[Question] = []
    skipped = dropped = 0
    for qa in sample.get("qa") or []:
        ids = evidence_ids(qa.get("evidence") or [])
        kept = tuple(i for i in ids if i in known)
        dropped += len(ids) - len(kept)
        if not kept or "question" not in qa:
            skipped += 1
            continue
        questions.append(
            Question(text=str(qa["question"]), category=int(qa["category"]), evidence=kept)
        )
    return Conversation(
        sample_id=sample_id,
        sessions=sessions,
        questions=tuple(questions),
        skipped_questions=skipped,
        dropped_evidence=dropped,
    )


def evidence_ids(raw: Iterable[Any]) -> list[str]:
    """Normalised turn ids from evidence strings, first occurrence order, no repeats:
    ``"D8:6; D9:17"`` gives two ids, ``"D:11:26"`` is ``D11:26``, ``"D30:05"`` is
    ``D30:5``; pieces that are not turn ids are left out."""
    found: list[str] = []
    for item in raw:
        for piece in _SPLIT.split(str(item)):
            match = _EVIDENCE.fullmatch(piece.strip())
            if match is None:
                continue
            dia_id = f"D{int(match[1])}:{int(match[2])}"
            if dia_id not in found:
                found.append(dia_id)
    return found


def _sessions(sample_id: str, conversation: Mapping[str, Any]) -> tuple[Session, ...]:
    numbers = sorted(int(m[1]) for key in conversation if (m := _SESSION_KEY.fullmatch(str(key))))
    sessions = []
    for number in numbers:
        raw_turns = conversation[f"session_{number}"]
        if not isinstance(raw_turns, list):
            raise LocomoFormatError(f"{sample_id}: session_{number} is not a list of turns")
        date = conversation.get(f"session_{number}_date_time")
        at_ms = _date_ms(str(date)) if date else None
        if at_ms is None:
            raise LocomoFormatError(f"{sample_id}: session_{number} has no readable date")
        turns = tuple(
            Turn(
                dia_id=_turn_id(raw, number, index),
                session=number,
                index=index,
                speaker=str(raw.get("speaker") or "someone"),
                text=str(raw.get("text") or ""),
                caption=raw.get("blip_caption") or None,
            )
            for index, raw in enumerate(raw_turns)
        )
        sessions.append(Session(number=number, at_ms=at_ms, turns=turns))
    return tuple(sessions)


def _turn_id(raw: Mapping[str, Any], session: int, index: int) -> str:
    ids = evidence_ids([raw.get("dia_id", "")])
    return ids[0] if ids else f"D{session}:{index + 1}"


def _date_ms(text: str) -> int | None:
    """ "1:56 pm on 8 May, 2023" as UTC epoch milliseconds."""
    parsed = dateparser.parse(
        text.replace(" on ", " "),
        languages=["en"],
        settings={"TIMEZONE": "UTC", "RETURN_AS_TIMEZONE_AWARE": True},
    )
    if parsed is None:
        return None
    return int(parsed.astimezone(UTC).timestamp() * 1000)


def parse_ks(text: str, option: str = "--k") -> tuple[int, ...]:
    """ "5,10,20" as (5, 10, 20), sorted, no repeats."""
    try:
        ks = sorted({int(piece) for piece in text.split(",") if piece.strip()})
    except ValueError as exc:
        message = f"{option} takes numbers separated by commas, got {text!r}"
        raise LocomoFormatError(message) from exc
    if not ks or ks[0] < 1:
        raise LocomoFormatError(f"{option} takes positive numbers, got {text!r}")
    return tuple(ks)
