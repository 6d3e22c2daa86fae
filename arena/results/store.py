"""Tournament results in SQLite: the single source for standings and ratings.

The whole schedule is written first (every match 'pending'); each finished
match is committed in one transaction with its bookkeeping (faults, the
engines' handshake details, suspensions) as it finishes. After a crash the
same schedule is found again, finished matches are kept, and the pending
ones (including those that were in flight) are played again from their start.

One process writes a store at a time: a writer holds an advisory lock on a
file beside it (``results.sqlite.lock``, released by the kernel when the
process dies, even by ``kill -9``), and a second writer is refused at once,
told which process holds it. Readers (standings, the server's pages) need
no lock. A file that is not one of our stores, or is damaged, is refused in
one line and never written to.

Why one module of this size: every SQL statement of a results store is here,
behind named methods, with the schema and its migrations: one file to read to
know what a store holds and how it changes.
"""

from __future__ import annotations

import contextlib
import enum
import functools
import json
import sqlite3
import stat
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, ParamSpec, TypeVar

from arena.errors import StoreError
from arena.files import LockHeld, create_private, take_lock
from arena.match.outcome import EngineInfo, Fault, MatchResult, Termination
from arena.timestamps import utc_now

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
    log_path TEXT, finished_at TEXT, finish_order INTEGER,
    log_chain TEXT,                  -- hex SHA-256 chain value ending the match log
    forfeit_cause TEXT               -- why a match was forfeited unplayed (ForfeitCause)
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


class ForfeitCause(enum.Enum):
    """Why a match was forfeited without being played; the values are the stored strings."""

    SUSPENDED = "suspended"  # an engine was suspended for its run of faults
    ABSENT = "absent"  # a remote bot did not answer when the competition started


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
    forfeit_cause: ForfeitCause | None = None  # set: forfeited unplayed, and why


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
    # The hex SHA-256 chain value that ends its log (docs/logs.md): published, it
    # pins the log down, so not even a rewrite that recomputes the chain passes.
    log_chain: str | None = None


class NoStoreYet(StoreError):
    """A reader found no store, or one whose writer has not created it yet."""


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _guarded(method: Callable[_P, _R]) -> Callable[_P, _R]:
    """Any SQLite failure of a store method (a damaged page, a full disk) is
    one StoreError naming the file, never a traceback."""

    @functools.wraps(method)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return method(*args, **kwargs)
        except (sqlite3.DatabaseError, ValueError) as e:  # ValueError: a row that does not decode
            store = args[0]
            assert isinstance(store, Store)
            detail = " ".join(str(e).split())
            raise StoreError(f"{store.path}: results database unusable: {detail}") from None

    return wrapper


# The stores this process found intact (device, inode): see Store._integrity.
_CHECKED: set[tuple[int, int]] = set()


class Store:
    """A results store. ``writer=True`` takes the store's single-writer lock
    (StoreError naming the holder if another process has it)."""

    def __init__(self, path: Path, *, writer: bool = False) -> None:
        self.path = Path(path)
        self._lock: IO[str] | None = None
        _check_path(self.path)
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        if writer:
            self._lock = _take_lock(self.path)
        elif fresh:
            raise NoStoreYet(f"{self.path}: no such results database")
        try:
            if fresh:
                create_private(self.path)  # SQLite gives its -wal and -shm files the same mode
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self._open(fresh)
        except sqlite3.DatabaseError as e:
            self.close()
            if "file is not a database" in str(e):
                raise StoreError(
                    f"{self.path}: exists and is not a SQLite database; it was left untouched"
                ) from None
            raise StoreError(f"{self.path}: not a usable results database ({e})") from None
        except StoreError:
            self.close()
            raise

    def _open(self, fresh: bool) -> None:
        """Check the file is one of ours and intact before anything is written to it."""
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master")}
        if not tables and self._lock is None:
            raise NoStoreYet(f"{self.path}: no results stored yet")
        if not fresh and (tables or self._lock is None):
            if "meta" not in tables or "matches" not in tables:
                raise StoreError(
                    f"{self.path}: an SQLite database, but not a results store of this arena; "
                    "it was left untouched"
                )
            problems = self._integrity()
            if problems != ["ok"]:
                detail = " ".join(" ".join(problems).split())  # SQLite's report, on one line
                raise StoreError(
                    f"{self.path}: damaged results database ({detail[:300]}); it was left untouched"
                )
            version = self.meta("schema_version")
            if version != str(SCHEMA_VERSION):
                raise StoreError(
                    f"{self.path}: results schema {version}, this arena uses {SCHEMA_VERSION}"
                )
        columns = self._columns("matches") if "matches" in tables else set()
        self._has_chain = "matches" not in tables or "log_chain" in columns
        self._has_cause = "matches" not in tables or "forfeit_cause" in columns
        if self._lock is None:
            return  # a reader changes nothing
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        with self.transaction():
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    self.db.execute(statement)
            if fresh:
                self.set_meta("schema_version", str(SCHEMA_VERSION))
            if not self._has_chain:  # a store from before logs had a chain
                self.db.execute("ALTER TABLE matches ADD COLUMN log_chain TEXT")
            if not self._has_cause:  # a store from before a forfeit's cause was a column
                self.db.execute("ALTER TABLE matches ADD COLUMN forfeit_cause TEXT")
                # Such a store said why only in the reason, in the runner's own words.
                self.db.execute(
                    "UPDATE matches SET forfeit_cause = ? WHERE termination = 'forfeit' "
                    "AND log_path IS NULL AND reason LIKE '% suspended (%'",
                    (ForfeitCause.SUSPENDED.value,),
                )
                self.db.execute(
                    "UPDATE matches SET forfeit_cause = ? WHERE termination = 'forfeit' "
                    "AND log_path IS NULL AND reason LIKE '% absent (%'",
                    (ForfeitCause.ABSENT.value,),
                )
        self._has_chain = self._has_cause = True

    def _integrity(self) -> list[str]:
        """SQLite's quick_check, once per file and process: it reads the whole
        file (a quarter of a second at 100,000 matches), and a server's pages
        open a store on every request. A writer always checks."""
        stat = self.path.stat()
        key = (stat.st_dev, stat.st_ino)
        if self._lock is None and key in _CHECKED:
            return ["ok"]
        problems = [str(r[0]) for r in self.db.execute("PRAGMA quick_check(3)")]
        if problems == ["ok"]:
            _CHECKED.add(key)
        return problems

    def _columns(self, table: str) -> set[str]:
        return {str(r[1]) for r in self.db.execute(f"PRAGMA table_info({table})")}

    def close(self) -> None:
        db = getattr(self, "db", None)
        if db is not None:
            db.close()
        if self._lock is not None:
            self._lock.close()  # releases the lock
            self._lock = None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """All or nothing: BEGIN IMMEDIATE (the write lock up front), COMMIT at the
        end, ROLLBACK on any exception, including a failed COMMIT."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self.db.execute("COMMIT")
        except BaseException:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise

    @_guarded
    def meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    @_guarded
    def bind(self, settings: dict[str, Any], first: dict[str, str] | None = None) -> bool:
        """Tie the store to one tournament configuration (``settings``: every
        setting that can change a result or its fairness, as JSON-able values),
        writing ``first`` into its meta data when the store is new. True if it
        is resuming; StoreError naming the first setting that differs."""
        text = json.dumps(settings, sort_keys=True)
        found = self.meta("config")
        if found is None:
            with self.transaction():
                self.set_meta("config", text)
                self.set_meta("created_at", utc_now())
                for key, value in (first or {}).items():
                    self.set_meta(key, value)
            return False
        if found == text:
            return True
        try:
            stored = json.loads(found)
        except ValueError:
            stored = None  # a store written before settings were kept key by key
        if not isinstance(stored, dict):
            raise StoreError(
                f"{self.path} holds results of a different tournament configuration; "
                "start a new store with --store PATH (or another --output)"
            )
        key = next(
            k for k in sorted(stored.keys() | settings.keys()) if stored.get(k) != settings.get(k)
        )
        raise StoreError(
            f"{self.path} holds results played with {key} = {_show(stored.get(key))}; this "
            f"configuration has {key} = {_show(settings.get(key))}. Results of two settings "
            "never mix: start a new store with --store PATH (or another --output)"
        )

    @_guarded
    def reveal_seed(self) -> None:
        """Mark the master seed as revealed: the run ended and it was published."""
        with self.transaction():
            self.set_meta("seed_revealed_at", utc_now())

    @_guarded
    def withdraw_reveal(self, *also: str) -> str | None:
        """Take back a reveal made before the run was complete (an older
        server's fault), with the meta keys ``also`` that marked more of it:
        the seed is shown nowhere again until the run is. When it had been
        revealed (kept as ``seed_shown_early_at``), or None."""
        shown = self.meta("seed_revealed_at")
        with self.transaction():
            for key in ("seed_revealed_at", *also):
                self.db.execute("DELETE FROM meta WHERE key = ?", (key,))
            if shown is not None:
                self.set_meta("seed_shown_early_at", shown)
        return shown

    @_guarded
    def revealed_seed(self) -> str | None:
        """The master seed if the run that wrote the store has finished, else None:
        the one rule every reader follows (a running run's seed is shown nowhere)."""
        if self.meta("seed_revealed_at") is None:
            return None
        return self.meta("seed")

    @_guarded
    def keep_json(self, key: str, value: Any) -> None:
        """Keep ``value`` (JSON-able) under ``key`` in the meta data, replacing it."""
        with self.transaction():
            self.set_meta(key, json.dumps(value, sort_keys=True))

    @_guarded
    def kept_json(self, key: str) -> Any:
        """What ``keep_json`` kept under ``key``; None if nothing (or not JSON)."""
        text = self.meta(key)
        if text is None:
            return None
        try:
            return json.loads(text)
        except ValueError:
            return None

    @_guarded
    def finish_times(self, last: int) -> list[str]:
        """When the ``last`` most recently recorded matches finished, newest first."""
        rows = self.db.execute(
            "SELECT finished_at FROM matches WHERE status = ? AND finished_at IS NOT NULL "
            "ORDER BY finish_order DESC LIMIT ?",
            (MatchStatus.DONE.value, last),
        ).fetchall()
        return [str(r[0]) for r in rows]

    @_guarded
    def add_engines(self, engines: Iterable[tuple[str, str]]) -> None:
        with self.transaction():
            self.db.executemany(
                "INSERT OR IGNORE INTO engines(name, spec) VALUES (?, ?)", list(engines)
            )

    @_guarded
    def schedule(
        self, matches: Sequence[ScheduledMatch], meta: Mapping[str, Any] | None = None
    ) -> None:
        """Add ``matches`` to the schedule, and keep ``meta`` (JSON-able values,
        as keep_json does) in the same transaction: a scheduler's own state never
        disagrees with the schedule it wrote, whenever the process dies."""
        with self.transaction():
            for key, value in (meta or {}).items():
                self.set_meta(key, json.dumps(value, sort_keys=True))
            self.db.executemany(
                "INSERT OR IGNORE INTO matches(id, seq, set_id, seed, first_dealer, seats) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (m.id, m.seq, m.set_id, m.seed, m.first_dealer, json.dumps(m.seats))
                    for m in matches
                ],
            )

    @_guarded
    def pending(self) -> list[ScheduledMatch]:
        rows = self.db.execute(
            "SELECT id, seq, set_id, seed, first_dealer, seats FROM matches "
            "WHERE status = ? ORDER BY seq",
            (MatchStatus.PENDING.value,),
        ).fetchall()
        return [ScheduledMatch(r[0], r[1], r[2], r[3], r[4], tuple(json.loads(r[5]))) for r in rows]

    @_guarded
    def counts(self) -> tuple[int, int]:
        done, total = self.db.execute(
            "SELECT SUM(status = ?), COUNT(*) FROM matches", (MatchStatus.DONE.value,)
        ).fetchone()
        return int(done or 0), int(total or 0)

    @_guarded
    def record(
        self,
        match: ScheduledMatch,
        result: MatchResult,
        log_path: str | None,
        *,
        log_chain: str | None = None,
        engines: Sequence[EngineInfo] = (),
        suspend: Sequence[tuple[str, str]] = (),
        forfeit_cause: ForfeitCause | None = None,
    ) -> None:
        """Commit one finished match with all its bookkeeping, in one transaction:
        its result, its faults, what the engines said of themselves, and the
        suspensions it caused. A failure anywhere leaves the match pending.
        ``forfeit_cause``: the match was forfeited without being played, and why."""
        with self.transaction():
            order = self.db.execute(
                "SELECT COALESCE(MAX(finish_order), 0) + 1 FROM matches"
            ).fetchone()[0]
            updated = self.db.execute(
                "UPDATE matches SET status = ?, winner_side = ?, score0 = ?, score1 = ?, "
                "termination = ?, reason = ?, deals = ?, log_path = ?, finished_at = ?, "
                "finish_order = ?, log_chain = ?, forfeit_cause = ? WHERE id = ? AND status = ?",
                (
                    MatchStatus.DONE.value,
                    result.winner,
                    result.final_scores[0],
                    result.final_scores[1],
                    result.termination.value,
                    result.reason,
                    result.deals_played,
                    log_path,
                    utc_now(),
                    order,
                    log_chain,
                    None if forfeit_cause is None else forfeit_cause.value,
                    match.id,
                    MatchStatus.PENDING.value,
                ),
            ).rowcount
            if updated != 1:
                raise StoreError(
                    f"{self.path}: match {match.id} is not pending; not recorded twice"
                )
            self.db.execute("DELETE FROM faults WHERE match_id = ?", (match.id,))
            self.db.executemany(
                "INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [_fault_row(match, f) for f in result.faults],
            )
            self.db.executemany(
                "UPDATE engines SET engine_name = ?, engine_version = ?, author = ? WHERE name = ?",
                [
                    (e.engine_name, e.engine_version, e.author, e.name)
                    for e in engines
                    if e.engine_name
                ],
            )
            self.db.executemany(
                "INSERT OR IGNORE INTO suspensions(engine, reason, at) VALUES (?, ?, ?)",
                [(name, reason, utc_now()) for name, reason in suspend],
            )

    @_guarded
    def reopen(self, match_ids: Iterable[str]) -> None:
        """Put finished matches back in the schedule (played again, from scratch)."""
        with self.transaction():
            for match_id in match_ids:
                self.db.execute("DELETE FROM faults WHERE match_id = ?", (match_id,))
                self.db.execute(
                    "UPDATE matches SET status = ?, winner_side = NULL, score0 = NULL, "
                    "score1 = NULL, termination = NULL, reason = NULL, deals = NULL, "
                    "log_path = NULL, finished_at = NULL, finish_order = NULL, "
                    "log_chain = NULL, forfeit_cause = NULL WHERE id = ?",
                    (MatchStatus.PENDING.value, match_id),
                )

    @_guarded
    def suspended(self) -> dict[str, str]:
        return dict(self.db.execute("SELECT engine, reason FROM suspensions").fetchall())

    @_guarded
    def finished(self) -> list[StoredMatch]:
        rows = self.db.execute(
            "SELECT id, set_id, seats, first_dealer, winner_side, score0, score1, termination, "
            f"reason, finish_order, {'forfeit_cause' if self._has_cause else 'NULL'} "
            "FROM matches WHERE status = ? ORDER BY finish_order",
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
                r[8] or "",
                r[9],
                None if r[10] is None else ForfeitCause(r[10]),
            )
            for r in rows
        ]

    @property
    def _select_entry(self) -> str:
        return _SELECT_ENTRY.format(chain="log_chain" if self._has_chain else "NULL")

    @_guarded
    def matches(self) -> list[MatchEntry]:
        """Every match of the schedule, in schedule order."""
        rows = self.db.execute(f"{self._select_entry} ORDER BY seq").fetchall()
        return [_entry(r) for r in rows]

    @_guarded
    def matches_of(self, engines: Collection[str]) -> list[MatchEntry]:
        """The matches of the schedule where any of ``engines`` sits, in
        schedule order: an author's few among a ladder's many, found in SQL by
        each name as the seats' JSON spells it, then checked seat by seat."""
        names = list(engines)
        if not names:
            return []
        where = " OR ".join("instr(seats, ?) > 0" for _ in names)
        rows = self.db.execute(
            f"{self._select_entry} WHERE {where} ORDER BY seq", [json.dumps(n) for n in names]
        ).fetchall()
        wanted = set(names)
        return [entry for entry in map(_entry, rows) if wanted & set(entry.seats)]

    @_guarded
    def match(self, match_id: str) -> MatchEntry | None:
        row = self.db.execute(f"{self._select_entry} WHERE id = ?", (match_id,)).fetchone()
        return None if row is None else _entry(row)

    @_guarded
    def faulty_engines(self) -> dict[str, set[str]]:
        """Per finished match, the engines that made a fault in it."""
        out: dict[str, set[str]] = {}
        for match_id, engine in self.db.execute("SELECT match_id, engine FROM faults").fetchall():
            out.setdefault(match_id, set()).add(engine)
        return out

    @_guarded
    def faults_of(self, engine: str) -> list[tuple[str, str, str]]:
        """(match id, kind, message) of each fault of ``engine``, in the order recorded."""
        rows = self.db.execute(
            "SELECT match_id, kind, COALESCE(message, '') FROM faults WHERE engine = ? "
            "ORDER BY rowid",
            (engine,),
        ).fetchall()
        return [(str(m), str(k), str(msg)) for m, k, msg in rows]

    @_guarded
    def seat_faults(self, engines: Collection[str]) -> list[tuple[str, int, str, str]]:
        """(match id, seat, kind, message) of each fault of one of ``engines``,
        in the order recorded: a bot's own faults, seat by seat."""
        names = list(engines)
        marks = ", ".join("?" for _ in names)
        rows = self.db.execute(
            "SELECT match_id, seat, kind, COALESCE(message, '') FROM faults "
            f"WHERE engine IN ({marks}) ORDER BY rowid",
            names,
        ).fetchall()
        return [(str(m), int(seat), str(k), str(msg)) for m, seat, k, msg in rows]

    @_guarded
    def fault_counts(self) -> dict[str, int]:
        return dict(
            self.db.execute("SELECT engine, COUNT(*) FROM faults GROUP BY engine").fetchall()
        )

    @_guarded
    def engines(self) -> list[tuple[str, str, str, str]]:
        """(name, spec, engine name, version) of each engine, in the configuration's order."""
        rows = self.db.execute(
            "SELECT name, spec, COALESCE(engine_name, ''), COALESCE(engine_version, '') "
            "FROM engines ORDER BY rowid"
        ).fetchall()
        return [tuple(r) for r in rows]


_SELECT_ENTRY = (
    "SELECT id, seats, status, score0, score1, winner_side, termination, reason, log_path, "
    "{chain} FROM matches"
)


def _entry(row: tuple[Any, ...]) -> MatchEntry:
    (match_id, seats, status, score0, score1, winner_side, termination, reason, log_path, chain) = (
        row
    )
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
        log_chain=chain,
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


def _show(value: Any) -> str:
    return "(not set)" if value is None else json.dumps(value)


def _check_path(path: Path) -> None:
    """Refuse, in one line, any path that is not a regular file (or absent);
    open nothing, so nothing can block."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return
    except OSError as e:
        raise StoreError(f"{path}: cannot use as a results database: {e.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise StoreError(f"{path}: is a directory, not a results database")
    if not stat.S_ISREG(info.st_mode):
        raise StoreError(f"{path}: not a regular file, so not a results database")
    # The header is not read here: closing any descriptor of the file drops every
    # POSIX lock this process holds on it, SQLite's too, and then another
    # process closing its connection checkpoints and removes the WAL under this
    # one's connections. SQLite itself refuses a file that is not a database.


def _take_lock(path: Path) -> IO[str]:
    """The single-writer lock: an exclusive flock on PATH.lock, which says who holds it."""
    lock_path = path.with_name(path.name + ".lock")
    try:
        return take_lock(lock_path)
    except LockHeld as held:
        raise StoreError(
            f"{path} is being written by {held.holder}; one process writes a store at a time: "
            "wait for it to finish, stop it, or use another --store"
        ) from None
    except OSError as e:
        raise StoreError(f"{lock_path}: cannot create the store's lock: {e.strerror}") from None


def open_store(path: Path, *, writer: bool = False) -> Store:
    """A results store: for reading (it must exist), or as its one writer."""
    return Store(path, writer=writer)


@contextlib.contextmanager
def reading_store(path: Path) -> Iterator[Store | None]:
    """A results store opened for reading and closed after, or None when none
    has been made there yet (a competition or tournament not started)."""
    try:
        store = open_store(path)
    except NoStoreYet:
        yield None
        return
    try:
        yield store
    finally:
        store.close()
