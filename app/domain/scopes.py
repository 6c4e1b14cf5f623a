"""Whose memory a thought is: its scope, who may see it, and what a write may claim.

``private`` thoughts belong to one user and are seen only through that user's keys;
``shared`` thoughts belong to the namespace's project; ``system`` thoughts are read by
everyone and written only by admins. A key acts for at most one user (``user`` on the
key). Reads from inside the service (jobs, the CLI) and open local mode (no keys) are
trusted and see every scope.

Derived knowledge never mixes scopes: maintenance pairs (contradictions, supersession,
consolidation) only thoughts of one partition (scope and owner), and private thoughts
are not clustered into topics, so no topic summary draws on them.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from thoughtgraph.domain.errors import ConfigurationError, ForbiddenError, InvalidInputError


class Scope(StrEnum):
    PRIVATE = "private"
    SHARED = "shared"
    SYSTEM = "system"


#: A thought stored before scopes existed reads as shared.
DEFAULT_SCOPE = Scope.SHARED
ANY_NAMESPACE = "*"


class Viewer(BaseModel):
    """Who a read is for. The default sees shared and system thoughts only (least
    privilege): a read path that forgets to name its viewer shows nothing private."""

    model_config = ConfigDict(frozen=True)

    user_id: str | None = None
    trusted: bool = False  # inside the service or open local mode: every scope

    @classmethod
    def everyone(cls) -> Viewer:
        return cls(trusted=True)

    def sees(self, scope: Scope, owner_id: str | None) -> bool:
        if self.trusted or scope is not Scope.PRIVATE:
            return True
        return self.user_id is not None and owner_id == self.user_id


Partition = tuple[Scope, str | None]


def partition(scope: Scope, owner_id: str | None) -> Partition:
    """The partition derived knowledge stays inside: private ones per owner."""
    return (scope, owner_id if scope is Scope.PRIVATE else None)


class ScopePolicy(BaseModel):
    """Each namespace's default scope for a write that names none (``*``: the rest)."""

    model_config = ConfigDict(frozen=True)

    defaults: Mapping[str, Scope] = {}

    def default_for(self, namespace: str) -> Scope:
        return self.defaults.get(namespace, self.defaults.get(ANY_NAMESPACE, DEFAULT_SCOPE))

    @classmethod
    def parse(cls, text: str | None) -> ScopePolicy:
        """``"namespace=scope"`` pairs, comma-separated (TG_SCOPE_DEFAULTS); a bad pair
        stops the start with a ConfigurationError naming it."""
        defaults: dict[str, Scope] = {}
        for pair in (text or "").split(","):
            if not pair.strip():
                continue
            namespace, _, name = pair.partition("=")
            try:
                defaults[namespace.strip()] = Scope(name.strip().lower())
            except ValueError as exc:
                raise ConfigurationError(
                    f"TG_SCOPE_DEFAULTS: {pair.strip()!r} is not namespace=private|shared|system"
                ) from exc
            if not namespace.strip():
                raise ConfigurationError(f"TG_SCOPE_DEFAULTS: {pair.strip()!r} names no namespace")
        return cls(defaults=defaults)


SYSTEM_NEEDS_ADMIN = "Only an admin key writes or changes system thoughts."


def written_scope(
    requested: Scope | None,
    default: Scope,
    *,
    user_id: str | None,
    trusted: bool,
    admin: bool,
) -> tuple[Scope, str | None]:
    """The scope and owner a write stores. Private needs a user to own it (the key's, or
    in open local mode the one the input names); system needs an admin or the service."""
    scope = requested or default
    if scope is Scope.SYSTEM and not (admin or trusted):
        raise ForbiddenError(SYSTEM_NEEDS_ADMIN)
    if scope is Scope.PRIVATE:
        if user_id is None:
            raise InvalidInputError(
                "a private thought needs a user to own it: write with a key that acts for "
                "a user (or name userId in open local mode), or ask for scope SHARED",
                field="scope",
            )
        return scope, user_id
    return scope, None


def may_change(viewer: Viewer, scope: Scope, owner_id: str | None, *, admin: bool) -> bool:
    """Whether a caller may change a thought's state (forget, pin, restore, resolve):
    it must see it, and a system thought only an admin changes."""
    if viewer.trusted:
        return True
    if scope is Scope.SYSTEM:
        return admin
    return viewer.sees(scope, owner_id)
