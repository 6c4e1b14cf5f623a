"""Reading Prometheus text (with prometheus_client's own parser) and polling in tests."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import TypeVar

import httpx
from prometheus_client.parser import text_string_to_metric_families

T = TypeVar("T")
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(url: str, headers: Mapping[str, str] | None = None) -> Samples:
    """Every sample of a /metrics page, by name and labels."""
    response = httpx.get(url, headers=dict(headers or {}), timeout=30)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    found: Samples = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def value(samples: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels`` (0 if none)."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= ls)


def label_values(samples: Samples, name: str, label: str) -> set[str]:
    return {dict(ls)[label] for (n, ls) in samples if n == name and label in dict(ls)}


class CountingObserver:
    """A store's statement observer that counts the statements it runs, by name."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def statement(self, name: str, *, write: bool) -> contextlib.AbstractContextManager[object]:
        del write
        self.counts[name] = self.counts.get(name, 0) + 1
        return contextlib.nullcontext()
