"""The ``thoughtgraph eval locomo PATH`` and ``eval context PATH`` commands: settings for
the chosen engine, the strategies, progress per phase, the tables."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from thoughtgraph.domain.errors import ConfigurationError
from thoughtgraph.features.search.expansion import StoreExpansionReader
from thoughtgraph.features.services import Services
from thoughtgraph.progress import progress
from thoughtgraph.settings import Settings
from thoughtgraph.tools.eval.context_eval import EVERYTHING, ContextStrategies, render_context
from thoughtgraph.tools.eval.locomo import (
    Conversation,
    LocomoFormatError,
    load_conversations,
    parse_ks,
)
from thoughtgraph.tools.eval.locomo_report import render
from thoughtgraph.tools.eval.locomo_run import (
    EvalClock,
    EvalRun,
    PrecomputedEmbeddings,
    asking_view,
    run_locomo,
)
from thoughtgraph.tools.eval.locomo_strategies import (
    FULL,
    HYBRID,
    ExpandedRetriever,
    Retriever,
    ServiceRetriever,
    VectorRetriever,
)


def strategies(
    services: Services, embedder: PrecomputedEmbeddings, clock: EvalClock
) -> list[Retriever]:
    view = asking_view(clock)
    reader = StoreExpansionReader(services.repos)
    vector = VectorRetriever(services.repos, embedder, view)
    return [
        vector,
        ServiceRetriever("hybrid", services.search, view, HYBRID),
        ExpandedRetriever(vector, reader, embedder, view),
        ServiceRetriever("full", services.search, view, FULL),
    ]


class Progress:
    """One :func:`thoughtgraph.progress.progress` report per phase (a bar on a terminal, plain
    lines otherwise); a phase ends when the next one starts."""

    def __init__(self) -> None:
        self._stack = contextlib.ExitStack()

    def __call__(self, label: str, total: int) -> Callable[[int], None]:
        self._stack.close()
        return self._stack.enter_context(progress(label, total)).advance

    def close(self) -> None:
        self._stack.close()


def load_for_command(args: argparse.Namespace, command: str) -> list[Conversation] | None:
    """The file's conversations, the first ``--limit-questions`` questions of each; None
    (the error printed for the command) when the file is not LoCoMo."""
    try:
        conversations = load_conversations(args.path)
    except LocomoFormatError as exc:
        print(f"thoughtgraph eval {command}: {exc}", file=sys.stderr)
        return None
    if args.limit_questions is not None:
        conversations = [
            dataclasses.replace(c, questions=c.questions[: args.limit_questions])
            for c in conversations
        ]
    return conversations


@contextlib.contextmanager
def _engine_settings(settings: Settings, engine: str | None) -> Iterator[Settings]:
    if engine == "neo4j" and settings.neo4j_uri is None:
        raise ConfigurationError("--engine neo4j needs TG_NEO4J_URI", setting="neo4j_uri")
    if engine == "falkordb" or settings.neo4j_uri is None:
        with tempfile.TemporaryDirectory(prefix="tg-locomo-") as data_dir:
            yield settings.model_copy(update={"neo4j_uri": None, "data_dir": Path(data_dir)})
        return
    yield settings


async def run_locomo_command(settings: Settings, args: argparse.Namespace) -> int:
    try:
        ks = parse_ks(args.k)
    except LocomoFormatError as exc:
        print(f"thoughtgraph eval locomo: {exc}", file=sys.stderr)
        return 2
    run = await run_on_conversations(settings, args, strategies, ks, "locomo")
    if run is None:
        return 2
    print(render(run))
    return 0


async def run_context_command(settings: Settings, args: argparse.Namespace) -> int:
    try:
        budgets = parse_ks(args.budgets, "--budgets")
    except LocomoFormatError as exc:
        print(f"thoughtgraph eval context: {exc}", file=sys.stderr)
        return 2
    built = ContextStrategies(budgets)
    run = await run_on_conversations(settings, args, built, (EVERYTHING,), "context")
    if run is None:
        return 2
    print(render_context(run, built.built))
    return 0


async def run_on_conversations(
    settings: Settings,
    args: argparse.Namespace,
    build_strategies: Callable[[Services, PrecomputedEmbeddings, EvalClock], list[Retriever]],
    ks: tuple[int, ...],
    command: str,
) -> EvalRun | None:
    """Ingest the file's conversations into a fresh store (or namespaces of their own on
    Neo4j) and ask every question of every strategy; None when the file is not LoCoMo."""
    from thoughtgraph.runtime import open_runtime

    conversations = load_for_command(args, command)
    if conversations is None:
        return None
    phases = Progress()
    started = time.monotonic()
    settings = settings.model_copy(update={"scan_on_write": False})
    with _engine_settings(settings, args.engine) as chosen:
        async with open_runtime(chosen) as runtime:
            try:
                run = await run_locomo(
                    runtime,
                    conversations,
                    ks=ks,
                    build_strategies=build_strategies,
                    prefix=f"{command}-{uuid.uuid4().hex[:6]}",
                    progress=phases,
                )
            finally:
                phases.close()
    run.total_s = time.monotonic() - started
    return run
