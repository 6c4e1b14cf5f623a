"""``thoughtgraph eval updates``: the changed-facts set, judge alone and through the
service, as tables (offline by default; ``--model-server`` for the LLM path)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tempfile
from pathlib import Path

from pydantic import SecretStr

from thoughtgraph.settings import Settings


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    evaluate = commands.add_parser("eval", help="measure quality on an evaluation set; tables")
    sets = evaluate.add_subparsers(dest="eval_set", required=True)
    updates = sets.add_parser(
        "updates", help="changed facts vs compatible look-alikes: detection, precision, ranking"
    )
    updates.add_argument(
        "--model-server",
        action="store_true",
        help="run the LLM path against the built-in test model server (an oracle that "
        "answers from the set's labels and rate-limits every 7th call with HTTP 429)",
    )
    updates.add_argument(
        "--judge-only", action="store_true", help="only the judge table (no service run)"
    )
    updates.add_argument("--limit", type=int, help="only the first N pairs of each kind")
    updates.add_argument(
        "--fit",
        action="store_true",
        help="re-fit the offline update model on every domain + the small set and write its "
        "weights (after printing the leave-one-domain-out table)",
    )
    locomo = sets.add_parser(
        "locomo",
        help="LoCoMo long conversations: evidence recall@k per category, per strategy",
    )
    locomo.add_argument("path", type=Path, help="the LoCoMo JSON file (e.g. locomo10.json)")
    locomo.add_argument(
        "--engine",
        choices=("falkordb", "neo4j"),
        help="falkordb: a fresh embedded engine; neo4j: the server at TG_NEO4J_URI "
        "(default: neo4j when TG_NEO4J_URI is set)",
    )
    locomo.add_argument("--k", default="5,10,20", help="cut-offs, comma-separated")
    locomo.add_argument(
        "--limit-questions", type=int, help="only the first N questions of each conversation"
    )
    claims = sets.add_parser(
        "claims",
        help="false maintenance on conversation: contradictions, supersessions and merges "
        "per 1,000 turns per conversation (fold); the claim detector's agreement",
    )
    claims.add_argument("path", type=Path, help="the LoCoMo JSON file (e.g. locomo10.json)")
    claims.add_argument(
        "--labelled",
        type=Path,
        default=Path("tests/fixtures/claims_labelled.jsonl"),
        help="labelled texts, JSON lines {text, claim}",
    )
    claims.add_argument("--limit-turns", type=int, help="only the first N turns of each")
    replay = sets.add_parser(
        "replay",
        help="the question set asked twice over GraphQL (assembleContext then search, usage "
        "on): pass 1 and pass 2 per left-out conversation",
    )
    maintenance = sets.add_parser(
        "maintenance",
        help="false maintenance on conversations: contradictions, supersessions and merges "
        "per 1,000 turns after the write-time scans and a consolidation run, with samples",
    )
    expansion = sets.add_parser(
        "expansion",
        help="the graph expansion's weights chosen on training folds, left-out figures",
    )
    for parser in (replay, maintenance, expansion):
        parser.add_argument("path", type=Path, help="the LoCoMo JSON file")
        parser.add_argument("--engine", choices=("falkordb", "neo4j"))
        parser.add_argument(
            "--limit-questions", type=int, help="only the first N questions of each conversation"
        )
    fusion = sets.add_parser(
        "fusion",
        help="the hybrid search's fusion weight chosen on training folds, left-out figures",
    )
    fusion.add_argument("path", type=Path, help="the LoCoMo JSON file (e.g. locomo10.json)")
    context = sets.add_parser(
        "context",
        help="LoCoMo questions through assembleContext: share with every evidence turn in the "
        "context, per category and budget, and mean tokens used",
    )
    context.add_argument("path", type=Path, help="the LoCoMo JSON file (e.g. locomo10.json)")
    context.add_argument(
        "--engine",
        choices=("falkordb", "neo4j"),
        help="falkordb: a fresh embedded engine; neo4j: the server at TG_NEO4J_URI",
    )
    context.add_argument("--budgets", default="2000,4000,8000", help="token budgets, commas")
    context.add_argument(
        "--limit-questions", type=int, help="only the first N questions of each conversation"
    )
    writing = sets.add_parser(
        "writing",
        help="the writing rules: first-pass rate of recorded answers and, with TG_LLM_MODEL, "
        "of the model's answers, per style",
    )
    writing.add_argument(
        "--set", type=Path, dest="set_path", help="a set file (default: sets/writing.jsonl)"
    )
    writing.add_argument(
        "--recorded-only", action="store_true", help="do not ask the configured model"
    )


def run(settings: Settings, args: argparse.Namespace) -> int:
    if args.eval_set == "locomo":
        from thoughtgraph.tools.eval.user_command import run_user_command

        return asyncio.run(run_user_command(settings, args))
    if args.eval_set == "replay":
        from thoughtgraph.tools.eval.user_command import run_replay_command

        return asyncio.run(run_replay_command(settings, args))
    if args.eval_set == "maintenance":
        from thoughtgraph.tools.eval.maintenance import run_maintenance_command

        return asyncio.run(run_maintenance_command(settings, args))
    if args.eval_set == "claims":
        from thoughtgraph.tools.eval.maintenance_precision import run_claims_command

        return asyncio.run(run_claims_command(settings, args))
    if args.eval_set == "fusion":
        from thoughtgraph.tools.eval.fusion import run_fusion_command

        return asyncio.run(run_fusion_command(settings, args))
    if args.eval_set == "expansion":
        from thoughtgraph.tools.eval.expansion_folds import run_expansion_command

        return asyncio.run(run_expansion_command(settings, args))
    if args.eval_set == "writing":
        from thoughtgraph.tools.eval.writing import run_writing_command

        return asyncio.run(run_writing_command(settings, args))
    if args.eval_set == "context":
        from thoughtgraph.tools.eval.locomo_command import run_context_command

        return asyncio.run(run_context_command(settings, args))
    return asyncio.run(_updates(settings, args))


async def _updates(settings: Settings, args: argparse.Namespace) -> int:
    from thoughtgraph.features.contradictions.judge import build_judge
    from thoughtgraph.llm.client import build_llm_client
    from thoughtgraph.llm.embedders import build_embedder
    from thoughtgraph.runtime import open_runtime
    from thoughtgraph.tools.eval.model_server import MODEL, OracleModelServer
    from thoughtgraph.tools.eval.pipeline import MIN_NEWER_FIRST, evaluate_pipeline, render_pipeline
    from thoughtgraph.tools.eval.updates import (
        DOMAIN_FILE,
        HELD_OUT,
        evaluate_judge,
        load_pairs,
        render_table,
    )

    pairs = load_pairs(DOMAIN_FILE)
    if args.limit:
        pairs = [p for p in pairs if p.kind == "update"][: args.limit] + [
            p for p in pairs if p.kind == "compatible"
        ][: args.limit]
    with contextlib.ExitStack() as stack:
        if args.model_server:
            server = stack.enter_context(OracleModelServer(pairs))
            settings = settings.model_copy(
                update={
                    "llm_model": MODEL,
                    "llm_api_base": server.base_url,
                    "llm_api_key": SecretStr("eval"),  # litellm's OpenAI client wants one
                    "llm_cache": False,
                }
            )
        embedder = await build_embedder(settings)
        if not args.limit:
            from thoughtgraph.tools.eval import updates_folds as folds
            from thoughtgraph.tools.eval.near_duplicate_folds import render_near_duplicate_folds

            domain, extra = await folds.featurise_sets(embedder)
            print(folds.render_folds(folds.cross_validate(domain, extra)))
            print()
            cosines = {p.id: float(c) for p, c in zip(domain.pairs, domain.sim, strict=True)}
            print(render_near_duplicate_folds(pairs, cosines))
            print()
            if args.fit:
                from thoughtgraph.domain.language.update_model import write_model

                path = write_model(folds.fit_all(domain, extra), "15 domains + small set")
                print(f"wrote {path}")
                return 0
        judge = build_judge(settings, build_llm_client(settings))
        report = await evaluate_judge(
            judge, embedder, min_similarity=settings.contradiction_min_similarity, pairs=pairs
        )
        print(render_table(report, targets=HELD_OUT))
        ok = report.meets(HELD_OUT)
        if args.judge_only:
            return 0 if ok else 1
        if settings.neo4j_uri is None:
            data_dir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="tg-eval-")))
            settings = settings.model_copy(update={"data_dir": data_dir})
        settings = settings.model_copy(update={"scan_on_write": False})
        async with open_runtime(settings, embedder=embedder) as runtime:
            pipeline = await evaluate_pipeline(runtime, pairs)
        print()
        print(render_pipeline(pipeline))
        if args.model_server:
            print(f"\nModel server: {server.requests} requests, {server.rate_limited} answered 429")
        ok = ok and pipeline.newer_first >= MIN_NEWER_FIRST
        return 0 if ok else 1
