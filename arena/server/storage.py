"""The server's own SQLite file: participants (token hashes only), bots,
competitions and the organiser's token hash. Every SQL statement of the server
is here, behind a named method; one connection is shared under a lock, since
the gRPC threads and the trio loop both use it."""

from __future__ import annotations

import enum
import json
import sqlite3
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.files import create_private

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS participants (name TEXT PRIMARY KEY, token_hash TEXT UNIQUE NOT NULL,
    created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (name TEXT PRIMARY KEY, owner TEXT NOT NULL, address TEXT NOT NULL,
    engine_name TEXT, engine_version TEXT, withdrawn INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS competitions (id TEXT PRIMARY KEY, name TEXT NOT NULL,
    config TEXT NOT NULL, bots TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL,
    reason TEXT, engines TEXT);
"""


class CompetitionStatus(enum.Enum):
    """Where a competition stands; the values are the strings stored and sent."""

    CREATED = "created"
    RUNNING = "running"  # also after a server stop: the next start resumes it
    PAUSED = "paused"
    FINISHED = "finished"
    FAILED = "failed"  # cannot start or go on; the reason is kept, never resumed


@dataclass(frozen=True)
class Bot:
    name: str
    owner: str  # the participant who registered it
    address: str
    engine_name: str  # from its handshake at the last check
    engine_version: str
    withdrawn: bool


@dataclass(frozen=True)
class Competition:
    id: str
    name: str
    config: str  # the competition file as the organiser sent it
    bots: list[str]
    status: CompetitionStatus
    created_at: str = ""
    reason: str = ""  # why it failed
    # Each bot's address as it was when the competition was created (name ->
    # spec): a competition plays the bots it was made with, whatever changes later.
    # Empty for competitions stored before snapshots: their bots are looked up.
    engines: dict[str, str] = field(default_factory=dict)


class ServerStorage:
    """The server's records, one method per question or change."""

    def __init__(self, path: Path) -> None:
        create_private(path)
        try:
            self._db = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=30
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(SCHEMA)
            _add_columns(self._db)
        except sqlite3.DatabaseError as e:
            raise ConfigError(f"{path}: not a usable server database ({e})") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def _execute(self, sql: str, args: tuple[Any, ...] = ()) -> None:
        with self._lock, self._db:
            self._db.execute(sql, args)

    def _insert(self, sql: str, args: tuple[Any, ...]) -> bool:
        """False when the row would repeat a unique key."""
        try:
            self._execute(sql, args)
        except sqlite3.IntegrityError:
            return False
        return True

    # The organiser ---------------------------------------------------------------

    def organiser_hash(self) -> str | None:
        rows = self._query("SELECT value FROM meta WHERE key = 'organiser'")
        return str(rows[0][0]) if rows else None

    def set_organiser_hash(self, value: str) -> None:
        self._execute("INSERT OR REPLACE INTO meta VALUES ('organiser', ?)", (value,))

    # Participants ----------------------------------------------------------------

    def add_participant(self, name: str, token_hash: str) -> bool:
        """False when the name is taken."""
        return self._insert("INSERT INTO participants VALUES (?, ?, ?)", (name, token_hash, _now()))

    def participant_with(self, token_hash: str) -> str | None:
        """The name of the participant whose token has this hash."""
        rows = self._query("SELECT name FROM participants WHERE token_hash = ?", (token_hash,))
        return str(rows[0][0]) if rows else None

    # Bots ------------------------------------------------------------------------

    def add_bot(
        self, name: str, owner: str, address: str, engine_name: str, engine_version: str
    ) -> bool:
        """False when the name is taken."""
        return self._insert(
            "INSERT INTO bots(name, owner, address, engine_name, engine_version) "
            "VALUES (?, ?, ?, ?, ?)",
            (name, owner, address, engine_name, engine_version),
        )

    def update_bot(self, name: str, address: str, engine_name: str, engine_version: str) -> None:
        self._execute(
            "UPDATE bots SET address = ?, engine_name = ?, engine_version = ? WHERE name = ?",
            (address, engine_name, engine_version, name),
        )

    def withdraw_bot(self, name: str) -> None:
        self._execute("UPDATE bots SET withdrawn = 1 WHERE name = ?", (name,))

    def bot(self, name: str) -> Bot | None:
        rows = self._query(f"{_SELECT_BOT} WHERE name = ?", (name,))
        return _bot(rows[0]) if rows else None

    def bots(self) -> list[Bot]:
        """Every bot, withdrawn ones too, by name."""
        return [_bot(row) for row in self._query(f"{_SELECT_BOT} ORDER BY name")]

    # Competitions ----------------------------------------------------------------

    def add_competition(
        self, comp_id: str, name: str, config: str, engines: dict[str, str]
    ) -> None:
        """``engines``: each bot's name and address, in the competition's order."""
        self._execute(
            "INSERT INTO competitions(id, name, config, bots, status, created_at, engines) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                comp_id,
                name,
                config,
                json.dumps(list(engines)),
                CompetitionStatus.CREATED.value,
                _now(),
                json.dumps(engines),
            ),
        )

    def competition(self, comp_id: str) -> Competition | None:
        rows = self._query(f"{_SELECT_COMPETITION} WHERE id = ?", (comp_id,))
        return _competition(rows[0]) if rows else None

    def competitions(self) -> list[Competition]:
        """Every competition, oldest first."""
        return [
            _competition(row)
            for row in self._query(f"{_SELECT_COMPETITION} ORDER BY created_at, rowid")
        ]

    def set_competition_status(
        self, comp_id: str, status: CompetitionStatus, reason: str = ""
    ) -> None:
        """``reason``: why it failed or stopped by itself (cleared otherwise)."""
        self._execute(
            "UPDATE competitions SET status = ?, reason = ? WHERE id = ?",
            (status.value, reason, comp_id),
        )

    def competitions_with_status(self, status: CompetitionStatus) -> list[str]:
        """The ids of the competitions that stand at ``status``."""
        rows = self._query("SELECT id FROM competitions WHERE status = ?", (status.value,))
        return [str(comp_id) for (comp_id,) in rows]


_SELECT_COMPETITION = (
    "SELECT id, name, config, bots, status, created_at, COALESCE(reason, ''), "
    "COALESCE(engines, '{}') FROM competitions"
)


def _competition(row: tuple[Any, ...]) -> Competition:
    cid, name, config, bots, status, created_at, reason, engines = row
    return Competition(
        cid,
        name,
        config,
        json.loads(bots),
        CompetitionStatus(status),
        created_at,
        reason,
        json.loads(engines),
    )


def _add_columns(db: sqlite3.Connection) -> None:
    """Columns added since the first schema, added to older databases in place."""
    have = {row[1] for row in db.execute("PRAGMA table_info(competitions)")}
    for column in ("reason", "engines"):
        if column not in have:
            db.execute(f"ALTER TABLE competitions ADD COLUMN {column} TEXT")


_SELECT_BOT = (
    "SELECT name, owner, address, COALESCE(engine_name, ''), COALESCE(engine_version, ''), "
    "withdrawn FROM bots"
)


def _bot(row: tuple[Any, ...]) -> Bot:
    name, owner, address, engine_name, engine_version, withdrawn = row
    return Bot(name, owner, address, engine_name, engine_version, bool(withdrawn))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
