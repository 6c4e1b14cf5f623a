"""The memory explorer (/explore) is served by the service itself and shows, on both engines,
what the GraphQL API says.

Cytoscape.js was copied from npm by scripts/build-explorer (web/explorer/package-lock.json
pins it); the manifest recorded then must match the lock file and the shipped bytes. The
routes are checked without an engine. Then, on each engine, a service that requires API
keys gets a lineage (refinements, a consolidation, a supersession), a contradiction found
by the scan a worker would run and a consolidation run (topics, a merge of two
near-duplicates), all written through GraphQL or the jobs themselves; the explorer runs in
Debian's headless Chromium, driven by playwright-core (tests/browser/explorer.mjs), with
the key typed into its settings and every request to another origin aborted. Each view's
texts and ids are compared with the API's answer, the resolve and undo clicked in the page
are read back through the API, and a screenshot of each view is kept in tmp_path (and in
TG_SCREENSHOT_DIR/<engine>/ when set).

The browser test needs /usr/bin/chromium (TG_TEST_CHROMIUM names another) and
`npm ci --prefix tests/browser`; without them it is skipped, except under CI=true.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from tests.api.explorer_seed import (
    CHAIN,
    CONSOLIDATED,
    CONTEXT,
    CONTEXT_BUDGET,
    CONTEXT_QUERY,
    CONTRADICTIONS,
    RUNS,
    SEARCH,
    SEARCH_QUERY,
    THOUGHT,
    TIMELINE,
    TOPICS,
    KeyedClient,
    expected_edges,
    seed,
)
from tests.browser_support import CHROMIUM, driver_command
from tests.browser_support import run_driver as run_browser_driver
from tests.vendored_assets_support import check_manifest, check_shipped_files_are_installed
from thoughtgraph.api.explorer.page import ASSETS_DIR, ASSETS_PATH, CONTENT_SECURITY_POLICY
from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.domain.access import Role
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.tools.eval.api_service import eval_service

ROOT = Path(__file__).resolve().parents[2]
NPM_DIR = ROOT / "web" / "explorer"
OWN_FILES = {
    "manifest.json",
    "explorer.css",
    "explorer-core.js",
    "explorer-graph.js",
    "explorer-thoughts.js",
    "explorer-maintenance.js",
    "explorer-main.js",
}
ASSET_URL = re.compile(r'(?:src|href)="(explore-assets/[^"]+)"')
VIEWS = ("search", "thought", "contradictions", "topics", "runs", "timeline", "context")


# --- the shipped files and the lock file -------------------------------------------------


def test_the_manifest_matches_the_lock_file_and_the_shipped_files() -> None:
    recorded = check_manifest(NPM_DIR, ASSETS_DIR, OWN_FILES, "scripts/build-explorer")
    pinned = json.loads((NPM_DIR / "package.json").read_text())["dependencies"]
    assert set(recorded["packages"]) == set(pinned)  # every pinned package is shipped
    assert "LICENSE.cytoscape" in recorded["files"]


def test_shipped_files_are_the_installed_npm_files() -> None:
    check_shipped_files_are_installed(NPM_DIR, ASSETS_DIR)


# --- the routes, no engine needed ---------------------------------------------------------


def fetch(app: Starlette, path: str) -> httpx.Response:
    """One request straight to the ASGI app: no lifespan, so no engine starts."""

    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost:8000") as c:
            return await c.get(path)

    return asyncio.run(send())


def page_assets(html: str) -> list[str]:
    return ["/" + url for url in ASSET_URL.findall(html)]


def asset_name(url: str) -> str:
    return url.split("?")[0].rsplit("/", 1)[1]


@pytest.mark.parametrize("require_keys", [False, True])
def test_the_page_loads_only_files_of_this_service(tmp_path: Path, require_keys: bool) -> None:
    app = create_app(Settings(data_dir=tmp_path / "data", require_keys=require_keys))
    page = fetch(app, "/explore")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "script-src 'self';" in CONTENT_SECURITY_POLICY
    assert "connect-src 'self';" in CONTENT_SECURITY_POLICY
    assert not re.search(r"(?:src|href)=\"(?:https?:)?//", page.text)
    assert "<script>" not in page.text  # no inline script: the policy would refuse it
    assets = page_assets(page.text)
    assert {asset_name(url) for url in assets} == OWN_FILES - {"manifest.json"} | {
        "cytoscape.min.js"
    }
    for url in assets:
        served = fetch(app, url)
        name = asset_name(url)
        assert served.status_code == 200, url
        assert served.content == (ASSETS_DIR / name).read_bytes(), url
        # The URL carries the file's digest, so the file may be cached for good.
        assert url.endswith("?v=" + hashlib.sha256(served.content).hexdigest()[:16]), url
        assert "immutable" in served.headers["cache-control"], url
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        assert served.headers["content-type"].startswith(kind), url
    assert fetch(app, f"{ASSETS_PATH}/page.py").status_code == 404
    assert fetch(app, f"{ASSETS_PATH}/..%2Fpage.py").status_code == 404


# --- the explorer in headless Chromium, on both engines ----------------------------------


@pytest.fixture
def browser_driver() -> list[str]:
    return driver_command("explorer.mjs", "the explorer test")


def run_driver(command: list[str], config: dict[str, Any]) -> dict[str, Any]:
    return run_browser_driver(command, config, name="explorer", timeout=400)


def keep_screenshots(report: dict[str, Any], engine: str) -> None:
    """Copies the screenshots to TG_SCREENSHOT_DIR/<engine>/ when it is set."""
    target = os.environ.get("TG_SCREENSHOT_DIR")
    if not target:
        return
    folder = Path(target) / engine
    folder.mkdir(parents=True, exist_ok=True)
    for path in report["screenshots"].values():
        shutil.copy(path, folder / Path(path).name)


def test_the_explorer_shows_what_the_api_says_and_decides_through_it(
    engine: str,
    engine_settings: Callable[..., Settings],
    local_embedder: TextEmbedder,
    browser_driver: list[str],
    ns: str,
    tmp_path: Path,
) -> None:
    keys = KeyFile(tmp_path / "keys.json")
    _, key = keys.create(
        name="explorer",
        namespaces=[ns],
        agent_id="curator",
        agent_name="Curator",
        role=Role.ADMIN,
    )
    settings = engine_settings(
        embedder=EmbedderKind.LOCAL, keys_file=keys.path, require_keys=True, scan_on_write=False
    )
    shots = tmp_path / "screenshots"
    shots.mkdir()
    with eval_service(settings, local_embedder) as svc:
        base_url = svc.thread.base_url
        api = KeyedClient(base_url, key)
        seeded = seed(api, svc, ns)
        before = {
            "search": api.data(SEARCH, ns=ns, q=SEARCH_QUERY)["search"],
            "thought": api.data(THOUGHT, ns=ns, id=seeded.consolidated),
            "open": api.data(CONTRADICTIONS, ns=ns, status="OPEN")["contradictions"],
            "topics": api.data(TOPICS, ns=ns)["topics"],
            "runs": api.data(RUNS, ns=ns)["consolidationRuns"],
        }
        edges = expected_edges(api, ns, seeded.consolidated, before["thought"])
        config = {
            "chromium": str(CHROMIUM),
            "pageUrl": f"{base_url}/explore",
            "namespace": ns,
            "apiKey": key,
            "screenshotDir": str(shots),
            "timeoutMs": 60_000,
            "search": {"query": SEARCH_QUERY, "k": 20},
            "thought": {"id": seeded.consolidated, "walkTo": seeded.chain[0]},
            "resolve": {"id": seeded.contradiction, "resolution": "A_WINS"},
            "undo": {"mergedId": seeded.merged},
            "timeline": {"since": seeded.since},
            "context": {"query": CONTEXT_QUERY, "budget": CONTEXT_BUDGET},
        }
        report = run_driver(browser_driver, config)
        keep_screenshots(report, engine)
        after = {
            "thought": api.data(THOUGHT, ns=ns, id=seeded.consolidated),
            "walked": api.data(THOUGHT, ns=ns, id=seeded.chain[0]),
            "resolved": api.data(CONTRADICTIONS, ns=ns, status="RESOLVED")["contradictions"],
            "duplicates": [api.data(THOUGHT, ns=ns, id=i)["thought"] for i in seeded.duplicates],
            "timeline": api.data(TIMELINE, ns=ns, since=seeded.since)["changesSince"]["events"],
            "context": api.data(CONTEXT, ns=ns, q=CONTEXT_QUERY, budget=CONTEXT_BUDGET),
            "runs": api.data(RUNS, ns=ns)["consolidationRuns"],
        }
        page = httpx.get(f"{base_url}/explore").text
        api.client.close()

    # Screenshots of every view; nothing left the machine, every request was answered and
    # the page raised no error (a CSP violation is a console error).
    assert set(report["screenshots"]) == set(VIEWS)
    for path in report["screenshots"].values():
        assert Path(path).stat().st_size > 10_000, path
    assert report["blocked"] == []
    assert report["failed"] == []
    assert report["errors"] == []
    assert all(url.startswith(base_url + "/") for url in report["requests"])
    loaded = {asset_name(url) for url in report["requests"] if f"{ASSETS_PATH}/" in url}
    assert loaded == {asset_name(url) for url in page_assets(page)}

    # The namespace picker suggests what `namespaces` lists for the key: only its own.
    assert report["namespaces"] == [ns]

    # Search: the API's hits, each with its content and its score explanation.
    by_id = {hit["id"]: hit for hit in before["search"]}
    shown = report["search"]
    assert {hit["id"] for hit in shown} == set(by_id)
    assert seeded.consolidated in by_id
    for hit in shown:
        expected = by_id[hit["id"]]
        assert hit["content"] == expected["thought"]["content"]
        assert hit["superseded"] == expected["superseded"]
        assert hit["explain"]["relevance"] == f"{expected['explain']['relevance']:.4f}"

    # The thought's page: its lineage as a table and as a graph with the four edge kinds
    # the API gives, its history and usage; a click on a node walks to that thought.
    thought, read = report["thought"], after["thought"]
    assert thought["id"] == seeded.consolidated
    assert thought["content"] == CONSOLIDATED
    chain = before["thought"]["lineage"]["chain"]
    assert thought["lineage"] == [
        {"id": node["thoughtId"], "depth": node["depth"], "type": node["type"]} for node in chain
    ]
    assert {node["thoughtId"] for node in chain} == {*seeded.chain, seeded.dashboard, thought["id"]}
    drawn = {(edge["source"], edge["target"], edge["type"]) for edge in thought["edges"]}
    assert drawn == edges
    assert {"REFINES", "CONSOLIDATES", "SUPERSEDES", "RELATED_TO"} <= {edge[2] for edge in drawn}
    assert (seeded.newest, seeded.consolidated, "SUPERSEDES") in drawn
    assert {node["id"] for node in thought["nodes"]} == {
        *(edge[0] for edge in drawn),
        *(edge[1] for edge in drawn),
    }
    assert thought["history"] == read["history"]
    assert thought["usage"]["citeCount"] == str(read["thought"]["citeCount"]) == "1"
    assert thought["usage"]["ignoreCount"] == str(read["thought"]["ignoreCount"])
    walked = report["walked"]
    assert (walked["id"], walked["content"]) == (seeded.chain[0], CHAIN[0])
    assert walked["history"] == after["walked"]["history"]

    # Contradictions: the open queue, then the click on "older wins" decided it.
    contradictions = report["contradictions"]
    assert [(c["id"], c["sides"]) for c in contradictions["open"]] == [
        (c["id"], [c["thoughtA"]["id"], c["thoughtB"]["id"]]) for c in before["open"]
    ]
    assert seeded.contradiction not in {c["id"] for c in contradictions["afterResolve"]}
    (resolved,) = [c for c in after["resolved"] if c["id"] == seeded.contradiction]
    assert resolved["resolution"] == "A_WINS"
    assert resolved["thoughtB"]["supersededBy"] == {"id": resolved["thoughtA"]["id"]}

    # Topics with their summaries and members.
    assert before["topics"]
    assert report["topics"] == [
        {
            "id": topic["id"],
            "name": topic["name"],
            "summary": topic["summary"] or "No summary yet.",
            "members": [member["id"] for member in topic["thoughts"]],
        }
        for topic in before["topics"]
    ]

    # Consolidation runs with their counts, the run's merge, and its undo.
    runs = report["runs"]
    assert [(run["id"], run["status"], run["counts"]) for run in runs["before"]] == [
        (run["id"], run["status"], run["counts"]) for run in before["runs"]
    ]
    (run,) = runs["before"]
    assert run["counts"]["deduped"] == 2
    # The run lists the merge it wrote (the page reads it from there).
    assert [(m["id"], m["state"]) for m in before["runs"][0]["merges"]] == [
        (seeded.merged, "ACTIVE")
    ]
    assert set(before["runs"][0]["merges"][0]["sourceIds"]) == set(seeded.duplicates)
    assert [(m["id"], m["state"]) for m in after["runs"][0]["merges"]] == [
        (seeded.merged, "SOFT_DELETED")
    ]
    assert {"id": seeded.merged, "undone": False} in run["merges"]
    assert {"id": seeded.merged, "undone": True} in runs["afterUndo"][0]["merges"]
    for duplicate in after["duplicates"]:
        assert duplicate["state"] == "ACTIVE"
        assert (duplicate["superseded"], duplicate["supersededBy"]) == (False, None)

    # The timeline since the lineage was written, with the page's decisions in it.
    assert report["timeline"] == after["timeline"]
    kinds = {event["kind"] for event in report["timeline"]}
    assert {"CONTRADICTION_DETECTED", "CONTRADICTION_RESOLVED", "MERGED", "UNMERGED"} <= kinds

    # What assembleContext gives, tier by tier, with token counts.
    context, assembled = report["context"], after["context"]["assembleContext"]
    assert context["tiers"] == assembled["tiers"]
    assert context["text"] == assembled["text"]
    assert context["total"].startswith(f"{assembled['tokenCount']} of {CONTEXT_BUDGET} tokens")
    assert context["items"] == [item["key"] for item in assembled["items"]]
    print(f"explorer screenshots ({engine}): {report['screenshots']}; steps {report['timings']}")
