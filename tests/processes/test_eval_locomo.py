"""``thoughtgraph eval locomo`` end to end in a real process on both engines, over a small
LoCoMo-shaped file this test writes (never the real data): the parsing quirks
(malformed evidence, missing evidence skipped, date keys without a session) and the
tables' counts. Recall values are not asserted beyond what the file fixes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from thoughtgraph.settings import Settings
from thoughtgraph.tools.eval.locomo import evidence_ids, load_conversations

STRATEGIES = ("vector", "hybrid", "vector+expansion", "full")


def _turn(dia_id: str, speaker: str, text: str, caption: str | None = None) -> dict[str, str]:
    turn = {"speaker": speaker, "dia_id": dia_id, "text": text}
    if caption:
        turn["blip_caption"] = caption
    return turn


def _sample() -> dict[str, object]:
    return {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bob",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                _turn("D1:1", "Ann", "I adopted a puppy called Rex yesterday."),
                _turn("D1:2", "Bob", "Lovely! Look at my garden.", "a photo of red tulips"),
                _turn("D1:3", "Ann", "Your tulips are gorgeous."),
            ],
            "session_2_date_time": "10:00 am on 20 June, 2023",
            "session_2": [
                _turn("D2:1", "Bob", "I started pottery classes last week."),
                _turn("D2:2", "Ann", "Rex learned to fetch the ball."),
            ],
            # A date key with no session: sessions are counted from session_N keys.
            "session_3_date_time": "9:00 am on 1 July, 2023",
        },
        "qa": [
            {
                "question": "What is Ann's dog called?",
                "answer": "Rex",
                "evidence": ["D1:1"],
                "category": 4,
            },
            {
                "question": "What did Ann's dog learn?",
                "answer": "fetch",
                "evidence": ["D1:1; D2:2"],
                "category": 1,
            },  # two ids in one string
            {
                "question": "What flowers does Bob grow?",
                "answer": "tulips",
                "evidence": ["D:1:2", "D1:03"],
                "category": 3,
            },  # "D:1:2" and a padded turn
            {
                "question": "When did Bob start pottery?",
                "answer": "June 2023",
                "evidence": ["D2:1", "D9:9"],
                "category": 2,
            },  # D9:9 names no turn: dropped
            {
                "question": "What is Bob's favourite film?",
                "answer": "unknown",
                "evidence": [],
                "category": 3,
            },  # no evidence: skipped
            {
                "question": "What did Ann paint?",
                "adversarial_answer": "a lake",
                "evidence": ["D7:1"],
                "category": 5,
            },  # only a missing id: skipped
            {
                "question": "What is Bob's dog called?",
                "adversarial_answer": "Rex",
                "evidence": ["D1:1"],
                "category": 5,
            },
        ],
    }


def _write(tmp_path: Path) -> Path:
    path = tmp_path / "locomo-mini.json"
    path.write_text(json.dumps([_sample()]), encoding="utf-8")
    return path


def test_parsing_quirks(tmp_path: Path) -> None:
    assert evidence_ids(["D8:6; D9:17", "D:11:26", "D30:05", "D8:6", "junk"]) == [
        "D8:6",
        "D9:17",
        "D11:26",
        "D30:5",
    ]
    (conversation,) = load_conversations(_write(tmp_path))
    assert [s.number for s in conversation.sessions] == [1, 2]
    assert (
        conversation.sessions[1].at_ms - conversation.sessions[0].at_ms
        == (43 * 24 * 3600 + (10 * 60 - (13 * 60 + 56)) * 60) * 1000
    )
    assert (
        conversation.turns[1].content
        == "Bob: Lovely! Look at my garden. [shared a photo: a photo of red tulips]"
    )
    evidence = {q.text: q.evidence for q in conversation.questions}
    assert evidence["What did Ann's dog learn?"] == ("D1:1", "D2:2")
    assert evidence["What flowers does Bob grow?"] == ("D1:2", "D1:3")
    assert evidence["When did Bob start pottery?"] == ("D2:1",)
    assert conversation.skipped_questions == 2
    assert conversation.dropped_evidence == 2  # D9:9 and D7:1


def _env(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TG_")}
    env.update(TG_DATA_DIR=str(settings.data_dir), TG_EMBEDDER="local", TG_LOG_LEVEL="WARNING")
    if settings.neo4j_uri:
        env.update(
            TG_NEO4J_URI=settings.neo4j_uri,
            TG_NEO4J_USER=settings.neo4j_user,
            TG_NEO4J_PASSWORD=settings.neo4j_password.get_secret_value(),
            TG_NEO4J_DATABASE=settings.neo4j_database,
        )
    return env


def _eval(
    tmp_path: Path, settings: Settings, eval_set: str, *options: str
) -> subprocess.CompletedProcess[str]:
    """``thoughtgraph eval <set>`` over the mini file, as a real process."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "thoughtgraph",
            "eval",
            eval_set,
            str(_write(tmp_path)),
            *options,
        ],
        env=_env(settings),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_command_prints_the_tables(
    engine: str, engine_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    result = _eval(tmp_path, engine_settings(), "locomo", "--engine", engine, "--k", "1,3")
    out = result.stdout
    assert result.returncode == 0, f"{out}\n{result.stderr[-3000:]}"
    assert (
        f"engine {engine}, 1 conversations, 5 turns, 5 questions (2 without evidence "
        "skipped, 2 evidence ids naming no turn dropped)"
    ) in out
    # Plain lines, not bars: stderr is not a terminal here.
    assert "ingest conv-x: 5/5" in result.stderr and "ask conv-x: 5/5" in result.stderr
    for mode in ("all", "any"):
        table = out.split(f"{mode}@k")[1].split("\n\n")[0]
        header = table.splitlines()[0]
        assert [name for name in header.split() if name != "n"] == list(STRATEGIES)
        rows = {line[:22].strip(): line[22:].split() for line in table.splitlines()[2:]}
        counts = {label: int(cells[0]) for label, cells in rows.items()}
        assert counts == {
            "1 multi-hop": 1,
            "2 temporal": 1,
            "3 open-domain": 1,
            "4 single-hop": 1,
            "1-4 together": 4,
            "5 adversarial": 1,
        }
        for cells in rows.values():
            assert len(cells) == 1 + 2 * len(STRATEGIES)
            assert all(re.fullmatch(r"\d+\.\d", c) for c in cells[1:])
    # Three of five turns at k = 3: the single-hop question's one turn is among them
    # for at least one strategy only if retrieval works at all.
    single = next(line for line in out.splitlines() if line.startswith("4 single-hop"))
    assert any(float(v) == 100.0 for v in single.split()[3:])


@pytest.mark.parametrize("bad", ["0,5", "x"])
def test_bad_k_is_a_clear_error(tmp_path: Path, bad: str) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "thoughtgraph",
            "eval",
            "locomo",
            str(_write(tmp_path)),
            "--k",
            bad,
        ],
        env={
            **{k: v for k, v in os.environ.items() if not k.startswith("TG_")},
            "TG_DATA_DIR": str(tmp_path / "d"),
            "TG_EMBEDDER": "hash",
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2 and "--k" in result.stderr


def test_context_command_prints_a_row_per_budget(
    engine: str, engine_settings: Callable[..., Settings], tmp_path: Path
) -> None:
    """``thoughtgraph eval context``: the same questions through assembleContext, a row
    per budget with the share of questions whose evidence is all in the context and the
    mean tokens used (never above the budget)."""
    result = _eval(
        tmp_path, engine_settings(), "context", "--engine", engine, "--budgets", "60,4000"
    )
    out = result.stdout
    assert result.returncode == 0, f"{out}\n{result.stderr[-3000:]}"
    assert f"engine {engine}, 1 conversations, 5 turns, 5 questions" in out
    rows = {
        int(line.split()[0]): [float(v) for v in line.split()[1:]]
        for line in out.splitlines()
        if re.match(r"^\d+\s", line)
    }
    assert set(rows) == {60, 4000}
    for budget, cells in rows.items():
        *shares, mean_tokens = cells
        assert len(shares) == 6 and all(0.0 <= s <= 100.0 for s in shares)
        assert 0 < mean_tokens <= budget
    # 4,000 tokens hold the whole five-turn conversation: every question's evidence is in.
    assert rows[4000][:-1] == [100.0] * 6
    # 60 tokens hold a turn or two: not every question can be answered from them.
    assert rows[60][4] < 100.0
