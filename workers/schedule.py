"""The beat schedule, built from settings: what runs periodically across all namespaces.

Each entry starts a fan-out task that lists the active namespaces and queues one task per
namespace. Every message expires after one period: when no worker took it before the next
slot, it is dropped instead of piling up behind an outage and running N times at once on
recovery (the next slot does the same work). A period of 0 turns an entry off.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any, TypedDict

from thoughtgraph.settings import Settings
from thoughtgraph.workers import names


class ScheduleEntry(TypedDict):
    task: str
    schedule: timedelta
    options: dict[str, Any]


def schedule_file(settings: Settings) -> Path:
    """Beat's record of when each entry last ran, beside the data it maintains."""
    return settings.data_dir / "beat-schedule"


def beat_schedule(settings: Settings) -> dict[str, ScheduleEntry]:
    """Entry name -> Celery beat entry, each with ``options.expires`` (seconds)."""
    periods = {
        "consolidation": (names.SCHEDULED_CONSOLIDATION, settings.consolidation_every_s),
        "contradiction-scan": (
            names.SCHEDULED_CONTRADICTION_SCAN,
            settings.contradiction_scan_every_s,
        ),
        "decay": (names.SCHEDULED_DECAY, settings.decay_every_s),
        "consent-expiry": (names.SCHEDULED_CONSENT_EXPIRY, settings.consent_expiry_every_s),
        "insights": (names.SCHEDULED_INSIGHTS, settings.insights_every_s),
        # Only where writes ask for scans: it makes good the requests that were lost.
        "scan-sweep": (
            names.SCHEDULED_SCAN_SWEEP,
            settings.scan_sweep_every_s if settings.scan_on_write else 0,
        ),
    }
    return {
        name: ScheduleEntry(
            task=task,
            schedule=timedelta(seconds=every_s),
            options={"expires": every_s},
        )
        for name, (task, every_s) in periods.items()
        if every_s > 0
    }
