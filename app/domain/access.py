"""Who may do what: API keys, their roles and namespaces, and the caller of a request.

A key is bound to one or more namespaces (``*``: all of them), to one agent identity
(the agent its writes are attributed to) and to one role. The secret is shown once, when
the key is created; only its SHA-256 is kept (the secret is 32 random bytes, so a slow
hash adds nothing).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Sequence
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from thoughtgraph.domain.errors import ForbiddenError
from thoughtgraph.domain.scopes import Viewer

ALL_NAMESPACES = "*"
KEY_PREFIX = "tgk"
_KEY = re.compile(rf"{KEY_PREFIX}_([0-9a-f]{{12}})_([A-Za-z0-9_-]{{20,128}})")


class Action(StrEnum):
    READ = "read"
    WRITE = "write"
    ADMIN = "admin"


class Role(StrEnum):
    READER = "reader"  # queries
    WRITER = "writer"  # queries and contributions
    ADMIN = "admin"  # everything, including what operates the service

    @property
    def actions(self) -> frozenset[Action]:
        return {
            Role.READER: frozenset({Action.READ}),
            Role.WRITER: frozenset({Action.READ, Action.WRITE}),
            Role.ADMIN: frozenset(Action),
        }[self]


class ApiKey(BaseModel):
    model_config = ConfigDict(frozen=True)

    key_id: str
    name: str
    secret_sha256: str
    namespaces: tuple[str, ...]
    agent_id: str
    agent_name: str
    role: Role
    created_at_ms: int
    revoked_at_ms: int | None = None
    # The agent of the allowlist file (TG_ALLOWLIST_FILE) whose categories bind this key's
    # reads; None: the key reads unrestricted (a request may still name an agent).
    agent: str | None = None
    # The user the key acts for: its private thoughts are the only private ones it
    # reads, and its private writes are that user's (thoughtgraph.domain.scopes).
    user: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at_ms is None

    def matches(self, secret: str) -> bool:
        return hmac.compare_digest(self.secret_sha256, sha256(secret))


FORBIDDEN_MESSAGE = "The API key does not allow this operation on this namespace."


class Principal(BaseModel):
    """The caller of one request: a key's identity, or anyone (open local mode)."""

    model_config = ConfigDict(frozen=True)

    key_id: str | None = None
    agent_id: str | None = None
    agent_name: str | None = None
    role: Role = Role.ADMIN
    namespaces: tuple[str, ...] = (ALL_NAMESPACES,)
    agent: str | None = None  # the allowlist agent its key is bound to, if any
    user: str | None = None  # the user its key acts for, if any

    @classmethod
    def anyone(cls) -> Principal:
        """Open local mode: no keys are configured and the service listens on loopback."""
        return cls()

    @classmethod
    def of(cls, key: ApiKey) -> Principal:
        return cls(
            key_id=key.key_id,
            agent_id=key.agent_id,
            agent_name=key.agent_name,
            role=key.role,
            namespaces=key.namespaces,
            agent=key.agent,
            user=key.user,
        )

    def require(self, action: Action, namespace: str | None) -> None:
        """FORBIDDEN unless the caller may do ``action`` on ``namespace``."""
        if not self.may(action, namespace):
            raise ForbiddenError(FORBIDDEN_MESSAGE)

    @property
    def viewer(self) -> Viewer:
        """Whose private thoughts it reads: a key's user's; open local mode, all."""
        if self.key_id is None:
            return Viewer.everyone()
        return Viewer(user_id=self.user)

    def may(self, action: Action, namespace: str | None) -> bool:
        if action not in self.role.actions:
            return False
        if namespace is None:
            return True
        return ALL_NAMESPACES in self.namespaces or namespace in self.namespaces


def sha256(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_key_material() -> tuple[str, str, str]:
    """A new key's id, secret and the text the caller is shown once."""
    key_id = secrets.token_hex(6)
    secret = secrets.token_urlsafe(32)
    return key_id, secret, f"{KEY_PREFIX}_{key_id}_{secret}"


def parse_key(text: str) -> tuple[str, str] | None:
    """The key id and secret of a presented key, or None when it is not one."""
    found = _KEY.fullmatch(text.strip())
    return (found.group(1), found.group(2)) if found else None


def authenticate(keys: Sequence[ApiKey], presented: str) -> Principal | None:
    """The caller a presented key stands for among ``keys`` (the active ones), or None."""
    parsed = parse_key(presented)
    if parsed is None:
        return None
    key_id, secret = parsed
    for key in keys:
        if key.key_id == key_id and key.active and key.matches(secret):
            return Principal.of(key)
    return None
