"""Units of the service's time axis: epoch milliseconds."""

from __future__ import annotations

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
