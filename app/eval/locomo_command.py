"""The ``thoughtgraph eval locomo PATH`` command: settings for the chosen engine, the
strategies, a progress bar on a terminal (plain lines otherwise), the tables."""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

from app.domain.errors import ConfigurationError
from app.eval.locomo import LocomoFormatError, load_conversations, parse_ks
from app.eval.locomo_report import render
from app.eval.locomo_run import EvalClock, PrecomputedEmbeddings, asking_view, run_locomo
from app.eval.locomo_strategies import (
    ExpandedRetriever,
    FullRetriever,
    Retriever,
    VectorRetriever,
)
from app.retrieval.expansion import StoreExpansionReader
from app.services.container import Services
from app.settings import Settings


def strategies(
    services: Services, embedder: PrecomputedEmbeddings, clock: EvalClock
) -> list[Retriever]:
    view = asking_view(clock)
    reader = StoreExpansionReader(services.store)
    vector = VectorRetriever(services.store, embedder, view)
    full = FullRetriever(services.search, view)
    return [
        vector,
        full,
        ExpandedRetriever(vector, reader, embedder, view),
        ExpandedRetriever(full, reader, embedder, view),
    ]


class Progress:
    """tqdm bars when stderr is a terminal; otherwise one line per phase when it ends."""

    def __init__(self, *, bars: bool) -> None:
        self._bars = bars
        self._stack = contextlib.ExitStack()

    def __call__(self, label: str, total: int) -> Callable[[int], None]:
        self._stack.close()
        if self._bars:
            from tqdm import tqdm

            bar = self._stack.enter_context(tqdm(total=total, desc=label, file=sys.stderr))

            def advance(n: int) -> None:
                bar.update(n)

            return advance
        return self._plain(label, total)

    def _plain(self, label: str, total: int) -> Callable[[int], None]:
        done = 0
        started = time.monotonic()

        def step(n: int) -> None:
            nonlocal done
            done += n
            if done == total:
                seconds = time.monotonic() - started
                print(f"{label}: {done}/{total} in {seconds:.1f} s", file=sys.stderr, flush=True)

        return step

    def close(self) -> None:
        self._stack.close()


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
    from app.runtime import open_runtime

    try:
        ks = parse_ks(args.k)
        conversations = load_conversations(args.path)
    except LocomoFormatError as exc:
        print(f"thoughtgraph eval locomo: {exc}", file=sys.stderr)
        return 2
    if args.limit_questions is not None:
        conversations = [
            c.__class__(**{**c.__dict__, "questions": c.questions[: args.limit_questions]})
            for c in conversations
        ]
    progress = Progress(bars=sys.stderr.isatty())
    started = time.monotonic()
    settings = settings.model_copy(update={"scan_on_write": False})
    with _engine_settings(settings, args.engine) as chosen:
        async with open_runtime(chosen) as runtime:
            try:
                run = await run_locomo(
                    runtime,
                    conversations,
                    ks=ks,
                    build_strategies=strategies,
                    prefix=f"locomo-{uuid.uuid4().hex[:6]}",
                    progress=progress,
                )
            finally:
                progress.close()
    print(render(run))
    print(f"\nTotal {time.monotonic() - started:.1f} s")
    return 0
