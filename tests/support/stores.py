"""What a results store holds, read with plain SQL, to compare two runs."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def results(store: Path) -> dict[str, tuple]:
    """Each match's result as stored (what can differ between runs left out:
    times, finishing order, the log's chain value)."""
    db = sqlite3.connect(store)
    rows = db.execute(
        "SELECT id, status, winner_side, score0, score1, termination, reason, deals, log_path "
        "FROM matches"
    ).fetchall()
    db.close()
    return {r[0]: (*r[1:-1], Path(r[-1]).name if r[-1] else None) for r in rows}


def faults(store: Path) -> list[tuple]:
    db = sqlite3.connect(store)
    rows = db.execute("SELECT match_id, engine, kind, message FROM faults").fetchall()
    db.close()
    return rows


def matches_done(store: Path) -> int:
    """How many matches a store records as done; 0 while it is not there or
    not readable yet (a run that is starting, or was killed mid-write)."""
    if not store.exists():
        return 0
    try:
        return sum(1 for r in results(store).values() if r[0] == "done")
    except Exception:
        return 0


def charged(store: Path) -> list[tuple[str, str, str]]:
    """Each fault's match, bot and kind (its message names a process id)."""
    return sorted((match, engine, kind) for match, engine, kind, _ in faults(store))
