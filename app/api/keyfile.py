"""API keys in a file: ``$TG_DATA_DIR/keys.json`` (``TG_KEYS_FILE``), private to the user.

A file rather than the graph so that ``thoughtgraph keys`` works while a service runs: the
embedded engine belongs to the service holding the data dir's lock. The service rereads
the file when it changes, so a created or revoked key takes effect at once. Writers take
an exclusive lock beside the file and replace it atomically, so readers never see half
a file.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from thoughtgraph.domain.access import ApiKey, Role, new_key_material, sha256
from thoughtgraph.domain.errors import ConfigurationError
from thoughtgraph.domain.models import now_ms

FORMAT_VERSION = 1


class KeyFile:
    """Constructing it does no I/O."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock_path = path.with_name(path.name + ".lock")
        self._cached: tuple[tuple[int, int], tuple[ApiKey, ...]] | None = None

    # --- reading -----------------------------------------------------------------------
    def all_keys(self) -> tuple[ApiKey, ...]:
        """Every key in the file (revoked ones too), reread only when the file changed."""
        try:
            info = self.path.stat()
        except FileNotFoundError:
            return ()
        stamp = (info.st_mtime_ns, info.st_size)
        if self._cached is not None and self._cached[0] == stamp:
            return self._cached[1]
        keys = self._read()
        self._cached = (stamp, keys)
        return keys

    def active_keys(self) -> tuple[ApiKey, ...]:
        return tuple(key for key in self.all_keys() if key.active)

    def _read(self) -> tuple[ApiKey, ...]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return tuple(ApiKey.model_validate(item) for item in data["keys"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ConfigurationError(f"the API key file {self.path} cannot be read: {exc}") from exc

    # --- writing -----------------------------------------------------------------------
    def create(
        self,
        *,
        name: str,
        namespaces: Sequence[str],
        agent_id: str,
        agent_name: str,
        role: Role,
        agent: str | None = None,
        user: str | None = None,
    ) -> tuple[ApiKey, str]:
        """A new key and its text, which is shown to the caller once and stored nowhere."""
        key_id, secret, text = new_key_material()

        key = ApiKey(
            key_id=key_id,
            name=name,
            secret_sha256=sha256(secret),
            namespaces=tuple(namespaces),
            agent_id=agent_id,
            agent_name=agent_name,
            role=role,
            created_at_ms=now_ms(),
            agent=agent,
            user=user,
        )
        with self._locked():
            self._write((*self._current(), key))
        return key, text

    def revoke(self, key_id: str) -> ApiKey:
        with self._locked():
            keys = list(self._current())
            for i, key in enumerate(keys):
                if key.key_id == key_id:
                    if key.active:
                        keys[i] = key.model_copy(update={"revoked_at_ms": now_ms()})
                        self._write(tuple(keys))
                    return keys[i]
        raise ConfigurationError(f"no API key {key_id!r} in {self.path}")

    def _current(self) -> tuple[ApiKey, ...]:
        return self._read() if self.path.exists() else ()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _write(self, keys: tuple[ApiKey, ...]) -> None:
        body = {"version": FORMAT_VERSION, "keys": [key.model_dump(mode="json") for key in keys]}
        partial = self.path.with_name(self.path.name + ".partial")
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(body, handle, indent=2)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, self.path)
        self._cached = None
