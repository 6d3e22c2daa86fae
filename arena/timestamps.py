"""The one spelling of a moment the arena records (a log's start and end, a
store's reveal, a registration): UTC, ISO 8601, to the second, so that every
file and table compares and sorts the same way.

Pure: standard library only.
"""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> str:
    """Now, as ``2026-12-01T23:30:00+00:00``."""
    return datetime.now(UTC).isoformat(timespec="seconds")
