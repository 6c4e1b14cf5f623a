"""GraphiQL is served by the service itself, from files shipped in the package.

The page's scripts and styles (React, GraphiQL, the explorer plugin) were copied from npm by
scripts/build-graphiql (web/graphiql/package-lock.json pins them); the manifest recorded
then must match the lock file and the shipped bytes. The routes are checked without an
engine; then GraphiQL runs in Debian's headless Chromium, driven by playwright-core
(tests/browser/graphiql.mjs), with every request to another origin aborted: the page loads,
offers README's examples as tabs and the explorer, and a `search` typed into a new tab and
run from the UI shows the hit contributed over HTTP. The screenshot stays in tmp_path.

The browser test needs /usr/bin/chromium (TG_TEST_CHROMIUM names another) and
`npm ci --prefix tests/browser`; without them it is skipped, except under CI=true.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from tests.api.test_readme_examples import readme_operations
from tests.browser_support import CHROMIUM, driver_command
from tests.browser_support import run_driver as run_browser_driver
from tests.support import GraphQLClient, serve_in_thread
from tests.vendored_assets_support import check_manifest, check_shipped_files_are_installed
from thoughtgraph.api.graphiql.examples import EXAMPLES, WELCOME, default_tabs
from thoughtgraph.api.graphiql.page import ASSETS_DIR, ASSETS_PATH
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings

ROOT = Path(__file__).resolve().parents[2]
NPM_DIR = ROOT / "web" / "graphiql"
OWN_FILES = {"manifest.json", "thoughtgraph-graphiql.js"}  # not from npm
HTML = {"accept": "text/html"}
ASSET_URL = re.compile(r'(?:src|href)="(graphiql-assets/[^"]+)"')


# --- the shipped files and the lock file -------------------------------------------------


def test_the_manifest_matches_the_lock_file_and_the_shipped_files() -> None:
    check_manifest(NPM_DIR, ASSETS_DIR, OWN_FILES, "scripts/build-graphiql")


def test_shipped_files_are_the_installed_npm_files() -> None:
    """With web/graphiql's node_modules present (scripts/build-graphiql installs them), the
    shipped files are byte for byte the installed packages' files."""
    check_shipped_files_are_installed(NPM_DIR, ASSETS_DIR)


def test_the_example_tabs_are_readme_operations() -> None:
    readme = {" ".join(operation.split()) for operation in readme_operations()}
    for example in EXAMPLES:
        assert " ".join(example.operation.split()) in readme, example.name
    tabs = default_tabs()
    assert tabs[0]["query"].startswith(WELCOME)
    names = [re.findall(r"^(?:query|mutation) (\w+)", tab["query"], re.M) for tab in tabs]
    assert names == [[example.name] for example in EXAMPLES]


# --- the routes, no engine needed ---------------------------------------------------------


def fetch(app: Starlette, path: str, headers: dict[str, str] | None = None) -> httpx.Response:
    """One request straight to the ASGI app: no lifespan, so no engine starts."""

    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost:8000") as c:
            return await c.get(path, headers=headers)

    return asyncio.run(send())


def page_assets(html: str) -> list[str]:
    return ["/" + url for url in ASSET_URL.findall(html)]


def asset_name(url: str) -> str:
    return url.split("?")[0].rsplit("/", 1)[1]


def test_the_page_loads_only_files_of_this_service(tmp_path: Path) -> None:
    app = create_app(Settings(data_dir=tmp_path / "data"))
    page = fetch(app, "/graphql", HTML)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert not re.search(r"(?:src|href)=\"(?:https?:)?//", page.text)
    assets = page_assets(page.text)
    expected = {"graphiql.min.js", "graphiql.min.css", "plugin-explorer.umd.js"}
    expected |= {"plugin-explorer.css", "react.production.min.js"}
    expected |= {"react-dom.production.min.js", "thoughtgraph-graphiql.js"}
    assert {asset_name(url) for url in assets} == expected
    for url in assets:
        served = fetch(app, url)
        assert served.status_code == 200, url
        name = asset_name(url)
        assert served.content == (ASSETS_DIR / name).read_bytes(), url
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        assert served.headers["content-type"].startswith(kind), url
    assert fetch(app, f"{ASSETS_PATH}/page.py").status_code == 404
    assert fetch(app, f"{ASSETS_PATH}/..%2Fpage.py").status_code == 404
    # The example tabs travel in the page.
    config = page.text.split('type="application/json">', 1)[1].split("</script>", 1)[0]
    assert json.loads(config) == {"tabs": default_tabs()}


def test_graphiql_is_off_once_keys_are_required_unless_switched_on(tmp_path: Path) -> None:
    off = create_app(Settings(data_dir=tmp_path / "off", require_keys=True))
    assert fetch(off, "/graphql", HTML).status_code == 404
    assert fetch(off, f"{ASSETS_PATH}/graphiql.min.js").status_code == 404
    on = create_app(Settings(data_dir=tmp_path / "on", require_keys=True, graphiql=True))
    page = fetch(on, "/graphql", HTML)
    assert page.status_code == 200
    for url in page_assets(page.text):
        assert fetch(on, url).status_code == 200, url


def test_with_keys_the_page_needs_none_and_its_operations_do(
    tmp_path: Path, local_embedder: TextEmbedder
) -> None:
    settings = Settings(
        data_dir=tmp_path / "data",
        embedder=EmbedderKind.LOCAL,
        require_keys=True,
        graphiql=True,
    )
    with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
        page = httpx.get(f"{base_url}/graphql", headers=HTML)
        assert page.status_code == 200
        assert "Authorization" in page.text  # the welcome tab says how to send a key
        for url in page_assets(page.text):
            assert httpx.get(f"{base_url}{url}").status_code == 200, url
        refused = httpx.post(f"{base_url}/graphql", json={"query": "{ changes { revision } }"})
        assert refused.status_code == 401


# --- GraphiQL in headless Chromium ------------------------------------------------------


@pytest.fixture
def browser_driver() -> list[str]:
    return driver_command("graphiql.mjs", "the GraphiQL test")


def run_driver(command: list[str], config: dict[str, Any]) -> dict[str, Any]:
    return run_browser_driver(command, config, name="GraphiQL", timeout=300)


def test_graphiql_runs_a_search_offline_in_chromium(
    api: GraphQLClient, ns: str, browser_driver: list[str], tmp_path: Path
) -> None:
    content = "GraphiQL ships inside the service, so it works on machines without internet"
    contributed = api.data(
        "mutation($input: ContributeInput!) { contribute(input: $input) { thought { id } } }",
        input={"content": content, "agentId": "ui", "agentName": "UI", "namespace": ns},
    )
    thought_id = contributed["contribute"]["thought"]["id"]
    query = (
        "query OfflineSearch {\n"
        f'  search(query: "does GraphiQL work without internet?", namespace: "{ns}", k: 3) {{\n'
        "    similarity\n    thought { id content }\n  }\n}"
    )
    screenshot = tmp_path / "graphiql-search.png"
    config = {
        "chromium": str(CHROMIUM),
        "pageUrl": f"{api.base_url}/graphql",
        "query": query,
        "screenshot": str(screenshot),
        "timeoutMs": 60_000,
    }
    started = time.monotonic()
    report = run_driver(browser_driver, config)
    elapsed = time.monotonic() - started
    print(f"GraphiQL screenshot: {screenshot} ({elapsed:.1f} s; steps {report['timings']})")
    assert screenshot.is_file()

    # Nothing left the machine: no request to another origin was even attempted, every
    # request was answered, and the page raised no error (CSP violations are console errors).
    assert report["blocked"] == []
    assert report["failed"] == []
    assert report["errors"] == []
    # ... and the page's every file came from this service.
    page = api.http.get("/graphql", headers=HTML).text
    loaded = {asset_name(url) for url in report["requests"] if f"{ASSETS_PATH}/" in url}
    assert loaded == {asset_name(url) for url in page_assets(page)}

    assert report["tabs"][: len(EXAMPLES)] == [example.name for example in EXAMPLES]
    assert {"contribute", "agentName*:"} <= set(report["explorer"].split())
    assert report["editor"] == query
    hits = report["result"]["data"]["search"]
    assert hits[0]["thought"] == {"id": thought_id, "content": content}
    assert content in report["resultText"]
