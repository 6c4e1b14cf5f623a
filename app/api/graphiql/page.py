"""The GraphiQL page and the route serving its files, all from this package.

The page is rendered once, when the app is built: every asset URL carries a digest of the
file (``?v=``), so the files can be cached for long and an upgraded package is fetched
anew. The page and its files need no API key (operations do: the page tells the user how
to send one); they are served while GraphiQL is switched on (``TG_GRAPHIQL``, by default
while the service is open). A Content-Security-Policy keeps the page to this origin.
"""

from __future__ import annotations

import json
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from thoughtgraph.api.access import AccessPolicy
from thoughtgraph.api.graphiql.examples import default_tabs
from thoughtgraph.api.http.static_assets import VersionedAssets, not_found, page_response

ASSETS_PATH = "/graphiql-assets"
ASSETS_DIR = Path(__file__).resolve().parent / "assets"
PAGE_TEMPLATE = Path(__file__).resolve().parent / "page.html"
# GraphiQL sets inline styles and its fonts and icons are data: URLs; nothing else is
# needed from anywhere but this origin.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
_ASSET_HEADERS = {"Cache-Control": "public, max-age=86400"}


def render_page(assets: VersionedAssets) -> str:
    """page.html with versioned asset URLs (relative: the page is /graphql, its files
    /graphiql-assets/..., also behind a proxy's path prefix) and the example tabs."""
    # Inside <script>: "<" escaped, so no text can close the element.
    config = json.dumps({"tabs": default_tabs()}).replace("<", "\\u003c")
    template = PAGE_TEMPLATE.read_text(encoding="utf-8")
    return assets.render(template).replace("{{ config }}", config)


class GraphiQLPage:
    """The rendered page and the files it loads, shown while GraphiQL is switched on."""

    def __init__(self, access: AccessPolicy, setting: bool | None) -> None:
        self.access = access
        self.setting = setting
        self.assets = VersionedAssets(ASSETS_DIR, ASSETS_PATH, _ASSET_HEADERS)
        self.html = render_page(self.assets)

    @property
    def enabled(self) -> bool:
        return self.access.open_unless_keyed(self.setting)

    def page(self) -> Response:
        return page_response(self.html, CONTENT_SECURITY_POLICY)

    async def serve_asset(self, request: Request) -> Response:
        if not self.enabled:
            return not_found()
        return self.assets.response(str(request.path_params["name"]))

    def assets_route(self) -> Route:
        return Route(self.assets.route_path, self.serve_asset, methods=["GET", "HEAD"])
