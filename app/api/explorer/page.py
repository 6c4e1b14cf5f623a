"""The memory explorer's page (/explore) and the route serving its files, all from this
package.

The page is a few plain scripts over the GraphQL API (``graphql``, relative to the page) and
Cytoscape.js, copied from npm by scripts/build-explorer (web/explorer/package-lock.json pins
it). It is rendered once, when the app is built: every asset URL carries a digest of the
file (``?v=``), so the files are cached for long and an upgraded package is fetched anew.
The page and its files hold no data and need no API key; every read and decision it makes
goes through /graphql with the key the user typed into its settings, so it is served
whether or not keys are required. A Content-Security-Policy keeps it to this origin.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from thoughtgraph.api.http.static_assets import VersionedAssets, page_response

PAGE_PATH = "/explore"
ASSETS_PATH = "/explore-assets"
ASSETS_DIR = Path(__file__).resolve().parent / "assets"
PAGE_TEMPLATE = Path(__file__).resolve().parent / "page.html"
# Scripts and styles from this origin only, no inline script; Cytoscape draws on canvases
# it sizes through element styles, which CSSOM writes (allowed without 'unsafe-inline').
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
_ASSET_HEADERS = {
    "Cache-Control": "public, max-age=31536000, immutable",
    "X-Content-Type-Options": "nosniff",
}


class ExplorerPage:
    """The rendered page and the files it loads."""

    def __init__(self) -> None:
        self.assets = VersionedAssets(ASSETS_DIR, ASSETS_PATH, _ASSET_HEADERS)
        # Asset URLs relative: the page is /explore, its files /explore-assets/...
        self.html = self.assets.render(PAGE_TEMPLATE.read_text(encoding="utf-8"))

    async def page(self, request: Request) -> Response:
        return page_response(self.html, CONTENT_SECURITY_POLICY)

    async def serve_asset(self, request: Request) -> Response:
        return self.assets.response(str(request.path_params["name"]))

    def routes(self) -> list[Route]:
        return [
            Route(PAGE_PATH, self.page, methods=["GET", "HEAD"]),
            Route(self.assets.route_path, self.serve_asset, methods=["GET", "HEAD"]),
        ]
