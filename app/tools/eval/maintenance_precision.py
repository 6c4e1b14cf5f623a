"""``thoughtgraph eval claims PATH``: false maintenance on natural conversation.

Each LoCoMo conversation goes into a fresh namespace through the service, as a user
would contribute it: one thought per turn ("Speaker: text"), the speaker as agent, the
session as ``sessionId``, the session's date as ``validFrom``. Every turn is scanned as
the write-time scan would (against what was written before it), then one consolidation
run. Counted per 1,000 turns, per conversation (the folds) and on average: contradictions
detected, open after the run, open above the Critical-tier confidence, supersessions and
merges, with a sample of each for a person to judge. None of these conversations states a
changed fact the way an agent records one; every contradiction counts as false.

The Critical-tier threshold is chosen leave-one-conversation-out: on the two training
conversations, the lowest confidence at which open contradictions stay at most
``TARGET_PER_1000`` per 1,000 turns; reported on the left-out one. What it costs is the
share of the changed-facts set's updates the offline judge finds at or above it.

Last, the claim detector's agreement with a small labelled set written for it
(``--labelled``, JSON lines ``{"text", "claim"}``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean

from thoughtgraph.container import build_services
from thoughtgraph.domain.judgement import PairToJudge, UsageMeter
from thoughtgraph.domain.knowledge import ContradictionStatus
from thoughtgraph.domain.language.claims import is_claim
from thoughtgraph.domain.models import ThoughtFilter, ThoughtType
from thoughtgraph.features.consolidation.jobs import run_consolidation
from thoughtgraph.features.contradictions.jobs import scan_thoughts
from thoughtgraph.features.repositories import Repositories
from thoughtgraph.features.services import Services
from thoughtgraph.features.thoughts.service import ThoughtInput
from thoughtgraph.llm.embedders import TextEmbedder
from thoughtgraph.ports.clock import Clock
from thoughtgraph.settings import Settings
from thoughtgraph.tools.eval.locomo import Conversation, LocomoFormatError, load_conversations
from thoughtgraph.tools.eval.locomo_run import EvalClock, PrecomputedEmbeddings, speaker_id

TARGET_PER_1000 = 1.0
THRESHOLDS = (0.0, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.01)
SAMPLE = 3


class TickingClock(EvalClock):
    """A clock the eval sets that moves on a millisecond at every reading, as a real one
    would between two writes (events of one run are told apart by their time)."""

    def now_ms(self) -> int:
        self.at_ms += 1
        return self.at_ms


@dataclass
class EvalRuntime:
    settings: Settings
    clock: Clock
    services: Services

    @property
    def repos(self) -> Repositories:
        return self.services.repos


@dataclass
class Fold:
    sample_id: str
    turns: int = 0
    claims: int = 0
    detected: list[tuple[float, str]] = field(default_factory=list)  # confidence, pair
    open_confidences: list[float] = field(default_factory=list)
    open_samples: list[str] = field(default_factory=list)
    superseded: int = 0
    superseded_samples: list[str] = field(default_factory=list)
    merged: int = 0
    merged_samples: list[str] = field(default_factory=list)

    def per_1000(self, n: float) -> float:
        return 1000.0 * n / max(1, self.turns)

    def open_at(self, threshold: float) -> float:
        return self.per_1000(sum(c >= threshold for c in self.open_confidences))


def _short(text: str, n: int = 90) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


async def _conversation(
    settings: Settings, inner: TextEmbedder, conv: Conversation, limit: int | None
) -> Fold:
    embedder = PrecomputedEmbeddings(inner)
    clock = TickingClock(conv.last_at_ms + 24 * 3600 * 1000)
    from thoughtgraph.runtime import open_runtime

    async with open_runtime(settings, embedder=inner) as runtime:
        services = build_services(runtime.store, embedder, settings=settings, clock=clock)
        rt = EvalRuntime(settings, clock, services)
        ns = "claims-" + re.sub(r"[^A-Za-z0-9_-]", "-", conv.sample_id) + uuid.uuid4().hex[:6]
        fold = Fold(conv.sample_id)
        turns = conv.turns[:limit] if limit else conv.turns
        await embedder.warm([t.content for t in turns])
        sessions = {t.dia_id: s for s in conv.sessions for t in s.turns}
        turn_ids: list[str] = []
        try:
            for turn in turns:
                session = sessions[turn.dia_id]
                clock.at_ms += 1000  # created "now", a second or so apart, in turn order
                written = await services.thoughts.contribute(
                    ThoughtInput(
                        content=turn.content,
                        agent_id=speaker_id(turn.speaker),
                        agent_name=turn.speaker,
                        namespace=ns,
                        session_id=f"{conv.sample_id}-s{session.number}",
                        valid_from_ms=session.at_ms + turn.index * 1000,
                    )
                )
                await scan_thoughts(rt, ns, [written.thought.id])
                turn_ids.append(written.thought.id)
                fold.turns += 1
                fold.claims += is_claim(turn.content)
            clock.at_ms += 60_000
            run = await services.consolidation.request(ns, dry_run=False, trigger="eval")
            finished = await run_consolidation(rt, ns, run.id, dry_run=False)
            await _collect(services, ns, fold, turn_ids)
            fold.merged = finished.counts.deduped
        finally:
            await services.close()
    return fold


async def _collect(services: Services, ns: str, fold: Fold, turn_ids: list[str]) -> None:
    repos = services.repos
    everything = []
    for status in ContradictionStatus:
        everything += await repos.contradictions.by_status(ns, status, 10_000)
    thoughts = await repos.thoughts.get_many(ns, turn_ids)
    for c in everything:
        a, b = thoughts.get(c.thought_a_id), thoughts.get(c.thought_b_id)
        pair = f"[{c.relation} {c.confidence:.2f}] {_short(a.content if a else '?')} | vs | "
        pair += _short(b.content if b else "?")
        fold.detected.append((c.confidence, pair))
        if c.status is ContradictionStatus.OPEN:
            fold.open_confidences.append(c.confidence)
            fold.open_samples.append(pair)
    for thought in thoughts.values():
        if thought.superseded_by:
            newer = (await repos.thoughts.get_many(ns, [thought.superseded_by])).get(
                thought.superseded_by
            )
            if newer is not None and newer.type is ThoughtType.CONSOLIDATION:
                continue  # merged away, counted with the merges
            fold.superseded += 1
            by = _short(newer.content if newer else "?", 70)
            fold.superseded_samples.append(f"{_short(thought.content, 70)} | by | {by}")
    merges = await repos.thoughts.page(
        ns, ThoughtFilter(type=ThoughtType.CONSOLIDATION), None, 1_000
    )
    for merged in merges.thoughts:
        fold.merged_samples.append(
            " + ".join(_short(thoughts[s].content, 60) for s in merged.source_ids if s in thoughts)
        )


def choose_threshold(training: Sequence[Fold]) -> float:
    """The lowest threshold at which every training fold shows at most TARGET_PER_1000
    open contradictions per 1,000 turns."""
    for t in THRESHOLDS:
        if all(f.open_at(t) <= TARGET_PER_1000 for f in training):
            return t
    return THRESHOLDS[-1]


async def _update_recall(settings: Settings) -> dict[float, tuple[float, float]]:
    """On the changed-facts sets, the offline judge's flags at or above each threshold:
    share of the updates, and share of the compatible look-alikes (false flags)."""
    from thoughtgraph.features.contradictions.judge import build_judge
    from thoughtgraph.tools.eval.updates import load_pairs

    rows = [(p.kind, p.older, p.newer) for p in load_pairs()]
    domains = Path(__file__).parent / "sets" / "updates_domains.jsonl"
    if domains.exists():
        for line in domains.read_text(encoding="utf-8").splitlines():
            if line.strip():
                d = json.loads(line)
                rows.append((d["kind"], d["older"], d["newer"]))
    judge = build_judge(settings, None)
    asks = [
        PairToJudge(str(i), f"{i}a", older, 0, f"{i}b", newer, 1, 0.8)
        for i, (_, older, newer) in enumerate(rows)
    ]
    verdicts = await judge.judge(asks, UsageMeter(max_calls=0))
    n = {kind: max(1, sum(r[0] == kind for r in rows)) for kind in ("update", "compatible")}
    flagged = [(r[0], v.confidence) for r, v in zip(rows, verdicts, strict=True) if v.contradicts]
    return {
        t: (
            sum(k == "update" and c >= t for k, c in flagged) / n["update"],
            sum(k == "compatible" and c >= t for k, c in flagged) / n["compatible"],
        )
        for t in THRESHOLDS
    }


def _agreement(path: Path) -> str:
    if not path.exists():
        return f"(no labelled set at {path})"
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    tp = sum(1 for r in rows if r["claim"] and is_claim(r["text"]))
    fp = sum(1 for r in rows if not r["claim"] and is_claim(r["text"]))
    fn = sum(1 for r in rows if r["claim"] and not is_claim(r["text"]))
    agree = sum(1 for r in rows if bool(r["claim"]) == is_claim(r["text"]))
    return (
        f"claim detector on {path} ({len(rows)} texts): agreement {agree}/{len(rows)}, "
        f"claims kept {tp}/{tp + fn}, non-claims passed as claims {fp}"
    )


def render(folds: Sequence[Fold], recall: dict[float, tuple[float, float]]) -> str:
    head = (
        f"{'fold':<9}{'turns':>6}{'claims':>7}{'detect/1k':>10}{'open/1k':>8}"
        f"{'thr':>6}{'crit/1k':>8}{'upd@thr':>8}{'supers/1k':>10}{'merged/1k':>10}"
    )
    lines = [head]
    rows = []
    for f in folds:
        t = choose_threshold([g for g in folds if g is not f] or [f])
        row = (
            f.per_1000(len(f.detected)),
            f.per_1000(len(f.open_confidences)),
            t,
            f.open_at(t),
            recall.get(t, (0.0, 0.0))[0] * 100,
            f.per_1000(f.superseded),
            f.per_1000(f.merged),
        )
        rows.append(row)
        lines.append(
            f"{f.sample_id:<9}{f.turns:>6}{f.claims:>7}{row[0]:>10.1f}{row[1]:>8.1f}"
            f"{row[2]:>6.2f}{row[3]:>8.1f}{row[4]:>7.0f}%{row[5]:>10.1f}{row[6]:>10.1f}"
        )
    if rows:
        m = [mean(r[i] for r in rows) for i in range(7)]
        lines.append(
            f"{'mean':<9}{'':>6}{'':>7}{m[0]:>10.1f}{m[1]:>8.1f}{m[2]:>6.2f}{m[3]:>8.1f}"
            f"{m[4]:>7.0f}%{m[5]:>10.1f}{m[6]:>10.1f}"
        )
    everything = [t for t in THRESHOLDS if t <= 1.0]
    lines.append(
        "\nchosen on all folds (the setting): "
        f"{choose_threshold(folds):.2f}; open/1k by threshold per fold: "
        + "; ".join(
            f.sample_id + " " + " ".join(f"{t:.2f}:{f.open_at(t):.1f}" for t in everything)
            for f in folds
        )
    )
    lines.append(
        "changed-facts sets, flagged at or above (updates/compatible): "
        + " ".join(
            f"{t:.2f}:{recall[t][0] * 100:.0f}%/{recall[t][1] * 100:.1f}%" for t in everything
        )
    )
    for f in folds:
        lines.append(f"\n{f.sample_id}: samples")
        for label, items in (
            ("contradiction", [p for _, p in f.detected]),
            ("superseded", f.superseded_samples),
            ("merged", f.merged_samples),
        ):
            for item in items[:SAMPLE]:
                lines.append(f"  {label}: {item}")
    return "\n".join(lines)


@contextlib.contextmanager
def _fresh(settings: Settings) -> Iterator[Settings]:
    if settings.neo4j_uri is not None:
        yield settings
        return
    with tempfile.TemporaryDirectory(prefix="tg-claims-") as data_dir:
        yield settings.model_copy(update={"data_dir": Path(data_dir)})


async def run_claims_command(settings: Settings, args: argparse.Namespace) -> int:
    from thoughtgraph.llm.embedders import build_embedder

    try:
        conversations = load_conversations(args.path)
    except LocomoFormatError as exc:
        print(f"thoughtgraph eval claims: {exc}", file=sys.stderr)
        return 2
    settings = settings.model_copy(update={"scan_on_write": False})
    embedder = await build_embedder(settings)
    folds = []
    for conv in conversations:
        with _fresh(settings) as chosen:
            folds.append(await _conversation(chosen, embedder, conv, args.limit_turns))
        print(f"{conv.sample_id}: done", file=sys.stderr)
    print(render(folds, await _update_recall(settings)))
    print()
    print(_agreement(args.labelled))
    return 0
