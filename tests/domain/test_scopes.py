"""The scope rules on their own: who sees what, what a write may claim, and the
namespaces' default scopes as configured."""

from __future__ import annotations

import pytest

from thoughtgraph.domain.errors import ConfigurationError, ForbiddenError, InvalidInputError
from thoughtgraph.domain.scopes import Scope, ScopePolicy, Viewer, may_change, written_scope


def test_a_viewer_sees_shared_system_and_its_own_private_thoughts() -> None:
    alice, nobody, trusted = Viewer(user_id="alice"), Viewer(), Viewer.everyone()
    assert alice.sees(Scope.PRIVATE, "alice") and not alice.sees(Scope.PRIVATE, "bob")
    assert not nobody.sees(Scope.PRIVATE, None)  # a private thought with no owner: nobody's
    assert all(v.sees(s, None) for v in (alice, nobody) for s in (Scope.SHARED, Scope.SYSTEM))
    assert trusted.sees(Scope.PRIVATE, "bob")


def test_a_write_gets_the_default_and_private_needs_an_owner() -> None:
    keyed = {"trusted": False, "admin": False}
    assert written_scope(None, Scope.SHARED, user_id="alice", **keyed) == (Scope.SHARED, None)
    assert written_scope(None, Scope.PRIVATE, user_id="alice", **keyed) == (
        Scope.PRIVATE,
        "alice",
    )
    with pytest.raises(InvalidInputError) as refused:
        written_scope(None, Scope.PRIVATE, user_id=None, **keyed)
    assert refused.value.details["field"] == "scope"
    with pytest.raises(ForbiddenError):
        written_scope(Scope.SYSTEM, Scope.SHARED, user_id="alice", **keyed)
    assert written_scope(Scope.SYSTEM, Scope.SHARED, user_id=None, trusted=False, admin=True)[
        0
    ] is (Scope.SYSTEM)


def test_system_thoughts_change_by_admins_and_private_ones_by_their_owner() -> None:
    alice = Viewer(user_id="alice")
    assert not may_change(alice, Scope.SYSTEM, None, admin=False)
    assert may_change(Viewer(), Scope.SYSTEM, None, admin=True)
    assert may_change(alice, Scope.PRIVATE, "alice", admin=False)
    assert not may_change(alice, Scope.PRIVATE, "bob", admin=True)  # admins read no private


def test_default_scopes_per_namespace() -> None:
    policy = ScopePolicy.parse(" *=shared, notes = PRIVATE ,")
    assert policy.default_for("notes") is Scope.PRIVATE
    assert policy.default_for("team") is Scope.SHARED
    assert ScopePolicy.parse(None).default_for("any") is Scope.SHARED
    for bad in ("notes=secret", "=private", "notes"):
        with pytest.raises(ConfigurationError):
            ScopePolicy.parse(bad)
