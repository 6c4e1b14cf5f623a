"""Who is calling: the API key a request presents, checked against the key file.

The service is open (everyone is ``Principal.anyone()``) only while no key is active and
keys are not required; `thoughtgraph serve` refuses to bind a non-loopback address then.
The moment a key is created the service requires keys, and a revoked key stops working
at once: the key file is reread when it changes.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping

from thoughtgraph.api.keyfile import KeyFile
from thoughtgraph.domain.access import Principal, authenticate
from thoughtgraph.domain.errors import ConfigurationError
from thoughtgraph.settings import Settings

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

    def refuse_open_exposure(self, host: str) -> None:
        """An open service (no API keys) may only listen on loopback."""
        if is_loopback(host) or self.keys_required:
            return
        raise ConfigurationError(
            f"refusing to listen on {host} without API keys: anyone who can reach it could "
            "read and write every namespace. Create a key first (`thoughtgraph keys create "
            "--name ... --namespace ... --agent-id ...`, or TG_REQUIRE_KEYS=true), or listen "
            "on 127.0.0.1"
        )

    def open_unless_keyed(self, setting: bool | None) -> bool:
        """A switch that is on while the service is open and off once keys are required,
        unless set (GraphiQL, introspection)."""
        return setting if setting is not None else not self.keys_required

    def principal_for(self, headers: Mapping[str, str]) -> Principal | None:
        """The caller, or None when the request must be refused as unauthenticated. The
        key file is looked at once (a stat, and a read only when it changed)."""
        active = self.keys.active_keys()
        if not (self.require_keys or active):
            return Principal.anyone()
        presented = presented_key(headers)
        return authenticate(active, presented) if presented is not None else None
