"""Consent for changes to what the memory says about a person.

A *person field* is a thought whose category is one of the policy's fields and which is
about a person (``Thought.about``: a user id). Its current value is the person's current
thoughts of that category. A change (a different value while one is current) is never
applied silently:

- a **sensitive** field (name, pronouns, city, language, and what
  ``TG_CONSENT_SENSITIVE_FIELDS`` adds) changes only when that person approves the
  request with their own key;
- a **benign** field (tone, goals, and ``TG_CONSENT_BENIGN_FIELDS``) changes once at least
  two independent signals (contributions from different agents or sessions) proposed the
  same value; the person may also approve or reject it.

A first value (none current) and the same value again are not changes: they are written
as any thought is. Maintenance (supersession detection, topic summaries, consolidation)
never changes a person field; where it would, it proposes the change instead.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from thoughtgraph.domain.knowledge import stable_id
from thoughtgraph.domain.scopes import Viewer
from thoughtgraph.domain.units import DAY_MS

DEFAULT_SENSITIVE_FIELDS = ("name", "preferred_name", "pronouns", "city", "language")
DEFAULT_BENIGN_FIELDS = ("tone", "goals")
DEFAULT_EXPIRY_DAYS = 7.0
# Independent signals that apply a benign change without the person's decision.
CORROBORATING_SIGNALS = 2


class Sensitivity(StrEnum):
    SENSITIVE = "sensitive"  # the person decides
    BENIGN = "benign"  # corroboration decides (or the person)


class ConsentStatus(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"  # the person approved: applied
    APPLIED = "applied"  # a benign change corroborated by enough signals: applied
    REJECTED = "rejected"  # the person declined: nothing changed
    EXPIRED = "expired"  # nobody decided in time: nothing changed


class ConsentDecision(StrEnum):
    APPROVE = "approve"
    REJECT = "reject"


def _field_name(text: str) -> str:
    return text.strip().lower()


class FieldPolicy(BaseModel):
    """Which categories are person fields, and how long a request waits for a decision."""

    model_config = ConfigDict(frozen=True)

    sensitive: frozenset[str] = frozenset(DEFAULT_SENSITIVE_FIELDS)
    benign: frozenset[str] = frozenset(DEFAULT_BENIGN_FIELDS)
    expiry_ms: int = int(DEFAULT_EXPIRY_DAYS * DAY_MS)

    @classmethod
    def parse(
        cls,
        sensitive_extra: str | None = None,
        benign_extra: str | None = None,
        expiry_days: float = DEFAULT_EXPIRY_DAYS,
    ) -> FieldPolicy:
        """The defaults plus comma-separated extra field names (settings)."""

        def names(extra: str | None) -> set[str]:
            return {_field_name(n) for n in (extra or "").split(",") if n.strip()}

        sensitive = set(DEFAULT_SENSITIVE_FIELDS) | names(sensitive_extra)
        benign = (set(DEFAULT_BENIGN_FIELDS) | names(benign_extra)) - sensitive
        return cls(
            sensitive=frozenset(sensitive),
            benign=frozenset(benign),
            expiry_ms=int(expiry_days * DAY_MS),
        )

    def sensitivity(self, category: str | None) -> Sensitivity | None:
        """None: the category is not a person field."""
        if category is None:
            return None
        name = _field_name(category)
        if name in self.sensitive:
            return Sensitivity.SENSITIVE
        if name in self.benign:
            return Sensitivity.BENIGN
        return None

    def field_of(self, category: str | None, about: str | None) -> str | None:
        """The field a thought holds about its person; None when it holds none."""
        if about is None or self.sensitivity(category) is None:
            return None
        assert category is not None
        return _field_name(category)


def normalised_value(text: str) -> str:
    """What makes two values the same: case, accents, spacing and punctuation aside."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return " ".join(re.sub(r"[^\w\s]", " ", folded).split())


def same_value(first: str, second: str) -> bool:
    return normalised_value(first) == normalised_value(second)


def signal_of(agent_id: str, session_id: str | None) -> str:
    """One signal per agent and session: the same agent repeating itself in one session
    corroborates nothing."""
    return f"{agent_id}/{session_id or '-'}"


def request_id(namespace: str, person: str, field: str, value: str, replaces: Iterable[str]) -> str:
    """The same change (value, and the values it replaces) proposed again is the same
    request: a retry or a second signal, never a second request."""
    return stable_id(
        "consent", namespace, person, field, normalised_value(value), *sorted(replaces)
    )


class ConsentRequest(BaseModel):
    """A proposed change to a person field, waiting for (or past) its decision."""

    model_config = ConfigDict(frozen=True)

    id: str
    namespace: str
    person: str  # the user the field is about: the one whose key decides
    field: str
    sensitivity: Sensitivity
    status: ConsentStatus
    value: str  # the proposed value, as the thought will say it
    thought_id: str  # the thought that holds the value once applied
    replaces_ids: tuple[str, ...]  # the current values it supersedes
    evidence: str | None = None
    proposed_by_id: str
    proposed_by_name: str
    proposed_by_user: str | None = None  # the user whose key proposed it
    patch: str | None = None  # the thought written on approval (JSON; not shown to clients)
    signals: tuple[str, ...] = ()
    created_at_ms: int
    expires_at_ms: int
    decided_at_ms: int | None = None
    decided_by: str | None = None
    note: str | None = None

    def seen_by(self, viewer: Viewer) -> bool:
        """A request says something about a person: only that person and the user who
        proposed it see it (and a trusted reader)."""
        return viewer.trusted or (
            viewer.user_id is not None and viewer.user_id in (self.person, self.proposed_by_user)
        )

    @property
    def signal_count(self) -> int:
        """The independent signals that proposed it (agents and sessions)."""
        return len(set(self.signals))

    @property
    def corroborated(self) -> bool:
        return self.sensitivity is Sensitivity.BENIGN and self.signal_count >= CORROBORATING_SIGNALS
