"""``thoughtgraph reembed``: make every vector again with another embedder while the
service keeps serving, then switch to it (thoughtgraph.features.reembedding)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from contextlib import ExitStack
from dataclasses import asdict
from pathlib import Path

from thoughtgraph.domain.vector_space import EMBEDDER_KINDS, embedder_overrides
from thoughtgraph.features.reembedding.repository import KINDS
from thoughtgraph.progress import Progress, progress
from thoughtgraph.settings import Settings


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    reembed = commands.add_parser(
        "reembed",
        help="re-embed every thought, reason, topic and episode with another embedder while "
        "the service serves, then switch to it (resumable: run it again after a stop)",
    )
    reembed.add_argument("--embedder", choices=EMBEDDER_KINDS, help="the new embedder")
    reembed.add_argument("--model", help="its model (litellm: required; local: a path)")
    reembed.add_argument("--dimension", type=int, help="its dimension (hash: required)")
    reembed.add_argument("--api-base", help="litellm: the API base URL")
    reembed.add_argument(
        "--grace",
        type=float,
        help="seconds between the switch and dropping the old vectors, for requests "
        "still using them to finish (default TG_REEMBED_GRACE_S, 75)",
    )
    reembed.add_argument(
        "--status", action="store_true", help="print the store's vector spaces and exit"
    )
    reembed.add_argument(
        "--data-dir",
        type=Path,
        help="embedded engine's data dir (TG_DATA_DIR); a running service's is attached to",
    )


def run(settings: Settings, args: argparse.Namespace) -> int:
    if args.data_dir is not None:
        settings = settings.model_copy(update={"data_dir": args.data_dir})
    if args.status:
        return asyncio.run(_status(settings))
    if args.embedder is None:
        print("thoughtgraph reembed: --embedder is required (or --status)", file=sys.stderr)
        return 2
    overrides = embedder_overrides(
        args.embedder, model=args.model, dimension=args.dimension, api_base=args.api_base
    )
    return asyncio.run(_reembed(settings, overrides, args.grace))


async def _status(settings: Settings) -> int:
    from thoughtgraph.cli.attach import attaches
    from thoughtgraph.runtime import open_runtime

    async with open_runtime(settings, attach=attaches(settings)) as runtime:
        spaces = await runtime.services.reembedding.status()
    print(json.dumps(asdict(spaces), indent=2, sort_keys=True))
    return 0


async def _reembed(settings: Settings, overrides: dict[str, object], grace_s: float | None) -> int:
    from thoughtgraph.cli.attach import attaches
    from thoughtgraph.runtime import open_runtime

    async with open_runtime(settings, attach=attaches(settings)) as runtime:
        with NamespaceProgress() as shown:
            report = await runtime.services.reembedding.run(
                overrides, progressed=shown.advance, grace_s=grace_s
            )
    written = ", ".join(f"{report.written[kind]} {kind}" for kind in KINDS)
    print(
        f"re-embedded {written} with {report.embedder} ({report.dimension} dimensions): "
        f"{report.filling_s:.1f} s filling ({report.thoughts_per_second:.0f} thoughts/s, "
        f"{report.passes} passes), {report.seconds:.1f} s in all; active slot {report.slot}"
        + ("" if report.switched else " (switched already)"),
        file=sys.stderr,
    )
    return 0


class NamespaceProgress:
    """A progress bar (or lines) per namespace: the vectors written there so far."""

    def __init__(self) -> None:
        self._stack = ExitStack()
        self._namespace: str | None = None
        self._shown: Progress | None = None

    def __enter__(self) -> NamespaceProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stack.close()

    def advance(self, namespace: str, kind: str, count: int) -> None:
        del kind
        if count == 0:  # a page with nothing left (the last of each pass)
            return
        if namespace != self._namespace or self._shown is None:
            self._stack.close()
            self._stack = ExitStack()
            self._shown = self._stack.enter_context(progress(f"reembed {namespace}", None))
            self._namespace = namespace
        self._shown.advance(count)
