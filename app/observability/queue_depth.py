"""Queue depth, read from the broker at scrape time (a custom collector: no polling)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Protocol, runtime_checkable

import structlog
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

log = structlog.get_logger(__name__)


@runtime_checkable
class QueueDepthSource(Protocol):
    def depths(self) -> Mapping[str, int]:
        """Messages waiting per queue, asked of the broker now (raises if it cannot)."""
        ...


class QueueDepthCollector(Collector):
    """``tg_queue_depth{queue}``: what waits in the broker. A broker that does not answer
    leaves the gauge out of that scrape (and says so in the log) instead of failing it."""

    def __init__(self, source: QueueDepthSource) -> None:
        self._source = source

    def describe(self) -> Iterator[GaugeMetricFamily]:
        yield GaugeMetricFamily("tg_queue_depth", "Tasks waiting in the broker.", labels=["queue"])

    def collect(self) -> Iterator[GaugeMetricFamily]:
        try:
            depths = self._source.depths()
        except Exception as exc:  # the broker is down: the scrape still answers
            log.warning("metrics.queue_depth_unavailable", error=str(exc))
            return
        family = GaugeMetricFamily(
            "tg_queue_depth", "Tasks waiting in the broker.", labels=["queue"]
        )
        for queue, depth in sorted(depths.items()):
            family.add_metric([queue], depth)
        yield family
