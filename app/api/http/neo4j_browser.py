"""The Neo4j Browser guide and style, served by the service from ``cypher/browser/``.

Neo4j Browser fetches a guide (``:play <url>``) and a style (``:style <url>``) from its
page's origin, not ours: every answer allows any origin, and the preflight allows the cache
headers Browser sends with a guide request. Only ``.html`` and ``.grass`` files directly in
the folder are served.

Both take ``?namespace=``. The guide is filled in with it (and with this service's address
as the browser reached it). The style gets a first rule for the namespace's own label: on
Neo4j every thought also carries ``Ns_<digest>`` (its namespace's vector index covers that
label), and Browser gives a label without a coloured rule a default colour of its own,
appended after the style's rules, where it would win over the colours of thought types.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from thoughtgraph.domain.errors import InvalidInputError
from thoughtgraph.domain.validation import require_namespace

NEO4J_BROWSER_PATH = "/neo4j-browser"
DEFAULT_NAMESPACE = "default"
_FILE = re.compile(r"^[A-Za-z0-9_-]+\.(html|grass)$")
_MEDIA_TYPES = {"html": "text/html", "grass": "text/plain"}
_CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
    "Access-Control-Max-Age": "600",
}
# What a thought looks like before its type's rule colours it (node.Thought in the style).
_NAMESPACE_RULE = """\
node.{label} {{
  diameter: 80px;
  color: #A5ABB6;
  border-color: #9AA1AC;
  text-color-internal: #FFFFFF;
  caption: '{{content}}';
}}

"""


def fill_guide(text: str, *, service_url: str, namespace: str) -> str:
    """The guide's placeholders: this service's address, the namespace (as text and as a
    URL query value). Both are escaped; the namespace is also validated upstream."""
    return (
        text.replace("{{ service_url }}", html.escape(service_url, quote=True))
        .replace("{{ namespace_query }}", html.escape(quote(namespace, safe=""), quote=True))
        .replace("{{ namespace }}", html.escape(namespace, quote=True))
    )


def style_for(text: str, label: str) -> str:
    """The style with a rule for the namespace's own label first."""
    return _NAMESPACE_RULE.format(label=label) + text


def neo4j_browser_files(folder: Path, label_of: Callable[[str], str]) -> Route:
    """The route serving ``folder`` (settings.cypher_dir / "browser"); ``label_of`` names
    the label Neo4j gives a namespace's thoughts (the store's naming, passed in)."""

    async def serve(request: Request) -> Response:
        headers = dict(_CORS_HEADERS)
        if request.method == "OPTIONS":
            asked = request.headers.get("access-control-request-headers")
            if asked:
                headers["Access-Control-Allow-Headers"] = asked
            return Response(status_code=204, headers=headers)
        name = str(request.path_params["name"])
        match = _FILE.match(name)
        path = folder / name
        if match is None or not path.is_file():
            return PlainTextResponse("not found", status_code=404, headers=headers)
        try:
            namespace = require_namespace(
                request.query_params.get("namespace") or DEFAULT_NAMESPACE
            )
        except InvalidInputError as exc:
            return PlainTextResponse(exc.message, status_code=400, headers=headers)
        text = path.read_text(encoding="utf-8")
        kind = match.group(1)
        if kind == "html":
            service_url = str(request.base_url).rstrip("/")
            text = fill_guide(text, service_url=service_url, namespace=namespace)
        else:
            text = style_for(text, label_of(namespace))
        headers["Cache-Control"] = "no-cache"
        return Response(text, media_type=_MEDIA_TYPES[kind], headers=headers)

    return Route(f"{NEO4J_BROWSER_PATH}/{{name}}", serve, methods=["GET", "HEAD", "OPTIONS"])
