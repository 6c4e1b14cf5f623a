"""``thoughtgraph export`` and ``thoughtgraph import``: move a store's contents between
stores and engines as JSON Lines (thoughtgraph.features.transfer), and load plain text
in batches."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from thoughtgraph.domain import validation as check
from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.progress import progress
from thoughtgraph.settings import Settings


def add_parsers(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = commands.add_parser(
        "export", help="write every node, edge and change event as JSON Lines (a header first)"
    )
    export.add_argument("file", type=Path, help="where to write ('-' for stdout)")
    export.add_argument("--namespace", help="only this namespace (default: all)")
    imports = commands.add_parser(
        "import",
        help="restore an export (idempotent; re-embeds when the embedder differs), or with "
        "--text load thoughts from text in batches",
    )
    imports.add_argument("file", type=Path)
    imports.add_argument(
        "--text",
        action="store_true",
        help="FILE holds one thought per line, or JSON Lines records with content and "
        "optionally kind, tags, category, agent, agentName",
    )
    imports.add_argument(
        "--namespace",
        help="--text: the namespace to write to (default 'default'); an export: only this "
        "namespace of the file",
    )


def run(settings: Settings, args: argparse.Namespace) -> int:
    if args.command == "export":
        return asyncio.run(_export(settings, args))
    return asyncio.run(_import(settings, args))


async def _export(settings: Settings, args: argparse.Namespace) -> int:
    import sys

    from thoughtgraph.features.transfer.export import Exporter
    from thoughtgraph.runtime import open_runtime

    async with open_runtime(settings) as runtime:
        exporter = Exporter(runtime.repos, runtime.embedder, runtime.store)
        namespaces = await exporter.namespaces(args.namespace)
        to_stdout = str(args.file) == "-"
        out = sys.stdout if to_stdout else args.file.open("w", encoding="utf-8")
        try:
            with progress("export", None) as shown:
                counts = await exporter.export(out, namespaces, shown)
        except BaseException:
            if not to_stdout:  # no half-written file left that looks like an export
                out.close()
                args.file.unlink(missing_ok=True)
            raise
        finally:
            if not to_stdout:
                out.close()
    print(f"exported {counts.summary()}", file=sys.stderr)
    return 0


async def _import(settings: Settings, args: argparse.Namespace) -> int:
    import sys

    from thoughtgraph.runtime import open_runtime

    if not args.file.is_file():
        raise InvalidInputError(f"no such file: {args.file}", field="file")
    only = check.require_namespace(args.namespace) if args.namespace else None
    async with open_runtime(settings) as runtime:
        with args.file.open(encoding="utf-8") as lines, progress("import", None) as shown:
            if args.text:
                from thoughtgraph.features.transfer.text import import_text

                text = await import_text(
                    runtime.services.thoughts, lines, namespace=only or "default", shown=shown
                )
                summary = text.summary()
            else:
                from thoughtgraph.features.transfer.importing import Importer

                counts = await Importer(
                    runtime.repos, runtime.embedder, fields=runtime.services.consent.fields
                ).restore(lines, only=only, shown=shown)
                summary = counts.summary()
    print(f"imported {summary}", file=sys.stderr)
    return 0
