"""The GraphiQL page and the route serving its files, all from this package.

The page is rendered once, when the app is built: every asset URL carries a digest of the
file (``?v=``), so the files can be cached for long and an upgraded package is fetched
anew. The page and its files need no API key (operations do: the page tells the user how
to send one); they are served while GraphiQL is switched on (``TG_GRAPHIQL``, by default
while the service is open). A Content-Security-Policy keeps the page to this origin.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from thoughtgraph.api.access import AccessPolicy
from thoughtgraph.api.graphiql.examples import default_tabs

ASSETS_PATH = "/graphiql-assets"
ASSETS_DIR = Path(__file__).resolve().parent / "assets"
PAGE_TEMPLATE = Path(__file__).resolve().parent / "page.html"
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css", ".json": "application/json"}
# GraphiQL sets inline styles and its fonts and icons are data: URLs; nothing else is
# needed from anywhere but this origin.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
_ASSET = re.compile(r"\{\{ asset:([A-Za-z0-9._-]+) \}\}")
_CACHED = "public, max-age=86400"


def asset_files() -> dict[str, Path]:
    """The files the route serves, by name: everything directly in ``assets/``."""
    return {path.name: path for path in sorted(ASSETS_DIR.iterdir()) if path.is_file()}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def render_page(files: dict[str, Path]) -> str:
    """page.html with versioned asset URLs (relative: the page is /graphql, its files
    /graphiql-assets/..., also behind a proxy's path prefix) and the example tabs."""

    def asset_url(match: re.Match[str]) -> str:
        name = match.group(1)
        return f"{ASSETS_PATH.lstrip('/')}/{name}?v={digest(files[name])}"

    # Inside <script>: "<" escaped, so no text can close the element.
    config = json.dumps({"tabs": default_tabs()}).replace("<", "\\u003c")
    template = PAGE_TEMPLATE.read_text(encoding="utf-8")
    return _ASSET.sub(asset_url, template).replace("{{ config }}", config)


class GraphiQLPage:
    """The rendered page and the files it loads, shown while GraphiQL is switched on."""

    def __init__(self, access: AccessPolicy, setting: bool | None) -> None:
        self.access = access
        self.setting = setting
        self.files = asset_files()
        self.html = render_page(self.files)

    @property
    def enabled(self) -> bool:
        return self.access.open_unless_keyed(self.setting)

    def page(self) -> Response:
        headers = {"Content-Security-Policy": CONTENT_SECURITY_POLICY, "Cache-Control": "no-cache"}
        return HTMLResponse(self.html, headers=headers)

    async def serve_asset(self, request: Request) -> Response:
        path = self.files.get(str(request.path_params["name"]))
        if path is None or not self.enabled:
            return PlainTextResponse("not found", status_code=404)
        media_type = MEDIA_TYPES.get(path.suffix, "text/plain")
        return FileResponse(path, media_type=media_type, headers={"Cache-Control": _CACHED})

    def assets_route(self) -> Route:
        return Route(f"{ASSETS_PATH}/{{name}}", self.serve_asset, methods=["GET", "HEAD"])
