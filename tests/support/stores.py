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
