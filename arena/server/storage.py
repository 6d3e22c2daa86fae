"""The server's own SQLite file: participants (token hashes only), bots,
competitions and the organiser's token hash. Every SQL statement of the server
is here, behind a named method; one connection is shared under a lock, since
the gRPC threads and the trio loop both use it.

Why one module of this size: every SQL statement of the server is here, behind
a named method, by design: one file to read to know what the server keeps."""

from __future__ import annotations

import enum
import json
import os
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.files import FILE_MODE, create_private
from arena.server.names import name_key
from arena.server.versions import version_player
from arena.timestamps import utc_now

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS participants (name TEXT PRIMARY KEY, token_hash TEXT UNIQUE NOT NULL,
    created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (name TEXT PRIMARY KEY, owner TEXT NOT NULL, address TEXT NOT NULL,
    engine_name TEXT, engine_version TEXT, withdrawn INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS competitions (id TEXT PRIMARY KEY, name TEXT NOT NULL,
    config TEXT NOT NULL, bots TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL,
    reason TEXT, engines TEXT);
CREATE TABLE IF NOT EXISTS submissions (bot TEXT NOT NULL, sha256 TEXT NOT NULL,
    owner TEXT NOT NULL, version TEXT NOT NULL, command TEXT NOT NULL, games TEXT NOT NULL,
    submitted_at TEXT NOT NULL, archive_bytes INTEGER NOT NULL, files INTEGER NOT NULL,
    unpacked_bytes INTEGER NOT NULL, check_passed INTEGER NOT NULL, check_report TEXT NOT NULL,
    check_output TEXT NOT NULL, PRIMARY KEY (bot, sha256));
CREATE TABLE IF NOT EXISTS ladder_versions (competition TEXT NOT NULL, player TEXT NOT NULL,
    bot TEXT NOT NULL, number INTEGER NOT NULL, owner TEXT NOT NULL, address TEXT NOT NULL,
    entered_at TEXT NOT NULL, state TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '',
    changed_at TEXT NOT NULL, PRIMARY KEY (competition, player));
CREATE INDEX IF NOT EXISTS ladder_versions_owner ON ladder_versions(competition, owner, entered_at);
"""


class CompetitionStatus(enum.Enum):
    """Where a competition stands; the values are the strings stored and sent."""

    CREATED = "created"
    RUNNING = "running"  # also after a server stop: the next start resumes it
    PAUSED = "paused"
    FINISHED = "finished"
    FAILED = "failed"  # cannot start or go on; the reason is kept, never resumed


class BotLiveness(enum.StrEnum):
    """What the last liveness probe of a bot saw (liveness.py); the values are
    the strings stored and sent."""

    UNKNOWN = ""  # no probe yet
    ALIVE = "alive"
    DEAD = "dead"


class VersionState(enum.StrEnum):
    """Where a version of a bot stands in a ladder; the values are stored and sent."""

    VALIDATING = "validating"  # entered: its validation set is to play
    ACTIVE = "active"  # rated and matched
    REJECTED = "rejected"  # its validation set had a fault of its own (reason kept)
    RETIRED = "retired"  # its owner has newer active versions; its matches are kept


@dataclass(frozen=True)
class LadderVersion:
    """One version of a bot in a ladder: a player of its own (``BOT@N``)."""

    competition: str
    player: str
    bot: str
    number: int
    owner: str
    address: str  # the bot's address or submission:SHA256 when it entered
    entered_at: str
    state: VersionState
    reason: str
    changed_at: str


@dataclass(frozen=True)
class Bot:
    name: str
    owner: str  # the participant who registered it
    address: str
    engine_name: str  # from its handshake at the last check
    engine_version: str
    withdrawn: bool
    liveness: BotLiveness = BotLiveness.UNKNOWN
    liveness_detail: str = ""
    last_seen: str = ""  # when it last answered, UTC ISO 8601
    seen_version: str = ""  # the version it gave then
    # The games its last check played it in (empty: not known, a bot stored
    # before games were kept): a competition of another game refuses it.
    games: tuple[str, ...] = ()
    # The Variant options its last check's handshake listed (None: not known,
    # a bot stored before options were kept): a competition with another refuses it.
    options: tuple[str, ...] | None = None


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
    # A ladder's phase: "ladder" (open), "final" (closed: the final is being
    # played); empty for a fixed competition.
    phase: str = ""


@dataclass(frozen=True)
class SubmissionRecord:
    """One upload of a bot, with its conformance check (items as (name, passed, detail))."""

    bot: str
    sha256: str
    owner: str
    version: str
    command: list[str]
    games: list[str]
    submitted_at: str
    archive_bytes: int
    files: int
    unpacked_bytes: int
    check_passed: bool
    check_items: list[tuple[str, bool, str]]
    check_output: str


class ServerStorage:
    """The server's records, one method per question or change."""

    def __init__(self, path: Path) -> None:
        create_private(path)
        # A database of an older server may be 0644: it holds who plays what.
        for part in (path, path.with_name(f"{path.name}-wal"), path.with_name(f"{path.name}-shm")):
            if part.exists():
                os.chmod(part, FILE_MODE)
        try:
            self._db = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=30
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(SCHEMA)
            self._migrate()
        except sqlite3.DatabaseError as e:
            raise ConfigError(f"{path}: not a usable server database ({e})") from None
        self._lock = threading.Lock()

    def _migrate(self) -> None:
        """Bring a database made by an older server up to this schema: columns
        are only ever added, and filled in from what is there."""
        for table, column in _ADDED_COLUMNS:
            have = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
            if column.split()[0] not in have:
                self._db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")
        for table in ("participants", "bots"):
            rows = self._db.execute(f"SELECT name FROM {table} WHERE name_key IS NULL").fetchall()
            for (name,) in rows:
                self._db.execute(
                    f"UPDATE {table} SET name_key = ? WHERE name = ?", (name_key(name), name)
                )
            self._db.execute(f"CREATE INDEX IF NOT EXISTS {table}_name_key ON {table}(name_key)")

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
        """False when the name, or one that reads the same (names.name_key), is taken."""
        return self._insert_new_name(
            "participants",
            "name, token_hash, created_at",
            (name, token_hash, utc_now()),
            name,
        )

    def _insert_new_name(
        self, table: str, columns: str, values: tuple[Any, ...], name: str
    ) -> bool:
        """Insert the row unless a row's name has the same key, in one
        statement so that two calls at once cannot both pass."""
        marks = ", ".join("?" for _ in values)
        with self._lock, self._db:
            cursor = self._db.execute(
                f"INSERT INTO {table}({columns}, name_key) SELECT {marks}, ? "
                f"WHERE NOT EXISTS (SELECT 1 FROM {table} WHERE name_key = ?)",
                (*values, name_key(name), name_key(name)),
            )
            return cursor.rowcount == 1

    def name_taken(self, table: str, name: str) -> str | None:
        """The stored name that reads as ``name`` in ``table`` (participants or bots)."""
        assert table in ("participants", "bots")
        rows = self._query(f"SELECT name FROM {table} WHERE name_key = ?", (name_key(name),))
        return str(rows[0][0]) if rows else None

    def participant_since(self, name: str) -> str | None:
        """When participant ``name`` registered (UTC ISO 8601), or None if nobody has that name."""
        rows = self._query("SELECT created_at FROM participants WHERE name = ?", (name,))
        return str(rows[0][0]) if rows else None

    def registered_before(self, comp_id: str, name: str) -> bool:
        """Whether participant ``name`` registered before competition ``comp_id``
        was created: by the order of registration, which a time to the second
        cannot tell within one second (an older competition: by the times)."""
        rows = self._query(
            "SELECT CASE WHEN c.participants_seen IS NULL THEN p.created_at <= c.created_at "
            "ELSE p.rowid <= c.participants_seen END "
            "FROM participants p, competitions c WHERE p.name = ? AND c.id = ?",
            (name, comp_id),
        )
        return bool(rows and rows[0][0])

    def participant_with(self, token_hash: str) -> str | None:
        """The name of the participant whose token has this hash."""
        rows = self._query("SELECT name FROM participants WHERE token_hash = ?", (token_hash,))
        return str(rows[0][0]) if rows else None

    def set_participant_hash(self, name: str, token_hash: str) -> None:
        """Replace a participant's token (rotation, or an older hash rewritten)."""
        self._execute("UPDATE participants SET token_hash = ? WHERE name = ?", (token_hash, name))

    # Bots ------------------------------------------------------------------------

    def add_bot(
        self,
        name: str,
        owner: str,
        address: str,
        engine_name: str,
        engine_version: str,
        games: Sequence[str] = (),
        options: Sequence[str] | None = None,
    ) -> bool:
        """False when the name, or one that reads the same, is taken."""
        return self._insert_new_name(
            "bots",
            "name, owner, address, engine_name, engine_version, games, options",
            (
                name,
                owner,
                address,
                engine_name,
                engine_version,
                json.dumps(list(games)),
                _options_json(options),
            ),
            name,
        )

    def update_bot(
        self,
        name: str,
        address: str,
        engine_name: str,
        engine_version: str,
        games: Sequence[str] = (),
        options: Sequence[str] | None = None,
    ) -> None:
        self._execute(
            "UPDATE bots SET address = ?, engine_name = ?, engine_version = ?, games = ?, "
            "options = ? WHERE name = ?",
            (
                address,
                engine_name,
                engine_version,
                json.dumps(list(games)),
                _options_json(options),
                name,
            ),
        )

    def set_liveness(self, name: str, liveness: BotLiveness, detail: str, version: str) -> None:
        """What a probe of the bot saw, now; an answer also moves its last-seen time."""
        answered = liveness == BotLiveness.ALIVE
        self._execute(
            "UPDATE bots SET liveness = ?, liveness_detail = ?, "
            "last_seen = CASE WHEN ? THEN ? ELSE last_seen END, "
            "seen_version = CASE WHEN ? THEN ? ELSE seen_version END WHERE name = ?",
            (liveness, detail, answered, utc_now(), answered, version, name),
        )

    def submitted_bot(
        self,
        name: str,
        owner: str,
        sha256: str,
        engine_name: str,
        engine_version: str,
        games: Sequence[str] = (),
        options: Sequence[str] | None = None,
    ) -> bool:
        """Make submission ``sha256`` the current version of bot ``name``,
        registering the bot when it is new; False when the name (or one that
        reads the same) belongs to someone else."""
        address = f"submission:{sha256}"
        played, listed = json.dumps(list(games)), _options_json(options)
        with self._lock, self._db:
            key = name_key(name)
            row = self._db.execute("SELECT name, owner FROM bots WHERE name_key = ?", (key,))
            found = row.fetchone()
            if found is None:
                self._db.execute(
                    "INSERT INTO bots(name, owner, address, engine_name, engine_version, "
                    "games, options, name_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (name, owner, address, engine_name, engine_version, played, listed, key),
                )
                return True
            if found[0] != name or found[1] != owner:
                return False
            self._db.execute(
                "UPDATE bots SET address = ?, engine_name = ?, engine_version = ?, games = ?, "
                "options = ? WHERE name = ?",
                (address, engine_name, engine_version, played, listed, name),
            )
            return True

    def withdraw_bot(self, name: str) -> None:
        self._execute("UPDATE bots SET withdrawn = 1 WHERE name = ?", (name,))

    def bot(self, name: str) -> Bot | None:
        rows = self._query(f"{_SELECT_BOT} WHERE name = ?", (name,))
        return _bot(rows[0]) if rows else None

    def bots(self) -> list[Bot]:
        """Every bot, withdrawn ones too, by name."""
        return [_bot(row) for row in self._query(f"{_SELECT_BOT} ORDER BY name")]

    # Submissions -----------------------------------------------------------------

    def add_submission(self, record: SubmissionRecord) -> None:
        """Keep an upload in its bot's history; the same archive again replaces
        its earlier row (a new check, a new time)."""
        self._execute(
            "INSERT OR REPLACE INTO submissions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.bot,
                record.sha256,
                record.owner,
                record.version,
                json.dumps(record.command),
                json.dumps(record.games),
                record.submitted_at,
                record.archive_bytes,
                record.files,
                record.unpacked_bytes,
                record.check_passed,
                json.dumps(record.check_items),
                record.check_output,
            ),
        )

    def submissions(self, bot: str) -> list[SubmissionRecord]:
        """A bot's uploads, newest first."""
        rows = self._query(
            "SELECT * FROM submissions WHERE bot = ? ORDER BY submitted_at DESC, rowid DESC",
            (bot,),
        )
        return [_submission(row) for row in rows]

    # Competitions ----------------------------------------------------------------

    def add_competition(
        self, comp_id: str, name: str, config: str, engines: dict[str, str]
    ) -> None:
        """``engines``: each bot's name and address, in the competition's order.
        It keeps how many participants had registered (the last one's rowid)."""
        self._execute(
            "INSERT INTO competitions(id, name, config, bots, status, created_at, engines, "
            "participants_seen) VALUES (?, ?, ?, ?, ?, ?, ?, "
            "(SELECT COALESCE(MAX(rowid), 0) FROM participants))",
            (
                comp_id,
                name,
                config,
                json.dumps(list(engines)),
                CompetitionStatus.CREATED.value,
                utc_now(),
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

    # Ladders ---------------------------------------------------------------------

    def add_version(
        self, comp_id: str, bot: str, owner: str, address: str, per_day: int | None
    ) -> LadderVersion | None:
        """Enter the bot's next version in ladder ``comp_id``, or None when its
        owner has entered ``per_day`` versions there since midnight UTC. One
        transaction, so that two entries at once cannot both pass the limit."""
        now = utc_now()
        with self._lock, self._db:
            if per_day is not None and self._entered_since(comp_id, owner, now[:10]) >= per_day:
                return None
            (last,) = self._db.execute(
                "SELECT COALESCE(MAX(number), 0) FROM ladder_versions "
                "WHERE competition = ? AND bot = ?",
                (comp_id, bot),
            ).fetchone()
            player = version_player(bot, last + 1)
            self._db.execute(
                "INSERT INTO ladder_versions VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', ?)",
                (comp_id, player, bot, last + 1, owner, address, now, VersionState.VALIDATING, now),
            )
        version = self.version(comp_id, player)
        assert version is not None
        return version

    def entered_today(self, comp_id: str, owner: str) -> int:
        """How many versions ``owner`` has entered in ladder ``comp_id`` since midnight UTC."""
        with self._lock:
            return self._entered_since(comp_id, owner, utc_now()[:10])

    def _entered_since(self, comp_id: str, owner: str, day: str) -> int:
        (count,) = self._db.execute(
            "SELECT COUNT(*) FROM ladder_versions WHERE competition = ? AND owner = ? "
            "AND entered_at >= ?",
            (comp_id, owner, day),
        ).fetchone()
        return int(count)

    def version(self, comp_id: str, player: str) -> LadderVersion | None:
        rows = self._query(
            "SELECT * FROM ladder_versions WHERE competition = ? AND player = ?", (comp_id, player)
        )
        return _version(rows[0]) if rows else None

    def versions(self, comp_id: str) -> list[LadderVersion]:
        """Every version entered in ladder ``comp_id``, in the order they entered."""
        rows = self._query(
            "SELECT * FROM ladder_versions WHERE competition = ? ORDER BY entered_at, rowid",
            (comp_id,),
        )
        return [_version(row) for row in rows]

    def set_version_state(
        self, comp_id: str, player: str, state: VersionState, reason: str = ""
    ) -> None:
        self._execute(
            "UPDATE ladder_versions SET state = ?, reason = ?, changed_at = ? "
            "WHERE competition = ? AND player = ?",
            (state, reason, utc_now(), comp_id, player),
        )

    def ladders_of(self, bot: str) -> list[str]:
        """The ladders bot ``bot`` has a version in."""
        rows = self._query("SELECT DISTINCT competition FROM ladder_versions WHERE bot = ?", (bot,))
        return [str(comp_id) for (comp_id,) in rows]

    def set_phase(self, comp_id: str, phase: str) -> None:
        self._execute("UPDATE competitions SET phase = ? WHERE id = ?", (phase, comp_id))


# Columns added since the first schema, as (table, column definition).
_ADDED_COLUMNS = (
    ("participants", "name_key TEXT"),
    ("bots", "name_key TEXT"),
    ("bots", "liveness TEXT"),
    ("bots", "liveness_detail TEXT"),
    ("bots", "last_seen TEXT"),
    ("bots", "seen_version TEXT"),
    ("bots", "games TEXT"),
    ("bots", "options TEXT"),
    ("competitions", "reason TEXT"),
    ("competitions", "engines TEXT"),
    ("competitions", "phase TEXT"),
    ("competitions", "participants_seen INTEGER"),
)

_SELECT_COMPETITION = (
    "SELECT id, name, config, bots, status, created_at, COALESCE(reason, ''), "
    "COALESCE(engines, '{}'), COALESCE(phase, '') FROM competitions"
)


def _competition(row: tuple[Any, ...]) -> Competition:
    cid, name, config, bots, status, created_at, reason, engines, phase = row
    return Competition(
        cid,
        name,
        config,
        json.loads(bots),
        CompetitionStatus(status),
        created_at,
        reason,
        json.loads(engines),
        phase,
    )


def _version(row: tuple[Any, ...]) -> LadderVersion:
    comp_id, player, bot, number, owner, address, entered_at, state, reason, changed_at = row
    return LadderVersion(
        comp_id,
        player,
        bot,
        number,
        owner,
        address,
        entered_at,
        VersionState(state),
        reason,
        changed_at,
    )


_SELECT_BOT = (
    "SELECT name, owner, address, COALESCE(engine_name, ''), COALESCE(engine_version, ''), "
    "withdrawn, COALESCE(liveness, ''), COALESCE(liveness_detail, ''), "
    "COALESCE(last_seen, ''), COALESCE(seen_version, ''), COALESCE(games, '[]'), options "
    "FROM bots"
)


def _options_json(options: Sequence[str] | None) -> str | None:
    """How a bot's options are stored: NULL when not known."""
    return None if options is None else json.dumps(list(options))


def _bot(row: tuple[Any, ...]) -> Bot:
    name, owner, address, engine_name, engine_version, withdrawn, *seen, games, options = row
    liveness, detail, last_seen, seen_version = seen
    return Bot(
        name,
        owner,
        address,
        engine_name,
        engine_version,
        bool(withdrawn),
        BotLiveness(liveness),
        detail,
        last_seen,
        seen_version,
        tuple(json.loads(games)),
        None if options is None else tuple(json.loads(options)),
    )


def _submission(row: tuple[Any, ...]) -> SubmissionRecord:
    bot, sha, owner, version, command, games, at, size, files, unpacked, passed, items, out = row
    return SubmissionRecord(
        bot,
        sha,
        owner,
        version,
        json.loads(command),
        json.loads(games),
        at,
        size,
        files,
        unpacked,
        bool(passed),
        [tuple(item) for item in json.loads(items)],
        out,
    )
