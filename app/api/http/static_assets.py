"""A folder of a page's files served under a URL path, each linked with a digest of its
content (``?v=``) so that browsers may cache it long and fetch an upgraded file anew.

Used by the memory explorer (/explore) and the GraphiQL page: each renders its page.html
once, when the app is built, through :meth:`VersionedAssets.render`, and keeps its own
Content-Security-Policy and cache policy.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path

from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, Response

MEDIA_TYPES = {".js": "text/javascript", ".css": "text/css", ".json": "application/json"}
_ASSET = re.compile(r"\{\{ asset:([A-Za-z0-9._-]+) \}\}")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def page_response(html: str, content_security_policy: str) -> Response:
    """A rendered page: checked anew on every load (its asset URLs change with the files)."""
    headers = {"Content-Security-Policy": content_security_policy, "Cache-Control": "no-cache"}
    return HTMLResponse(html, headers=headers)


class VersionedAssets:
    """The files directly in ``directory``, served by name under ``path`` with ``headers``
    (such as the Cache-Control the page chooses); nothing else is served."""

    def __init__(self, directory: Path, path: str, headers: Mapping[str, str]) -> None:
        self.path = path
        self.headers = dict(headers)
        self.files = {file.name: file for file in sorted(directory.iterdir()) if file.is_file()}

    def url(self, name: str) -> str:
        """The file's URL relative to the page (also behind a proxy's path prefix)."""
        return f"{self.path.lstrip('/')}/{name}?v={digest(self.files[name])}"

    def render(self, template: str) -> str:
        """``template`` with every ``{{ asset:<name> }}`` replaced by the file's URL."""
        return _ASSET.sub(lambda match: self.url(match.group(1)), template)

    @property
    def route_path(self) -> str:
        return f"{self.path}/{{name}}"

    def response(self, name: str) -> Response:
        """The named file, or 404 for any name that is not one of the files."""
        file = self.files.get(name)
        if file is None:
            return not_found()
        media_type = MEDIA_TYPES.get(file.suffix, "text/plain")
        return FileResponse(file, media_type=media_type, headers=self.headers)


def not_found() -> Response:
    return PlainTextResponse("not found", status_code=404)
