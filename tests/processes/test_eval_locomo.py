"""``thoughtgraph eval locomo``, ``replay``, ``maintenance`` and ``expansion`` end to end in
real processes, over a small LoCoMo-shaped file this test writes (never the real data):
the parsing quirks (malformed evidence, missing evidence skipped, date keys without a
session), the user rows first (GraphQL, defaults), the reference rows, the per-fold rows
with mean and spread, two replay passes, the maintenance counts, the expansion's weights
chosen per fold; and the fold helpers. Recall values are not asserted beyond what the file
fixes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from thoughtgraph.settings import Settings
from thoughtgraph.tools.eval.fold_report import Outcome, fold_shares
from thoughtgraph.tools.eval.folds import choose_on_train, folds_by, spread
from thoughtgraph.tools.eval.locomo import evidence_ids, load_conversations

STRATEGIES = ("BM25", "cosine", "vector", "hybrid", "vector+expansion", "full")


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


def _write(tmp_path: Path, conversations: int = 1) -> Path:
    """The sample, and for more conversations copies of it under other ids (folds)."""
    samples = [{**_sample(), "sample_id": f"conv-{'xyz'[i]}"} for i in range(conversations)]
    path = tmp_path / "locomo-mini.json"
    path.write_text(json.dumps(samples), encoding="utf-8")
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
    env.update(settings.child_environment(), TG_DATA_DIR=str(settings.data_dir))
    env.update(TG_EMBEDDER="local", TG_LOG_LEVEL="WARNING")
    return env


def _eval(
    tmp_path: Path, settings: Settings, eval_set: str, *options: str, conversations: int = 1
) -> subprocess.CompletedProcess[str]:
    """``thoughtgraph eval <set>`` over the mini file, as a real process."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "thoughtgraph",
            "eval",
            eval_set,
            str(_write(tmp_path, conversations)),
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
        tmp_path, engine_settings(), "context", "--engine", engine, "--budgets", "1,4000"
    )
    out = result.stdout
    assert result.returncode == 0, f"{out}\n{result.stderr[-3000:]}"
    assert f"engine {engine}, 1 conversations, 5 turns, 5 questions" in out
    rows = {
        int(line.split()[0]): [float(v) for v in line.split()[1:]]
        for line in out.splitlines()
        if re.match(r"^\d+\s", line)
    }
    assert set(rows) == {1, 4000}
    for budget, cells in rows.items():
        *shares, mean_tokens = cells
        assert len(shares) == 6 and all(0.0 <= s <= 100.0 for s in shares)
        assert 0 <= mean_tokens <= budget
    # 4,000 tokens hold the whole five-turn conversation: every question's evidence is in.
    assert rows[4000][:-1] == [100.0] * 6
    assert rows[4000][-1] > 0
    # One token holds nothing: no question is answered from it. (Any budget that holds a
    # line holds the best hit, which on five turns is each question's evidence.)
    assert rows[1][4] == 0.0 and rows[1][-1] == 0.0


def _block(out: str, title: str) -> str:
    """The fold table that starts with ``title`` (up to the next blank line)."""
    return out[out.index(title) :].split("\n\n")[0]


def test_user_rows_first_then_references_per_fold(tmp_path: Path) -> None:
    """Two conversations, two folds: what a user gets over GraphQL is printed first, then
    BM25 alone and vector alone, then the strategies; every row has a line per left-out
    conversation, the mean and the min-max; the context row says the tokens it used."""
    settings = Settings(data_dir=tmp_path / "data")
    result = _eval(tmp_path, settings, "locomo", "--engine", "falkordb", conversations=2)
    out = result.stdout
    assert result.returncode == 0, f"{out}\n{result.stderr[-3000:]}"
    titles = [
        "What a user gets (GraphQL, defaults)",
        "Reference rows (same texts)",
        "Service strategies",
        "all@k",
    ]
    positions = [out.index(title) for title in titles]
    assert positions == sorted(positions)
    user = _block(out, titles[0])
    assert "search(query, k: 10): all@10" in user
    assert "assembleContext(budget: 4000): all in context" in user
    # The same texts once more as a user sending no metadata (one agent, no sessions or
    # dates) would, asked with the default search.
    assert "search(query, k: 10), no speakers/sessions/dates: all@10" in user
    assert "ingest conv-x without metadata: 5/5" in result.stderr
    assert "mean tokens used per fold: conv-x" in out
    # The user's searches' wall times, with and without the metadata, per fold.
    for row in ("search(query, k: 10): all@10", "no speakers/sessions/dates: all@10"):
        timing = next(line for line in out.splitlines() if row in line and "ms per call" in line)
        cells = re.findall(r"(conv-[xy]) (\d+)/(\d+)", timing)
        assert [c[0] for c in cells] == ["conv-x", "conv-y"]
        assert all(0 < int(p50) <= int(p95) for _, p50, p95 in cells)
    references = _block(out, titles[1])
    for row in ("BM25 alone", "vector alone"):
        assert row in references
    strategies = _block(out, titles[2])
    for name in STRATEGIES[2:]:
        assert f"strategy {name}" in strategies
    for block in (user, references, strategies):
        lines = block.splitlines()
        assert lines[1].split() == [
            "multi-hop", "temporal", "open-domain", "single-hop", "1-4", "adversarial"
        ]  # fmt: skip
        folds = [line for line in lines if line.startswith("  conv-")]
        assert {line.split()[0] for line in folds} == {"conv-x", "conv-y"}
        for line in folds:
            assert "(n=5)" in line and len(line.split()) == 2 + 6
        means = [line for line in lines if line.startswith("  mean")]
        spreads = [line for line in lines if line.startswith("  [min-max]")]
        assert len(means) == len(spreads) == len(folds) // 2
    # Every turn of a five-turn conversation is inside a 4,000-token context.
    context_rows = user.split("assembleContext(budget: 4000): all in context")[1]
    assert all(
        float(v) == 100.0
        for line in context_rows.splitlines()[1:]
        if line.startswith("  conv-")
        for v in line.split()[2:]
    )


def test_replay_prints_two_passes(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    result = _eval(tmp_path, settings, "replay", "--engine", "falkordb", conversations=2)
    out = result.stdout
    assert result.returncode == 0, f"{out}\n{result.stderr[-3000:]}"
    for row in (
        "pass 1 search: all@10",
        "pass 2 search: all@10",
        "pass 1 assembleContext: all in context",
        "pass 2 assembleContext: all in context",
    ):
        assert f"\n{row}\n  conv-x (n=5)" in out
    assert out.index("pass 1 search") < out.index("pass 2 search")
    deltas = [line for line in out.splitlines() if line.startswith("pass 2 - pass 1")]
    assert len(deltas) == 2 and all("per fold:" in line for line in deltas)
    assert "pass 1 conv-x: 5/5" in result.stderr and "pass 2 conv-y: 5/5" in result.stderr


def test_maintenance_prints_counts(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    result = _eval(tmp_path, settings, "maintenance", "--engine", "falkordb")
    out = result.stdout
    assert result.returncode == 0, f"{out}\n{result.stderr[-3000:]}"
    assert "5 turns, 2 write-time scans, then one consolidation run each:" in out
    assert "conv-x: consolidation succeeded" in out
    rows = {
        line[:28].strip(): line[28:].split()
        for line in out.splitlines()
        if line.startswith(("open contradictions", "supersessions", "merges"))
    }
    assert set(rows) == {"open contradictions", "supersessions", "merges"}
    for count, per_thousand in rows.values():
        assert float(per_thousand) == int(count) * 200.0  # five turns
    assert "largest topics" in out and "Open contradictions (sample of" in out


def test_expansion_prints_weights_chosen_per_fold(tmp_path: Path) -> None:
    """Three conversations, three folds: the baselines, the service's full search and the
    in-process re-rank with the shipped weights (the same ranking, so the same row), the
    weights from training, and one line of chosen weights per left-out conversation."""
    settings = Settings(data_dir=tmp_path / "data")
    result = _eval(tmp_path, settings, "expansion", "--engine", "falkordb", conversations=3)
    out = result.stdout
    assert result.returncode == 0, f"{out}\n{result.stderr[-3000:]}"
    assert "3 conversations, 15 questions, 432 weight combinations" in out

    def block(name: str) -> list[str]:
        return out.split(f"\n{name}\n")[1].splitlines()[:5]

    for name in (
        "BM25 alone (bm25s)",
        "vector alone",
        "hybrid (service)",
        "expansion, from training",
    ):
        assert [line.split()[0] for line in block(name)[:3]] == ["conv-x", "conv-y", "conv-z"]
    assert block("full search (service)") == block("expansion, shipped weights")
    chosen = out.split("Weights chosen on the training folds")[1].splitlines()[2:5]
    assert [line.split()[0] for line in chosen] == ["conv-x", "conv-y", "conv-z"]
    assert all(len(line.split()) == 9 for line in chosen)


def test_fold_helpers_choose_on_training_folds_only() -> None:
    """Leave one group out; the chosen value is the best on the training groups, and the
    held-out score is reported for it even when another value would do better there."""
    items = [("a", 1), ("a", 2), ("b", 3), ("c", 30)]
    folds = list(folds_by(lambda item: item[0], items))
    assert [fold.held_out for fold in folds] == ["a", "b", "c"]
    assert folds[0].train == (("b", 3), ("c", 30)) and folds[0].test == (("a", 1), ("a", 2))

    def score(threshold: int, chosen: Sequence[tuple[str, int]]) -> float:
        return sum(value >= threshold for _, value in chosen) / len(chosen)

    choice = choose_on_train([1, 3, 10], score, folds[2])  # trains on a and b
    assert choice.value == 1 and choice.train_score == 1.0 and choice.test_score == 1.0
    choice = choose_on_train([10, 3], score, folds[0])  # trains on b and c: 3 keeps both
    assert choice.value == 3 and choice.train_score == 1.0 and choice.test_score == 0.0
    assert str(spread([40.0, 50.0, 60.0])) == "50.0 [40.0-60.0]"
    outcomes = [Outcome("a", 1, True), Outcome("a", 4, False), Outcome("b", 5, True)]
    shares = fold_shares(outcomes)
    assert shares["a"][0] == 100.0 and shares["a"][3] == 0.0 and shares["a"][4] == 50.0
    assert shares["a"][5] is None and shares["b"][5] == 100.0
