"""``thoughtgraph eval writing`` in a real process: the recorded answers' table (labelled as
the test server's, not a model's; per style and overall; the 95% first-pass target), and,
with ``TG_LLM_MODEL`` pointing at the fake OpenAI server this test runs, the model's
first answers to every input of the set (no repair round) in a table of its own, whose
target decides the exit code."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from thoughtgraph.tools.eval.writing import load_set

ROW = re.compile(
    r"^(semantic|episodic|insight|summary|all)\s+(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)$"
)


def run_eval(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TG_")}
    clean.update(TG_DATA_DIR=str(tmp_path / "data"), TG_LOG_LEVEL="WARNING", **env)
    return subprocess.run(
        [sys.executable, "-m", "thoughtgraph", "eval", "writing"],
        env=clean,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def rows(table: str) -> dict[str, tuple[int, int, str, int, int]]:
    found = {}
    for line in table.splitlines():
        match = ROW.match(line.strip())
        if match:
            style, texts, passed, rate, trimmed, rejected = match.groups()
            found[style] = (int(texts), int(passed), rate, int(trimmed), int(rejected))
    return found


def test_the_recorded_answers_table(tmp_path: Path) -> None:
    result = run_eval(tmp_path)
    out = result.stdout
    assert result.returncode == 0, f"{out}\n{result.stderr[-3000:]}"
    served, _, probes = out.partition("The checker on")
    assert "TEST MODEL SERVER's recorded answers" in served and "No model was asked." in served
    assert "violations included on purpose (what it catches; not a pass rate)" in probes
    assert "No model measured" in out and "on the MODEL" not in out
    for table_text, low, high in ((served, 15, 40), (probes, 30, 60)):
        table = rows(table_text)
        assert set(table) == {"semantic", "episodic", "insight", "summary", "all"}
        texts, passed, rate, trimmed, rejected = table["all"]
        assert low <= texts <= high
        assert texts == passed + trimmed + rejected
        assert sum(table[s][0] for s in ("semantic", "episodic", "insight", "summary")) == texts
        assert rate == f"{passed / texts:.1%}"
        assert trimmed > 0 and rejected > 0  # the reprompt tests play violations too
    # The test server's answers are held to the target; the probes are not.
    assert "target: first pass >= 95%: MISS" in served and "target:" not in probes
    assert "thoughts.0 rejected (pronoun): 'He moved the nightly backup" in out


EPISODE = {
    "title": "An episode",
    "summary": "The participants discussed the plan and agreed on the next steps.",
    "thoughts": [
        {"kind": "decision", "salience": 0.8, "content": "The plan was agreed on."},
        {"kind": "fact", "salience": 0.5, "content": "The plan has three steps."},
    ],
}
INSIGHTS = {
    "insights": [
        {"summary": "Ana trusts agents that admit mistakes.", "tags": ["trust"]},
        {"summary": "Ana prefers short answers before meetings.", "tags": ["style"]},
    ]
}
FACTS = {
    "facts": [
        {"content": "Nightly backups run at 03:30 UTC.", "importance": 4},
        {"content": "Priya owns the payments on-call rotation.", "importance": 4},
    ]
}


def model(violating: bool) -> Any:
    """Answers the four prompts the set renders; with ``violating``, every topic summary
    speaks as the AI ("We ...")."""

    def answer(messages: list[dict[str, Any]]) -> str:
        user = str(messages[-1]["content"])
        if user.startswith("Conversation:"):
            return json.dumps(EPISODE)
        if user.startswith("Person:"):
            return json.dumps(INSIGHTS)
        if user.startswith("Contribution:"):
            return json.dumps(FACTS)
        summary = "We keep the newest values." if violating else "The newest values hold."
        return json.dumps({"name": "Topic", "summary": summary, "superseded_ids": []})

    return answer


@pytest.mark.parametrize("violating", [False, True])
def test_the_model_path_against_an_openai_compatible_server(
    tmp_path: Path, violating: bool
) -> None:
    _, inputs = load_set()
    asked = Counter(i.prompt for i in inputs)
    episodes, topics = asked["episode_extraction"], asked["topic_summary"]
    people, contributions = asked["insights"], asked["fact_extraction"]
    assert min(asked.values()) >= 1 and len(asked) == 4
    with FakeOpenAIServer() as server:
        server.chat_responder = model(violating)
        result = run_eval(
            tmp_path,
            TG_LLM_MODEL="openai/chat-fake",
            TG_LLM_API_BASE=server.base_url,
            TG_LLM_API_KEY="test",
            TG_LLM_RETRIES="0",
        )
        requests = server.chat_requests
    out = result.stdout
    assert result.returncode == (1 if violating else 0), f"{out}\n{result.stderr[-3000:]}"
    # One request per input, none a repair round: the first pass is what is measured.
    assert len(requests) == len(inputs)
    assert all(len(r.json["messages"]) == 2 for r in requests)
    recorded, _, measured = out.partition("Writing rules on the MODEL openai/chat-fake")
    assert "TEST MODEL SERVER" in recorded and "TEST MODEL SERVER" not in measured
    assert f"{len(inputs)} prompts (no repair round, no cache)" in measured
    table = rows(measured)
    texts = episodes * 3 + topics + people * 2 + contributions * 2
    assert table["all"][0] == texts
    semantic = episodes * 2 + contributions * 2
    assert table["semantic"] == (semantic, semantic, "100.0%", 0, 0)
    assert table["episodic"][:2] == (episodes, episodes)
    assert table["insight"][:2] == (people * 2, people * 2)
    if violating:
        assert table["summary"] == (topics, 0, "0.0%", 0, topics)
        assert f"with a rejected text (the service would reprompt): {topics}" in measured
        assert "target: first pass >= 95%: MISS" in measured
        assert "summary rejected (ai_voice): 'We keep the newest values.'" in measured
    else:
        assert table["all"] == (texts, texts, "100.0%", 0, 0)
        assert "target: first pass >= 95%: PASS (100.0%)" in measured
