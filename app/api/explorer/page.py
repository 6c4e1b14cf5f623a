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

import hashlib
import re
from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

PAGE_PATH = "/explore"
ASSETS_PATH = "/explore-assets"
ASSETS_DIR = Path(__file__).resolve().parent / "assets"
PAGE_TEMPLATE = Path(__file__).resolve().parent / "page.html"
MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css", ".json": "application/json"}
# Scripts and styles from this origin only, no inline script; Cytoscape draws on canvases
# it sizes through element styles, which CSSOM writes (allowed without 'unsafe-inline').
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'"
)
_ASSET = re.compile(r"\{\{ asset:([A-Za-z0-9._-]+) \}\}")
_CACHED = "public, max-age=31536000, immutable"


def asset_files() -> dict[str, Path]:
    """The files the route serves, by name: everything directly in ``assets/``."""
    return {path.name: path for path in sorted(ASSETS_DIR.iterdir()) if path.is_file()}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def render_page(files: dict[str, Path]) -> str:
    """page.html with versioned asset URLs, relative (the page is /explore, its files
    /explore-assets/..., also behind a proxy's path prefix)."""

    def asset_url(match: re.Match[str]) -> str:
        name = match.group(1)
        return f"{ASSETS_PATH.lstrip('/')}/{name}?v={digest(files[name])}"

    return _ASSET.sub(asset_url, PAGE_TEMPLATE.read_text(encoding="utf-8"))


class ExplorerPage:
    """The rendered page and the files it loads."""

    def __init__(self) -> None:
        self.files = asset_files()
        self.html = render_page(self.files)

    async def page(self, request: Request) -> Response:
        headers = {"Content-Security-Policy": CONTENT_SECURITY_POLICY, "Cache-Control": "no-cache"}
        return HTMLResponse(self.html, headers=headers)

    async def serve_asset(self, request: Request) -> Response:
        path = self.files.get(str(request.path_params["name"]))
        if path is None:
            return PlainTextResponse("not found", status_code=404)
        media_type = MEDIA_TYPES.get(path.suffix, "text/plain")
        headers = {"Cache-Control": _CACHED, "X-Content-Type-Options": "nosniff"}
        return FileResponse(path, media_type=media_type, headers=headers)

    def routes(self) -> list[Route]:
        return [
            Route(PAGE_PATH, self.page, methods=["GET", "HEAD"]),
            Route(f"{ASSETS_PATH}/{{name}}", self.serve_asset, methods=["GET", "HEAD"]),
        ]
