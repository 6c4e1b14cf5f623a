"""How often a model's texts meet the writing rules the first time (seed 001 §9; the rules:
``domain/writing.py``).

The set (``sets/writing.jsonl``) holds two kinds of lines. A recorded answer:
``{"prompt", "style"?, "answer", "source", "note"?}``: ``answer`` is a model's raw JSON
answer to ``prompt`` (``episode_extraction``, ``topic_summary``, ``insights`` or
``fact_extraction``), ``style`` the style every text of the answer has (left out where the
answer mixes styles: an episode's summary is episodic, each thought's content has its
kind's style), ``source`` whether the tests' fake model server plays it or it was written
by hand in the manner of real models (violations included). And an input for a configured
model: ``{"prompt", "input"}``, the variables ``prompt`` is rendered with.

Each answer is validated by its prompt's response model with a recorder in the validation
context, as the LLM client does, so every text is counted with its outcome: passed as
written (the first pass), trimmed, or rejected (the service would ask the model again).
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from thoughtgraph.domain.judgement import LLMUsage, UsageMeter
from thoughtgraph.domain.models import _Frozen
from thoughtgraph.domain.writing import Outcome, Style, recording
from thoughtgraph.llm.client import LLMAnswerInvalid, LLMClient, LLMError
from thoughtgraph.llm.prompts import episode_extraction, fact_extraction, insights, topic_summary
from thoughtgraph.llm.responses import parse_answer, shorten
from thoughtgraph.settings import Settings

SET_FILE = "writing.jsonl"
TARGET = 0.95  # texts that pass as written, the first time (the target)
STYLES = (Style.SEMANTIC, Style.EPISODIC, Style.INSIGHT, Style.SUMMARY)


RESPONSE_MODELS: dict[str, type[BaseModel]] = {
    module.NAME: module.Response
    for module in (episode_extraction, topic_summary, insights, fact_extraction)
}


class RecordedAnswer(_Frozen):
    line: int
    prompt: str
    answer: str
    style: Style | None = None
    source: str = ""
    note: str | None = None


class ModelInput(_Frozen):
    line: int
    prompt: str
    input: dict[str, Any]


class WritingSetError(ValueError):
    pass


def load_set(path: Path | None = None) -> tuple[list[RecordedAnswer], list[ModelInput]]:
    """The recorded answers and the model inputs of ``path`` (default: the shipped set)."""
    if path is None:
        text = (
            resources.files("thoughtgraph.tools.eval")
            .joinpath("sets", SET_FILE)
            .read_text(encoding="utf-8")
        )
    else:
        text = path.read_text(encoding="utf-8")
    answers: list[RecordedAnswer] = []
    inputs: list[ModelInput] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        item = json.loads(raw)
        if item.get("prompt") not in RESPONSE_MODELS:
            raise WritingSetError(f"line {number}: unknown prompt {item.get('prompt')!r}")
        if "input" in item:
            if item["prompt"] not in MODEL_PROMPTS:
                raise WritingSetError(f"line {number}: no prompt renders {item['prompt']!r}")
            inputs.append(ModelInput(line=number, prompt=item["prompt"], input=item["input"]))
            continue
        answer = item.get("answer")
        if not isinstance(answer, str):  # an object is taken as its JSON text
            item["answer"] = json.dumps(answer, ensure_ascii=False)
        answers.append(RecordedAnswer.model_validate({**item, "line": number}))
    return answers, inputs


@dataclass
class Tally:
    """Texts by (style, outcome), and answers: with a rejected text (the reprompt), unusable
    for another reason (no JSON, a wrong field), or failed (the provider did not answer).
    It is also the LLM client's observer on the model path."""

    texts: Counter[tuple[Style, Outcome]] = field(default_factory=Counter)
    answers: int = 0
    reprompted: int = 0
    unusable: int = 0
    failed: int = 0
    problems: list[str] = field(default_factory=list)
    _current: list[tuple[Style, Outcome]] = field(default_factory=list)

    def record(self, style: Style, outcome: Outcome) -> None:
        self._current.append((style, outcome))

    def answered(
        self, label: str, error: Exception | None, *, failed: bool = False
    ) -> list[tuple[Style, Outcome]]:
        """Close one answer: what its texts did, counted. ``failed``: no answer came."""
        seen, self._current = self._current, []
        self.texts.update(seen)
        if failed:
            self.failed += 1
        else:
            self.answers += 1
        if any(outcome is Outcome.REJECTED for _, outcome in seen):
            self.reprompted += 1
        elif error is not None and not failed:
            self.unusable += 1
        trimmed = sum(outcome is Outcome.TRIMMED for _, outcome in seen)
        if trimmed:
            self.problems.append(f"{label}: {trimmed} text(s) trimmed")
        if error is not None:
            self.problems += [f"{label}: {problem}" for problem in _described(error)]
        return seen

    def count(self, style: Style | None = None, outcome: Outcome | None = None) -> int:
        return sum(
            n
            for (s, o), n in self.texts.items()
            if (style is None or s is style) and (outcome is None or o is outcome)
        )

    def first_pass(self, style: Style | None = None) -> float | None:
        total = self.count(style)
        return self.count(style, Outcome.PASSED) / total if total else None

    def meets_target(self) -> bool:
        rate = self.first_pass()
        return rate is not None and rate >= TARGET and self.failed == 0

    # --- the LLM client's observer (LLMCallObserver) ------------------------------------

    def llm_call(
        self,
        *,
        namespace: str | None,
        prompt: str,
        model: str,
        status: str,
        seconds: float,
        usage: LLMUsage | None,
    ) -> None:
        pass

    def writing_check(self, *, prompt: str, style: str, outcome: str, attempt: str) -> None:
        self.record(Style(style), Outcome(outcome))


def evaluate_recorded(answers: Sequence[RecordedAnswer]) -> Tally:
    """Every recorded answer through its prompt's response model, as the client validates."""
    tally = Tally()
    for item in answers:
        error: Exception | None = None
        try:
            parse_answer(RESPONSE_MODELS[item.prompt], item.answer, recording(tally.record))
        except ValueError as exc:
            error = exc
        seen = tally.answered(f"line {item.line} {item.prompt}", error)
        if item.style is not None and any(style is not item.style for style, _ in seen):
            raise WritingSetError(f"line {item.line}: not every text is {item.style.value}")
    return tally


def _episode(client: LLMClient, usage: UsageMeter, given: dict[str, Any]) -> Any:
    return client.complete(
        episode_extraction.PROMPT, usage, given["transcript"], given.get("max_thoughts", 30)
    )


def _topic(client: LLMClient, usage: UsageMeter, given: dict[str, Any]) -> Any:
    thoughts = [topic_summary.ThoughtForSummary.model_validate(t) for t in given["thoughts"]]
    return client.complete(
        topic_summary.PROMPT, usage, thoughts, given.get("max_words", 150), given.get("topic")
    )


def _insights(client: LLMClient, usage: UsageMeter, given: dict[str, Any]) -> Any:
    def items(key: str) -> list[insights.ThoughtForInsight]:
        return [insights.ThoughtForInsight.model_validate(t) for t in given.get(key, [])]

    return client.complete(
        insights.PROMPT,
        usage,
        given["person"],
        items("activity"),
        items("facts"),
        given.get("snippet", ""),
    )


def _facts(client: LLMClient, usage: UsageMeter, given: dict[str, Any]) -> Any:
    return client.complete(fact_extraction.PROMPT, usage, given["contribution"])


# The prompts a model is asked on the model path, each with how an input renders it.
MODEL_PROMPTS: dict[str, Callable[[LLMClient, UsageMeter, dict[str, Any]], Any]] = {
    episode_extraction.NAME: _episode,
    topic_summary.NAME: _topic,
    insights.NAME: _insights,
    fact_extraction.NAME: _facts,
}


async def evaluate_model(client: LLMClient, inputs: Sequence[ModelInput]) -> Tally:
    """Each input's prompt sent to ``client``'s model once, without the repair round, so
    what is counted is the model's first pass. ``client``'s observer is replaced."""
    tally = Tally()
    client.observer = tally
    client.repair = False
    client.cache = None
    usage = UsageMeter()
    for item in inputs:
        label = f"line {item.line} {item.prompt}"
        try:
            await MODEL_PROMPTS[item.prompt](client, usage, item.input)
        except LLMAnswerInvalid as exc:
            tally.answered(label, exc)
        except LLMError as exc:  # the provider never answered: no text to count
            tally.answered(label, exc, failed=True)
        else:
            tally.answered(label, None)
    return tally


def _described(error: Exception) -> list[str]:
    """One line per broken field: where, what (the writing rules broken), the text."""
    cause = error if isinstance(error, ValidationError) else error.__cause__
    if not isinstance(cause, ValidationError):
        return [shorten(" ".join(str(error).split()), 200)]
    found = []
    for item in cause.errors():
        where = ".".join(str(part) for part in item["loc"])
        rules = re.search(r"writing rules \(([^)]*)\)", item["msg"])
        what = f"rejected ({rules.group(1)})" if rules else item["msg"]
        given = item.get("input")
        text = given.get("content", given) if isinstance(given, dict) else given
        found.append(f"{where} {what}: {shorten(str(text), 90)!r}")
    return found


def render_table(
    title: str, tally: Tally, *, show_problems: bool = True, with_target: bool = True
) -> str:
    """Per style and overall: texts, first-pass rate, trimmed, rejected; then the target."""
    lines = [
        title,
        "",
        f"{'style':<10}{'texts':>7}{'passed':>8}{'first pass':>12}{'trimmed':>9}{'rejected':>10}",
    ]
    for style in (*STYLES, None):
        total = tally.count(style)
        rate = tally.first_pass(style)
        lines.append(
            f"{style.value if style else 'all':<10}{total:>7}"
            f"{tally.count(style, Outcome.PASSED):>8}"
            f"{'-' if rate is None else f'{rate:.1%}':>12}"
            f"{tally.count(style, Outcome.TRIMMED):>9}"
            f"{tally.count(style, Outcome.REJECTED):>10}"
        )
    rate = tally.first_pass()
    lines += [
        "",
        f"answers: {tally.answers}; with a rejected text (the service would reprompt): "
        f"{tally.reprompted}; unusable otherwise: {tally.unusable}; failed calls: {tally.failed}",
    ]
    if with_target:
        lines.append(
            f"target: first pass >= {TARGET:.0%}: "
            f"{'PASS' if tally.meets_target() else 'MISS'}"
            f" ({'no texts' if rate is None else f'{rate:.1%}'})"
        )
    if show_problems and tally.problems:
        lines += ["", "Not passed as written:", *(f"  {p}" for p in tally.problems)]
    return "\n".join(lines)


TEST_SERVER = "test server"


async def run_writing_command(settings: Settings, args: argparse.Namespace) -> int:
    """``thoughtgraph eval writing``: the recorded answers' table; with ``llm_model`` set,
    the model's first-pass table too. Exit 1 only when a model misses the target (the
    recorded set holds violations on purpose: its MISS measures the rules, not a model)."""
    answers, inputs = load_set(args.set_path)
    where = args.set_path or f"sets/{SET_FILE}"
    served = [a for a in answers if a.source.startswith(TEST_SERVER)]
    probes = [a for a in answers if not a.source.startswith(TEST_SERVER)]
    title = (
        f"Writing rules on the TEST MODEL SERVER's recorded answers ({len(served)} answers\n"
        f"in {where}: what the tests' fake model plays). No model was asked."
    )
    print(render_table(title, evaluate_recorded(served)))
    print()
    title = (
        f"The checker on {len(probes)} hand-written probe answers in the manner of real\n"
        "models, violations included on purpose (what it catches; not a pass rate)."
    )
    print(render_table(title, evaluate_recorded(probes), with_target=False))
    if not settings.llm_model or args.recorded_only:
        print("\nNo model measured (set TG_LLM_MODEL to measure one).")
        return 0
    tally = await evaluate_model(LLMClient.from_settings(settings), inputs)
    print()
    title = (
        f"Writing rules on the MODEL {settings.llm_model}: its first answers to\n"
        f"{len(inputs)} prompts (no repair round, no cache)"
    )
    print(render_table(title, tally))
    return 0 if tally.meets_target() else 1
