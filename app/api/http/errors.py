"""The one shape of an error answered outside GraphQL execution (bad bodies, sizes,
authentication): GraphQL's own, with a code, so a client parses every error alike."""

from __future__ import annotations

from typing import Any


def error_body(message: str, code: str, **details: Any) -> dict[str, Any]:
    return {"data": None, "errors": [{"message": message, "extensions": {"code": code, **details}}]}
