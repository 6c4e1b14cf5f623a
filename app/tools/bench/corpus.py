"""Realistic thoughts for the maintenance benchmarks: facts about many subjects.

Random unit vectors (``data.py``) have no neighbours, so a consolidation run over them has
nothing to merge, judge or link. These are sentences an agent would write: template facts
about services, people and settings, each with a value. About 5% are near-duplicates of
an earlier fact (the same words, punctuation or case changed), about 5% change an earlier
fact (same subject, a new value, half of them with the cue word "now"), and the rest are
unrelated facts. The texts depend on the seed and the size only, so their embeddings can
be cached (``vectors.py``); ids are random, so a run never meets a previous run's ids.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from thoughtgraph.tools.bench.data import BenchThought

CORPUS_SEED = 20240917
DUPLICATE_SHARE = 0.05
CHANGE_SHARE = 0.05
SPACING_MS = 1000  # between consecutive thoughts: a run's window holds them all

_SERVICE_AREAS = (
    "billing", "checkout", "search", "catalog", "inventory", "shipping", "pricing",
    "reviews", "accounts", "notifications", "analytics", "ledger", "payouts", "refunds",
    "loyalty", "recommendations", "media", "gateway", "scheduler", "reports", "audit",
    "identity", "messaging", "geocoding", "fraud", "tax", "invoicing", "subscriptions",
    "warehouse", "support",
)  # fmt: skip
_SERVICE_ROLES = (
    "api", "worker", "indexer", "proxy", "cache", "exporter", "consumer", "scheduler",
    "frontend", "importer", "sync", "webhook",
)  # fmt: skip
_FIRST = (
    "Alice", "Bob", "Carlos", "Mei", "Priya", "Tomasz", "Fatima", "Jonas", "Aiko", "Lena",
    "Omar", "Sofia", "Ravi", "Nora", "Diego", "Hana", "Ivan", "Chloe", "Kwame", "Elif",
    "Mateo", "Yara", "Lukas", "Zara", "Arjun", "Ines", "Felix", "Amara", "Noah", "Leila",
)  # fmt: skip
_LAST = (
    "Nguyen", "Smith", "Garcia", "Chen", "Patel", "Kowalski", "Haddad", "Berg", "Tanaka",
    "Fischer", "Rahman", "Rossi", "Iyer", "Olsen", "Silva", "Kim", "Petrov", "Martin",
    "Mensah", "Yilmaz", "Lopez", "Khan", "Weber", "Ali", "Sharma", "Costa", "Novak",
    "Okafor", "Dubois", "Sato",
)  # fmt: skip
_SETTINGS = (
    "max connections", "cache TTL", "retry limit", "request timeout", "batch size",
    "worker pool size", "rate limit", "session lifetime", "upload size limit",
    "log retention", "queue depth limit", "connection idle timeout", "backup interval",
    "replica count", "heap size", "thread count", "page size", "lock timeout",
    "circuit breaker threshold", "token expiry",
)  # fmt: skip
_ENVIRONMENTS = ("staging", "production", "the load-test cluster", "the EU cluster")
_FLAGS = (
    "dark mode", "new checkout flow", "one-click refunds", "smart search", "beta pricing",
    "bulk export", "two-factor login", "instant payouts", "offline sync", "live chat",
    "usage alerts", "saved carts", "gift cards", "audit trail", "guest checkout",
)  # fmt: skip
_REGIONS = ("eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-southeast-1", "sa-east-1")
_DATABASES = ("Postgres", "MySQL", "Cassandra", "DynamoDB", "MongoDB", "Redis", "SQLite")
_RUNTIMES = ("Python 3.10", "Python 3.11", "Python 3.12", "Go 1.21", "Go 1.22", "Java 17",
             "Java 21", "Node.js 18", "Node.js 20", "Rust 1.75")  # fmt: skip
_CITIES = ("Lisbon", "Berlin", "Toronto", "Singapore", "Nairobi", "Austin", "Warsaw", "Osaka",
           "Dublin", "Bangalore", "Madrid", "Oslo")  # fmt: skip
_TEAMS = ("platform", "payments", "growth", "search", "mobile", "data", "security",
          "infrastructure", "checkout", "support tooling")  # fmt: skip
_EDITORS = ("Vim", "Emacs", "VS Code", "IntelliJ", "Helix", "Zed", "Sublime Text")
_LANGUAGES = ("Portuguese", "German", "Japanese", "Spanish", "Hindi", "Polish", "French",
              "Swahili", "Korean", "Turkish")  # fmt: skip
_LEVELS = ("debug", "info", "warning", "error")
_STATES = ("enabled", "disabled")
_CHANNELS = ("ops-alerts", "oncall", "payments-alerts", "sre", "incidents", "platform-pager",
             "data-alerts", "security-alerts")  # fmt: skip
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "day", "week")
_ZONES = ("UTC", "CET", "EST", "PST", "IST", "JST", "SGT", "BRT")

Value = Callable[[np.random.Generator], str]


def _pick(options: Sequence[str]) -> Value:
    return lambda rng: options[int(rng.integers(0, len(options)))]


def _number(low: int, high: int, step: int = 1) -> Value:
    return lambda rng: str(int(rng.integers(low // step, high // step + 1)) * step)


def _person(rng: np.random.Generator) -> str:
    return f"{_pick(_FIRST)(rng)} {_pick(_LAST)(rng)}"


@dataclass(frozen=True)
class Template:
    """One kind of fact. ``plain`` and ``changed`` take ``{s}`` (subject) and ``{v}``
    (value); ``changed`` says the same with a change cue."""

    category: str
    plain: str
    changed: str
    value: Value


_SERVICE_TEMPLATES = (
    Template("service", "The {s} service listens on port {v}.",
             "The {s} service now listens on port {v}.", _number(1024, 65000)),
    Template("service", "The {s} service runs on {v}.",
             "The {s} service now runs on {v}.", _pick(_RUNTIMES)),
    Template("service", "The {s} service is deployed in {v}.",
             "The {s} service is now deployed in {v}.", _pick(_REGIONS)),
    Template("service", "The {s} service stores its data in {v}.",
             "The {s} service now stores its data in {v}.", _pick(_DATABASES)),
    Template("service", "{v} owns the {s} service.",
             "{v} now owns the {s} service.", _person),
    Template("service", "The {s} service times out requests after {v} seconds.",
             "The {s} service now times out requests after {v} seconds.", _number(2, 120)),
    Template("service", "The {s} service runs {v} replicas in production.",
             "The {s} service now runs {v} replicas in production.", _number(2, 48)),
    Template("service", "The {s} service logs at {v} level.",
             "The {s} service now logs at {v} level.", _pick(_LEVELS)),
    Template("service", "Alerts for the {s} service go to the #{v} channel.",
             "Alerts for the {s} service now go to the #{v} channel.", _pick(_CHANNELS)),
    Template("service", "The {s} service is deployed every {v}.",
             "The {s} service is now deployed every {v}.", _pick(_WEEKDAYS)),
)  # fmt: skip
_PERSON_TEMPLATES = (
    Template("person", "{s} works from the {v} office.",
             "{s} now works from the {v} office.", _pick(_CITIES)),
    Template("person", "{s} is on the {v} team.", "{s} is now on the {v} team.", _pick(_TEAMS)),
    Template("person", "{s} uses {v} as their main editor.",
             "{s} now uses {v} as their main editor.", _pick(_EDITORS)),
    Template("person", "{s} speaks {v} with customers.",
             "{s} now speaks {v} with customers.", _pick(_LANGUAGES)),
    Template("person", "{s} is on call for the {v} team this week.",
             "{s} is now on call for the {v} team this week.", _pick(_TEAMS)),
    Template("person", "{s} works in the {v} time zone.",
             "{s} now works in the {v} time zone.", _pick(_ZONES)),
)  # fmt: skip
_FLAG_TEMPLATE = Template(
    "setting", "The {s} feature flag is {v}.", "The {s} feature flag is now {v}.", _pick(_STATES)
)
_SETTING_TEMPLATE = Template(
    "setting", "The {s} is set to {v}.", "The {s} is now set to {v}.", _number(5, 5000, 5)
)


@dataclass(frozen=True)
class Slot:
    """A subject and what is said of it: the unit a change or a duplicate refers to."""

    template: Template
    subject: str


def all_slots() -> list[Slot]:
    """Every (template, subject) pair the corpus can state: about 16,000."""
    services = [f"{area}-{role}" for area in _SERVICE_AREAS for role in _SERVICE_ROLES]
    people = [f"{first} {last}" for first in _FIRST for last in _LAST]
    slots = [Slot(t, s) for s in services for t in _SERVICE_TEMPLATES]
    slots += [Slot(t, p) for p in people for t in _PERSON_TEMPLATES]
    slots += [Slot(_FLAG_TEMPLATE, f"{flag} in {env}") for flag in _FLAGS for env in _ENVIRONMENTS]
    slots += [
        Slot(_SETTING_TEMPLATE, f"{name} in {env}") for name in _SETTINGS for env in _ENVIRONMENTS
    ]
    slots += [
        Slot(_SETTING_TEMPLATE, f"{name} of the {service} service")
        for name in _SETTINGS[::2]  # half of them: services keep most of their share
        for service in services
    ]
    return slots


def _near_duplicate(text: str, rng: np.random.Generator) -> str:
    """The same words, written a little differently: what a second agent or a retry
    stores. Content words are untouched, so the merge rule accepts the pair."""
    body = text.rstrip(".")
    variants = (
        body,  # no final stop
        body + "!",
        body + " .",
        body[0].lower() + body[1:] + ".",
        body.replace(" the ", " the  ", 1) + ";",
        "Note: " + body + ".",
    )
    return variants[int(rng.integers(0, len(variants)))]


@dataclass(frozen=True)
class CorpusStats:
    facts: int
    duplicates: int
    changes: int
    changes_with_cue: int


class Corpus:
    """``size`` texts in the order they were written, and what each one is."""

    def __init__(self, size: int, seed: int = CORPUS_SEED) -> None:
        rng = np.random.default_rng([seed, size])
        slots = all_slots()
        if size < 1:
            raise ValueError("a corpus needs at least one thought")
        duplicates = round(size * DUPLICATE_SHARE)
        changes = round(size * CHANGE_SHARE)
        facts = size - duplicates - changes
        if facts > len(slots) or facts < duplicates + changes:
            raise ValueError(f"cannot build a corpus of {size} thoughts")
        chosen = [slots[int(i)] for i in rng.permutation(len(slots))[:facts]]
        # Written in this order: facts at 0..facts-1, a derived thought some time after
        # the fact it repeats or changes.
        timed: list[tuple[float, str, str]] = []  # (when, text, category)
        values = [slot.template.value(rng) for slot in chosen]
        for i, (slot, value) in enumerate(zip(chosen, values, strict=True)):
            text = slot.template.plain.format(s=slot.subject, v=value)
            timed.append((float(i), text, slot.template.category))
        derived = rng.permutation(facts)[: duplicates + changes]
        cues = 0
        for n, index in enumerate(int(i) for i in derived):
            slot, when = chosen[index], index + float(rng.uniform(0.5, facts - index))
            category = slot.template.category
            if n < duplicates:
                timed.append((when, _near_duplicate(timed[index][1], rng), category))
                continue
            value = values[index]
            while value == values[index]:  # a changed fact has a new value
                value = slot.template.value(rng)
            with_cue = n % 2 == 0
            cues += with_cue
            form = slot.template.changed if with_cue else slot.template.plain
            timed.append((when, form.format(s=slot.subject, v=value), category))
        timed.sort(key=lambda item: item[0])
        self.texts: list[str] = [text for _, text, _ in timed]
        self.categories: list[str] = [category for _, _, category in timed]
        self.stats = CorpusStats(facts, duplicates, changes, cues)

    def __len__(self) -> int:
        return len(self.texts)

    def thoughts(
        self, vectors: np.ndarray, *, start_ms: int, count: int | None = None
    ) -> list[BenchThought]:
        """The first ``count`` texts (all by default) as originals with these embeddings,
        one second apart from ``start_ms`` (a run's window must cover them)."""
        count = len(self.texts) if count is None else count
        if vectors.shape[0] != count:
            raise ValueError("one vector per text is needed")
        rows: list[list[float]] = vectors.tolist()
        return [
            BenchThought(
                id=str(uuid.uuid4()),
                content=text,
                agent_id=f"bench-agent-{i % 8}",
                agent_name=f"Bench Agent {i % 8}",
                tags=("bench", self.categories[i]),
                created_at_ms=start_ms + i * SPACING_MS,
                embedding=rows[i],
            )
            for i, text in enumerate(self.texts[:count])
        ]
