"""``thoughtgraph eval locomo PATH`` and ``thoughtgraph eval replay PATH``: what a user gets
from the service over GraphQL with default arguments, first; then the reference rows
(BM25 alone, vector alone over the same texts) and the service's strategies; every row
per left-out conversation (fold), with mean and min-max.

``locomo``: each question asked once, ``search(query, k: 10)`` then
``assembleContext(budget: 4000, signals: {query})``, usage recording on (the default).
``replay``: the whole question set asked twice in sequence, each question through
``assembleContext`` then ``search`` as an agent would; pass 1 and pass 2 printed.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from dataclasses import dataclass, field

from thoughtgraph.llm.embedders import build_embedder
from thoughtgraph.settings import Settings
from thoughtgraph.tools.bench.timing import Latency
from thoughtgraph.tools.eval.api_service import (
    EvalService,
    as_turns,
    eval_service,
    ingest_over_api,
    user_context,
    user_search,
)
from thoughtgraph.tools.eval.fold_report import Outcome, render_folds
from thoughtgraph.tools.eval.folds import folds_by, spread
from thoughtgraph.tools.eval.locomo import (
    Conversation,
    LocomoFormatError,
    parse_ks,
)
from thoughtgraph.tools.eval.locomo_command import (
    Progress,
    _engine_settings,
    load_for_command,
    strategies,
)
from thoughtgraph.tools.eval.locomo_report import render
from thoughtgraph.tools.eval.locomo_run import (
    EvalClock,
    EvalRun,
    PrecomputedEmbeddings,
    QuestionResult,
    namespace_for,
)
from thoughtgraph.tools.eval.references import Bm25Reference, CosineReference

SEARCH_K = 10  # the public API's default
CONTEXT_BUDGET = 4000
USER_SEARCH = "search(query, k: 10): all@10"
USER_CONTEXT = "assembleContext(budget: 4000): all in context"
USER_SEARCH_BARE = "search(query, k: 10), no speakers/sessions/dates: all@10"


class RealClock(EvalClock):
    """The strategy rows ask at the service's own now, as the GraphQL rows do."""

    def now_ms(self) -> int:
        return int(time.time() * 1000)


@dataclass
class Rows:
    """Outcomes per row name, in the order rows were added; tokens per fold for context."""

    outcomes: dict[str, list[Outcome]] = field(default_factory=dict)
    tokens: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    seconds: dict[str, dict[str, list[float]]] = field(default_factory=dict)

    def add(self, row: str, sample_id: str, category: int, hit: bool) -> None:
        self.outcomes.setdefault(row, []).append(Outcome(sample_id, category, hit))

    def table(self, title: str, names: list[str]) -> str:
        return render_folds(title, [(n, self.outcomes.get(n, [])) for n in names])

    def timed_search(
        self, row: str, sid: str, svc: EvalService, namespace: str, query: str
    ) -> list[str]:
        """The user's search (GraphQL over HTTP), its wall time kept per fold."""
        started = time.perf_counter()
        found = user_search(svc, namespace, query, SEARCH_K)
        elapsed = time.perf_counter() - started
        self.seconds.setdefault(row, {}).setdefault(sid, []).append(elapsed)
        return found

    def latency_lines(self, row: str) -> list[str]:
        per_fold = {s: Latency.of(v) for s, v in self.seconds.get(row, {}).items() if v}
        cells = ", ".join(f"{s} {t.p50_ms:.0f}/{t.p95_ms:.0f}" for s, t in per_fold.items())
        return [f"  {row}: ms per call over HTTP, p50/p95 per fold: {cells}"] if cells else []

    def token_lines(self, row: str) -> list[str]:
        per_fold = self.tokens.get(row, {})
        means = {s: sum(v) / len(v) for s, v in per_fold.items() if v}
        if not means:
            return []
        cells = ", ".join(f"{s} {m:.0f}" for s, m in means.items())
        overall = spread(list(means.values()))
        return [f"  {row}: mean tokens used per fold: {cells}; mean [min-max] {overall}"]


def _header(command: str, settings: Settings, conversations: list[Conversation]) -> str:
    questions = sum(len(c.questions) for c in conversations)
    turns = sum(len(c.turns) for c in conversations)
    return (
        f"LoCoMo {command}: engine {'neo4j' if settings.neo4j_uri else 'falkordb'}, embedder "
        f"{settings.embedder.value}, {len(conversations)} conversations, {turns} turns, "
        f"{questions} questions; folds: leave one conversation out "
        f"({', '.join(c.sample_id for c in conversations)})"
    )


async def run_user_command(settings: Settings, args: argparse.Namespace) -> int:
    try:
        ks = parse_ks(args.k)
    except LocomoFormatError as exc:
        print(f"thoughtgraph eval locomo: {exc}", file=sys.stderr)
        return 2
    conversations = load_for_command(args, "locomo")
    if conversations is None:
        return 2
    started = time.monotonic()
    rows = Rows()
    run = EvalRun(engine="", ks=ks, strategies=())
    embedder = await build_embedder(settings)
    phases = Progress()
    with _engine_settings(settings, args.engine) as chosen, eval_service(chosen, embedder) as svc:
        run.engine = svc.runtime.store.engine
        cached = PrecomputedEmbeddings(svc.runtime.embedder)
        built = strategies(svc.services, cached, RealClock())
        run.strategies = ("BM25", "cosine", *(s.name for s in built))
        prefix = f"locomo-{uuid.uuid4().hex[:6]}"
        try:
            for conversation in conversations:
                namespace = namespace_for(prefix, conversation.sample_id)
                step = phases(f"ingest {conversation.sample_id}", len(conversation.turns))
                ingest_started = time.monotonic()
                turns_of = ingest_over_api(svc, namespace, conversation, step)
                run.ingest_s += time.monotonic() - ingest_started
                _ask_locomo(
                    svc, cached, built, namespace, conversation, turns_of, rows, run, phases
                )
                _ask_without_metadata(svc, f"{namespace}-bare", conversation, rows, phases)
        finally:
            phases.close()
    run.conversations = len(conversations)
    run.turns = sum(len(c.turns) for c in conversations)
    run.skipped_questions = sum(c.skipped_questions for c in conversations)
    run.dropped_evidence = sum(c.dropped_evidence for c in conversations)
    run.total_s = time.monotonic() - started
    print(_header("evidence recall", chosen, conversations))
    print()
    print(
        rows.table(
            "What a user gets (GraphQL, defaults), per left-out conversation",
            [USER_SEARCH, USER_CONTEXT, USER_SEARCH_BARE],
        )
    )
    print("\n".join(rows.token_lines(USER_CONTEXT)))
    print("\n".join(rows.latency_lines(USER_SEARCH) + rows.latency_lines(USER_SEARCH_BARE)))
    print()
    print(rows.table("Reference rows (same texts): all@10", ["BM25 alone", "vector alone"]))
    print()
    print(
        rows.table(
            "Service strategies (in-process, no usage recorded): all@10",
            [f"strategy {s}" for s in run.strategies[2:]],
        )
    )
    print()
    print("Pooled over the folds, in-process rows (BM25 = BM25 alone, cosine = vector alone):")
    print(render(run))
    return 0


def _ask_without_metadata(
    svc: EvalService,
    namespace: str,
    conversation: Conversation,
    rows: Rows,
    phases: Progress,
) -> None:
    """The same texts ingested as a user who sends no metadata would (one agent, no
    sessions, no dates), asked with the default search: what the default gives then."""
    sid = conversation.sample_id
    step = phases(f"ingest {sid} without metadata", len(conversation.turns))
    turns_of = ingest_over_api(svc, namespace, conversation, step, bare=True)
    step = phases(f"ask {sid} without metadata", len(conversation.questions))
    for question in conversation.questions:
        searched = rows.timed_search(USER_SEARCH_BARE, sid, svc, namespace, question.text)
        found = as_turns(searched, turns_of)
        rows.add(USER_SEARCH_BARE, sid, question.category, set(question.evidence) <= set(found))
        step(1)


def _ask_locomo(
    svc: EvalService,
    cached: PrecomputedEmbeddings,
    built: list,  # type: ignore[type-arg]
    namespace: str,
    conversation: Conversation,
    turns_of: dict[str, list[str]],
    rows: Rows,
    run: EvalRun,
    phases: Progress,
) -> None:
    turns = conversation.turns
    svc.call(cached.warm([t.content for t in turns] + [q.text for q in conversation.questions]))
    vectors = svc.call(cached.async_embed_documents([t.content for t in turns]))
    bm25, cosine = Bm25Reference(turns), CosineReference(turns, vectors)
    deepest = max(*run.ks, SEARCH_K)
    sid = conversation.sample_id
    step = phases(f"ask {sid}", len(conversation.questions))
    for question in conversation.questions:
        evidence = set(question.evidence)
        query_vector = svc.call(cached.async_embed_query(question.text))
        ranked = {
            "BM25": bm25.rank(question.text, deepest),
            "cosine": cosine.rank(query_vector, deepest),
        }
        for strategy in built:
            hits = svc.call(strategy.search(namespace, question.text, deepest))
            ranked[strategy.name] = as_turns([h.thought.id for h in hits], turns_of)
        run.results.append(QuestionResult(sid, question, ranked))
        rows.add("BM25 alone", sid, question.category, evidence <= set(ranked["BM25"][:10]))
        rows.add("vector alone", sid, question.category, evidence <= set(ranked["cosine"][:10]))
        for strategy in built:
            hit = evidence <= set(ranked[strategy.name][:10])
            rows.add(f"strategy {strategy.name}", sid, question.category, hit)
        # What a user gets, last: these calls record usage, as a user's do.
        found = as_turns(
            rows.timed_search(USER_SEARCH, sid, svc, namespace, question.text), turns_of
        )
        rows.add(USER_SEARCH, sid, question.category, evidence <= set(found))
        ids, tokens = user_context(svc, namespace, question.text, CONTEXT_BUDGET)
        rows.add(USER_CONTEXT, sid, question.category, evidence <= set(as_turns(ids, turns_of)))
        rows.tokens.setdefault(USER_CONTEXT, {}).setdefault(sid, []).append(tokens)
        step(1)


async def run_replay_command(settings: Settings, args: argparse.Namespace) -> int:
    conversations = load_for_command(args, "replay")
    if conversations is None:
        return 2
    rows = Rows()
    embedder = await build_embedder(settings)
    phases = Progress()
    with _engine_settings(settings, args.engine) as chosen, eval_service(chosen, embedder) as svc:
        prefix = f"replay-{uuid.uuid4().hex[:6]}"
        try:
            spaces = {}
            for conversation in conversations:
                namespace = namespace_for(prefix, conversation.sample_id)
                step = phases(f"ingest {conversation.sample_id}", len(conversation.turns))
                spaces[conversation.sample_id] = (
                    namespace,
                    ingest_over_api(svc, namespace, conversation, step),
                )
            for number in (1, 2):
                for conversation in conversations:
                    namespace, turns_of = spaces[conversation.sample_id]
                    sid = conversation.sample_id
                    step = phases(f"pass {number} {sid}", len(conversation.questions))
                    for question in conversation.questions:
                        evidence = set(question.evidence)
                        ids, tokens = user_context(svc, namespace, question.text, CONTEXT_BUDGET)
                        context_row = f"pass {number} assembleContext: all in context"
                        rows.add(
                            context_row,
                            sid,
                            question.category,
                            evidence <= set(as_turns(ids, turns_of)),
                        )
                        rows.tokens.setdefault(context_row, {}).setdefault(sid, []).append(tokens)
                        found = as_turns(
                            user_search(svc, namespace, question.text, SEARCH_K), turns_of
                        )
                        rows.add(
                            f"pass {number} search: all@10",
                            sid,
                            question.category,
                            evidence <= set(found),
                        )
                        step(1)
        finally:
            phases.close()
    print(
        _header(
            "replay (assembleContext then search per question, usage on)", chosen, conversations
        )
    )
    print()
    names = [f"pass {n} search: all@10" for n in (1, 2)] + [
        f"pass {n} assembleContext: all in context" for n in (1, 2)
    ]
    print(rows.table("Replay: the question set asked twice in sequence", names))
    for n in (1, 2):
        print("\n".join(rows.token_lines(f"pass {n} assembleContext: all in context")))
    print()
    for kind in ("search: all@10", "assembleContext: all in context"):
        first = rows.outcomes.get(f"pass 1 {kind}", [])
        second = rows.outcomes.get(f"pass 2 {kind}", [])
        deltas = []
        for fold_1, fold_2 in zip(
            folds_by(lambda o: o.sample_id, first),
            folds_by(lambda o: o.sample_id, second),
            strict=True,
        ):
            deltas.append(_headline(fold_2.test) - _headline(fold_1.test))
        print(
            f"pass 2 - pass 1, {kind}, categories 1-4, per fold: "
            + ", ".join(f"{d:+.1f}" for d in deltas)
            + f"; {spread(deltas)}"
        )
    return 0


def _headline(outcomes: tuple[Outcome, ...]) -> float:
    chosen = [o for o in outcomes if o.category in (1, 2, 3, 4)]
    return 100.0 * sum(o.hit for o in chosen) / len(chosen) if chosen else 0.0
