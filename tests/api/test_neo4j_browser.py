"""Neo4j Browser shows a thought's lineage through the guide and style in cypher/browser/.

The service serves both at /neo4j-browser/. The session Neo4j gets a refinement chain
through the real service; then every query of the guide runs on it with the driver, and
Neo4j Browser (the one the server ships) runs in Debian's headless Chromium, driven by
playwright-core (tests/browser/lineage.mjs): it loads the guide with `:play`, applies the
style from the guide, sets the parameters and runs the lineage query, and the test checks
the drawn graph and the table against the chain. The screenshot stays in the test's
temporary directory.

The Browser test needs /usr/bin/chromium (Debian's `chromium`; TG_TEST_CHROMIUM names
another) and `npm ci --prefix tests/browser`; without them it is skipped with the reason,
except under CI=true, where that is a failure.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from neo4j import GraphDatabase
from starlette.applications import Starlette

from tests.api.test_api_lineage import contribute, refine
from tests.browser_support import CHROMIUM, driver_command
from tests.browser_support import run_driver as run_browser_driver
from tests.store.test_cypher_lint import BROWSER_DIR, guide_blocks
from tests.store_backends import Neo4jTestTarget, service_settings
from tests.support import GraphQLClient, serve_in_thread, skip_or_fail
from thoughtgraph.llm.embedders.base import TextEmbedder
from thoughtgraph.server import create_app
from thoughtgraph.settings import EmbedderKind, Settings
from thoughtgraph.store.neo4j_names import namespace_label

GUIDE = "lineage.html"
STYLE = "thoughtgraph.grass"

# A chain of four: each content starts differently, so a (truncated) caption names its node.
CHAIN = (
    ("Agents are monitored by status and role", None),
    ("Role alone decides how agents are monitored", "status turned out to be unreliable"),
    ("Recent activity and role decide agent monitoring", "role alone missed idle agents"),
    ("Error rate, activity and role decide agent monitoring", "errors predicted failures"),
)


@dataclass(frozen=True)
class Chain:
    base_url: str
    namespace: str
    ids: list[str]
    contents: list[str]


def guide_query(name: str) -> str:
    return next(text for key, text in guide_blocks(BROWSER_DIR / GUIDE) if key == name)


def style_colour(grass: str, selector: str) -> str:
    match = re.search(
        rf"^{re.escape(selector)} \{{[^}}]*?\scolor: (#[0-9A-Fa-f]{{6}});", grass, re.M
    )
    assert match, f"no colour for {selector} in the style"
    return match.group(1).upper()


# --- the routes, no engine needed --------------------------------------------------------


@pytest.fixture(scope="module")
def static_app(tmp_path_factory: pytest.TempPathFactory) -> Starlette:
    return create_app(Settings(data_dir=tmp_path_factory.mktemp("browser-routes")))


def fetch(
    app: Starlette, path: str, method: str = "GET", headers: dict[str, str] | None = None
) -> httpx.Response:
    """One request straight to the ASGI app: no lifespan, so no engine starts."""

    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost:8000") as c:
            return await c.request(method, path, headers=headers)

    return asyncio.run(send())


def test_the_service_serves_the_guide_and_the_style(static_app: Starlette) -> None:
    guide = fetch(static_app, f"/neo4j-browser/{GUIDE}?namespace=team.a")
    assert guide.status_code == 200
    assert guide.headers["content-type"].startswith("text/html")
    assert guide.headers["access-control-allow-origin"] == "*"
    # The guide's :style command points at this service, as the browser reached it, with
    # the namespace the guide was opened for (also the :param block's default).
    assert (
        f":style http://localhost:8000/neo4j-browser/{STYLE}?namespace="
        '<span value-key="namespace">team.a</span></pre>'
    ) in guide.text
    assert ":param namespace => '<span value-key=\"namespace\">team.a</span>'" in guide.text
    assert "{{" not in guide.text
    default = fetch(static_app, f"/neo4j-browser/{GUIDE}")
    assert '<span value-key="namespace">default</span>' in default.text

    style = fetch(static_app, f"/neo4j-browser/{STYLE}?namespace=team.a")
    assert style.status_code == 200
    assert style.headers["access-control-allow-origin"] == "*"
    # First a rule for the namespace's own label (so Browser gives it no colour of its
    # own, which would win over the type colours), then the style file as it is.
    first_rule, rest = style.text.split("\n\n", 1)
    assert first_rule.startswith(f"node.{namespace_label('team.a')} {{")
    assert rest == (BROWSER_DIR / STYLE).read_text(encoding="utf-8")
    assert fetch(static_app, f"/neo4j-browser/{STYLE}?namespace=bad%0A").status_code == 400

    # Browser sends its guide request with cache headers: a preflight must allow them.
    preflight = fetch(
        static_app,
        f"/neo4j-browser/{GUIDE}",
        "OPTIONS",
        headers={
            "Origin": "http://localhost:7474",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "pragma,cache-control",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert preflight.headers["access-control-allow-headers"] == "pragma,cache-control"


@pytest.mark.parametrize(
    "path",
    [
        "/neo4j-browser/missing.html",
        "/neo4j-browser/..%2Fthought%2Fcreate.cypher",
        "/neo4j-browser/%2E%2E%2Fbrowser%2Flineage.html",
        "/neo4j-browser/lineage.htm",
        "/neo4j-browser/.lineage.html",
        "/neo4j-browser/",
    ],
)
def test_only_the_folder_s_guides_and_styles_are_served(static_app: Starlette, path: str) -> None:
    assert fetch(static_app, path).status_code == 404


# --- a refinement chain in the session Neo4j ---------------------------------------------


@pytest.fixture
def chain(
    neo4j_target: Neo4jTestTarget, local_embedder: TextEmbedder, tmp_path: Path, ns: str
) -> Iterator[Chain]:
    settings = service_settings(
        "neo4j", tmp_path / "data", neo4j_target, embedder=EmbedderKind.LOCAL
    )
    with serve_in_thread(create_app(settings, embedder=local_embedder)) as base_url:
        api = GraphQLClient(base_url, "neo4j")
        try:
            ids = [contribute(api, ns, CHAIN[0][0])["thought"]["id"]]
            for content, reason in CHAIN[1:]:
                ids.append(refine(api, ns, ids[-1], content, reason=reason)["thought"]["id"])
            yield Chain(base_url, ns, ids, [content for content, _ in CHAIN])
        finally:
            api.close()


def run_guide_query(target: Neo4jTestTarget, name: str, **parameters: Any) -> list[dict[str, Any]]:
    auth = (target.user, target.password) if target.password else None
    with GraphDatabase.driver(target.uri, auth=auth) as driver:
        records, _, _ = driver.execute_query(
            guide_query(name), parameters, database_=target.database
        )
    # Not record.data(): it would turn paths into lists.
    return [dict(zip(record.keys(), record.values(), strict=True)) for record in records]


def test_every_guide_query_answers_on_neo4j(neo4j_target: Neo4jTestTarget, chain: Chain) -> None:
    a, b, c, d = chain.ids
    params = {"namespace": chain.namespace, "id": b, "limit": 25}

    recent = run_guide_query(neo4j_target, "recent", **params)
    assert [row["id"] for row in recent] == [d, c, b, a]
    assert [
        row["id"] for row in run_guide_query(neo4j_target, "recent", **{**params, "limit": 2})
    ] == [d, c]

    lineage = run_guide_query(neo4j_target, "lineage", **params)
    assert [(row["depth"], row["id"], row["type"]) for row in lineage] == [
        (-1, a, "original"),
        (0, b, "refinement"),
        (1, c, "refinement"),
        (2, d, "refinement"),
    ]
    assert [len(row["edges"]) for row in lineage] == [0, 1, 1, 1]

    newest = run_guide_query(neo4j_target, "newest", **params)
    assert [(row["id"], row["steps"]) for row in newest] == [(d, 2)]
    itself = run_guide_query(neo4j_target, "newest", **{**params, "id": d})
    assert [(row["id"], row["steps"]) for row in itself] == [(d, 0)]

    chains = run_guide_query(neo4j_target, "chains", **params)
    assert [[node["id"] for node in row["p"].nodes] for row in chains] == [[d, c, b, a]]

    similar = run_guide_query(neo4j_target, "similar-reasons", **params)
    # The given edge (b's) comes first; the rest are this namespace's, nearest first (the
    # others can fall outside the global index's candidates in a busy session database).
    assert similar[0]["reason"] == CHAIN[1][1]
    assert similar[0]["score"] == pytest.approx(1.0, abs=1e-3)
    assert {row["reason"] for row in similar} <= {reason for _, reason in CHAIN[1:]}
    assert all(row["p"].nodes[0]["namespace"] == chain.namespace for row in similar)
    assert [row["score"] for row in similar] == sorted((r["score"] for r in similar), reverse=True)


# --- Neo4j Browser in headless Chromium --------------------------------------------------


@pytest.fixture
def browser_driver(neo4j_target: Neo4jTestTarget) -> list[str]:
    """The command that runs the driver; skips (fails under CI=true) without the tools."""
    if neo4j_target.http_url is None:
        skip_or_fail(
            "TG_TEST_NEO4J_URI is set without TG_TEST_NEO4J_HTTP_URL: no Neo4j Browser to open"
        )
    return driver_command("lineage.mjs", "the Neo4j Browser test")


def test_neo4j_browser_shows_the_lineage_through_the_guide(
    neo4j_target: Neo4jTestTarget, browser_driver: list[str], chain: Chain, tmp_path: Path
) -> None:
    a, b, c, d = chain.ids
    assert neo4j_target.http_url is not None
    # `localhost`: Neo4j's default allowlist for remote guides and styles names it.
    service = chain.base_url.replace("127.0.0.1", "localhost")
    screenshot = tmp_path / "neo4j-browser-lineage.png"
    config = {
        "chromium": str(CHROMIUM),
        "browserUrl": f"{neo4j_target.http_url}/browser/",
        "boltUri": neo4j_target.uri,
        "user": neo4j_target.user,
        "password": neo4j_target.password,
        "guideUrl": f"{service}/neo4j-browser/{GUIDE}?namespace={chain.namespace}",
        "params": {"namespace": chain.namespace, "id": b},
        "screenshot": str(screenshot),
        "timeoutMs": 60_000,
    }
    started = time.monotonic()
    report = run_browser_driver(browser_driver, config, name="Browser", timeout=300)
    elapsed = time.monotonic() - started
    print(f"Neo4j Browser screenshot: {screenshot} ({elapsed:.1f} s; steps {report['timings']})")
    assert screenshot.is_file()

    # The table view: every thought of the chain, at its depth from b.
    rows = [(row["depth"], row["id"], row["type"], row["preview"]) for row in report["rows"]]
    assert rows == [
        (-1, a, "original", chain.contents[0]),
        (0, b, "refinement", chain.contents[1]),
        (1, c, "refinement", chain.contents[2]),
        (2, d, "refinement", chain.contents[3]),
    ]

    # The graph view: the chain's nodes, captioned by content, linked by styled edges.
    graph = report["graph"]
    assert (graph["nodes"], graph["relationships"]) == (4, 3)
    assert graph["relationshipCaptions"] == ["REFINES"] * 3
    grass = (BROWSER_DIR / STYLE).read_text(encoding="utf-8")
    refines = style_colour(grass, "relationship.REFINES")
    assert [colour.upper() for colour in graph["relationshipColors"]] == [refines] * 3
    captions = [" ".join(caption.split()).rstrip("…") for caption in graph["captions"]]
    colours = dict(zip(captions, graph["nodeColors"], strict=True))
    original, refinement = (
        style_colour(grass, "node.Original"),
        style_colour(grass, "node.Refinement"),
    )
    for position, content in enumerate(chain.contents):
        caption = next(
            (cap for cap in captions if len(cap) >= 12 and content.startswith(cap)), None
        )
        assert caption is not None, f"no node captioned with {content!r}: {captions}"
        # Coloured by type: the chain's first thought is the original, the rest refine it.
        expected = original if position == 0 else refinement
        assert str(colours[caption]).upper() == expected, (caption, colours)
