"""Tournament results in SQLite: the single source for standings and ratings.

The whole schedule is written first (every match 'pending'); each finished
match is committed in one transaction as it finishes. After a crash the same
schedule is found again, finished matches are kept, and the pending ones
(including those that were in flight) are played again from their start.
"""

from __future__ import annotations

import enum
import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.files import create_private
from arena.outcome import Fault, MatchResult, Termination

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS engines (
    name TEXT PRIMARY KEY, spec TEXT NOT NULL,
    engine_name TEXT, engine_version TEXT, author TEXT
);
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,            -- order in the schedule
    set_id TEXT NOT NULL,            -- the duplicate set (same decks, seats rotated)
    seed INTEGER NOT NULL,
    first_dealer INTEGER NOT NULL,
    seats TEXT NOT NULL,             -- JSON list: engine name per seat
    status TEXT NOT NULL DEFAULT 'pending',  -- pending | done
    winner_side INTEGER,
    score0 INTEGER, score1 INTEGER,
    termination TEXT, reason TEXT, deals INTEGER,
    log_path TEXT, finished_at TEXT, finish_order INTEGER
);
CREATE INDEX IF NOT EXISTS matches_status ON matches(status);
CREATE TABLE IF NOT EXISTS faults (
    match_id TEXT NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL, engine TEXT NOT NULL, kind TEXT NOT NULL,
    deal INTEGER, decision INTEGER, message TEXT, at_startup INTEGER
);
CREATE TABLE IF NOT EXISTS suspensions (
    engine TEXT PRIMARY KEY, reason TEXT NOT NULL, at TEXT NOT NULL
);
"""


class MatchStatus(enum.Enum):
    """Whether a scheduled match has a stored result; the values are the stored strings."""

    PENDING = "pending"  # not played yet, or in flight (played again after a crash)
    DONE = "done"


@dataclass(frozen=True)
class ScheduledMatch:
    id: str
    seq: int
    set_id: str
    seed: int
    first_dealer: int
    seats: tuple[str, ...]  # engine name per seat


@dataclass(frozen=True)
class StoredMatch:
    id: str
    set_id: str
    seats: tuple[str, ...]
    first_dealer: int
    winner_side: int | None
    scores: tuple[int, int]
    termination: Termination
    reason: str
    finish_order: int


@dataclass(frozen=True)
class MatchEntry:
    """One match of the schedule as it stands: pending, or done with its result and log."""

    id: str
    seats: tuple[str, ...]
    status: MatchStatus
    scores: tuple[int, int] | None  # None while pending
    winner_side: int | None
    termination: Termination | None  # None while pending
    reason: str
    log_path: str | None  # None while pending, and for matches forfeited unplayed


class Store:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        create_private(self.path)  # SQLite gives its -wal and -shm files the same mode
        try:
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as e:
            raise ConfigError(f"{self.path}: not a usable results database ({e})") from None
        version = self.meta("schema_version")
        if version is None:
            self.set_meta("schema_version", str(SCHEMA_VERSION))
        elif version != str(SCHEMA_VERSION):
            raise ConfigError(
                f"{self.path}: results schema {version}, this arena uses {SCHEMA_VERSION}"
            )

    def close(self) -> None:
        self.db.close()

    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def bind(self, fingerprint: str) -> bool:
        """Tie the store to one tournament configuration. True if it is resuming."""
        found = self.meta("config")
        if found is None:
            self.set_meta("config", fingerprint)
            self.set_meta("created_at", _now())
            return False
        if found != fingerprint:
            raise ConfigError(
                f"{self.path} holds results of a different tournament configuration; "
                "use another output directory or store to start a new one"
            )
        return True

    def add_engines(self, engines: Iterable[tuple[str, str]]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR IGNORE INTO engines(name, spec) VALUES (?, ?)", list(engines)
            )

    def note_engine(self, name: str, engine_name: str, version: str, author: str) -> None:
        self.db.execute(
            "UPDATE engines SET engine_name = ?, engine_version = ?, author = ? WHERE name = ?",
            (engine_name, version, author, name),
        )

    def schedule(self, matches: Sequence[ScheduledMatch]) -> None:
        with self.db:
            self.db.executemany(
                "INSERT OR IGNORE INTO matches(id, seq, set_id, seed, first_dealer, seats) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (m.id, m.seq, m.set_id, m.seed, m.first_dealer, json.dumps(m.seats))
                    for m in matches
                ],
            )

    def pending(self) -> list[ScheduledMatch]:
        rows = self.db.execute(
            "SELECT id, seq, set_id, seed, first_dealer, seats FROM matches "
            "WHERE status = ? ORDER BY seq",
            (MatchStatus.PENDING.value,),
        ).fetchall()
        return [ScheduledMatch(r[0], r[1], r[2], r[3], r[4], tuple(json.loads(r[5]))) for r in rows]

    def counts(self) -> tuple[int, int]:
        done, total = self.db.execute(
            "SELECT SUM(status = ?), COUNT(*) FROM matches", (MatchStatus.DONE.value,)
        ).fetchone()
        return int(done or 0), int(total or 0)

    def record(self, match: ScheduledMatch, result: MatchResult, log_path: str | None) -> None:
        """Commit one finished match and its faults, atomically."""
        with self.db:
            order = self.db.execute(
                "SELECT COALESCE(MAX(finish_order), 0) + 1 FROM matches"
            ).fetchone()[0]
            self.db.execute(
                "UPDATE matches SET status = ?, winner_side = ?, score0 = ?, score1 = ?, "
                "termination = ?, reason = ?, deals = ?, log_path = ?, finished_at = ?, "
                "finish_order = ? WHERE id = ?",
                (
                    MatchStatus.DONE.value,
                    result.winner,
                    result.final_scores[0],
                    result.final_scores[1],
                    result.termination.value,
                    result.reason,
                    result.deals_played,
                    log_path,
                    _now(),
                    order,
                    match.id,
                ),
            )
            self.db.execute("DELETE FROM faults WHERE match_id = ?", (match.id,))
            self.db.executemany(
                "INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [_fault_row(match, f) for f in result.faults],
            )

    def suspend(self, engine: str, reason: str) -> None:
        self.db.execute(
            "INSERT OR IGNORE INTO suspensions(engine, reason, at) VALUES (?, ?, ?)",
            (engine, reason, _now()),
        )

    def suspended(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT engine, reason FROM suspensions").fetchall())

    def finished(self) -> list[StoredMatch]:
        rows = self.db.execute(
            "SELECT id, set_id, seats, first_dealer, winner_side, score0, score1, termination, "
            "reason, finish_order FROM matches WHERE status = ? ORDER BY finish_order",
            (MatchStatus.DONE.value,),
        ).fetchall()
        return [
            StoredMatch(
                r[0],
                r[1],
                tuple(json.loads(r[2])),
                r[3],
                r[4],
                (r[5], r[6]),
                Termination(r[7]),
                r[8],
                r[9],
            )
            for r in rows
        ]

    def matches(self) -> list[MatchEntry]:
        """Every match of the schedule, in schedule order."""
        rows = self.db.execute(f"{_SELECT_ENTRY} ORDER BY seq").fetchall()
        return [_entry(r) for r in rows]

    def match(self, match_id: str) -> MatchEntry | None:
        row = self.db.execute(f"{_SELECT_ENTRY} WHERE id = ?", (match_id,)).fetchone()
        return None if row is None else _entry(row)

    def faulty_engines(self) -> dict[str, set[str]]:
        """Per finished match, the engines that made a fault in it."""
        out: dict[str, set[str]] = {}
        for match_id, engine in self.db.execute("SELECT match_id, engine FROM faults").fetchall():
            out.setdefault(match_id, set()).add(engine)
        return out

    def fault_counts(self) -> dict[str, int]:
        return dict(
            self.db.execute("SELECT engine, COUNT(*) FROM faults GROUP BY engine").fetchall()
        )

    def engines(self) -> list[tuple[str, str, str, str]]:
        rows = self.db.execute(
            "SELECT name, spec, COALESCE(engine_name, ''), COALESCE(engine_version, '') "
            "FROM engines ORDER BY name"
        ).fetchall()
        return [tuple(r) for r in rows]


_SELECT_ENTRY = (
    "SELECT id, seats, status, score0, score1, winner_side, termination, reason, log_path "
    "FROM matches"
)


def _entry(row: tuple[Any, ...]) -> MatchEntry:
    match_id, seats, status, score0, score1, winner_side, termination, reason, log_path = row
    match_status = MatchStatus(status)
    return MatchEntry(
        id=match_id,
        seats=tuple(json.loads(seats)),
        status=match_status,
        scores=(score0, score1) if match_status is MatchStatus.DONE else None,
        winner_side=winner_side,
        termination=None if termination is None else Termination(termination),
        reason=reason or "",
        log_path=log_path,
    )


def _fault_row(match: ScheduledMatch, f: Fault) -> tuple[object, ...]:
    return (
        match.id,
        f.seat,
        match.seats[f.seat],
        f.kind.value,
        f.deal_number,
        f.decision,
        f.message,
        int(f.at_startup),
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def open_store(path: Path) -> Store:
    if path.exists() and path.stat().st_size and _header(path) != b"SQLite format 3\x00":
        raise ConfigError(f"{path}: exists and is not a SQLite database")
    return Store(path)


def _header(path: Path) -> bytes:
    with open(path, "rb") as f:
        return f.read(16)
