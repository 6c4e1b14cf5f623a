"""Who is calling: the API key a request presents, checked against the key file.

The service is open (everyone is ``Principal.anyone()``) only while no key is active and
keys are not required; `thoughtgraph serve` refuses to bind a non-loopback address then.
The moment a key is created the service requires keys, and a revoked key stops working
at once: the key file is reread when it changes.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from app.domain.access import Principal
from app.keyfile import KeyFile
from app.settings import Settings

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1", "[::1]")


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def presented_key(headers: Mapping[str, str]) -> str | None:
    """``Authorization: Bearer <key>``, or ``X-API-Key: <key>``."""
    authorization = headers.get("authorization", "")
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return headers.get("x-api-key") or None


class AccessPolicy:
    """Constructing it does no I/O; the key file is read on demand (and cached)."""

    def __init__(self, keys: KeyFile, *, require_keys: bool) -> None:
        self.keys = keys
        self.require_keys = require_keys

    @classmethod
    def from_settings(cls, settings: Settings) -> AccessPolicy:
        return cls(KeyFile(settings.key_file_path), require_keys=settings.require_keys)

    @property
    def keys_required(self) -> bool:
        return self.require_keys or bool(self.keys.active_keys())

    def principal_for(self, headers: Mapping[str, str]) -> Principal | None:
        """The caller, or None when the request must be refused as unauthenticated."""
        presented = presented_key(headers)
        if not self.keys_required:
            return Principal.anyone()
        if presented is None:
            return None
        return self.keys.authenticate(presented)
