"""`arena serve`: a competition server over gRPC (proto/arena/wire/v1/server.proto).

Layout: the gRPC service runs on a thread pool (grpcio's sync server); the
competitions run in the trio main loop with the tournament engine, so they
keep its resume guarantees (each competition has its own results store).
Service threads reach the trio loop only through its token. The server's own
SQLite file holds participants (token hashes only), bots and competitions; a
restarted server resumes every competition that was running.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import hmac
import json
import queue
import re
import secrets
import signal
import sqlite3
import threading
import tomllib
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc
import trio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena.check import check_bot
from arena.errors import ArenaError, ConfigError
from arena.store import open_store
from arena.tournament.config import TournamentConfig, config_from_dict
from arena.tournament.runner import Runner, maybe_pool, open_tournament_store
from arena.tournament.schedule import build_schedule
from arena.tournament.standings import compute_standings
from arena.wire.v1 import server_pb2 as spb
from arena.wire.v1 import server_pb2_grpc

NAME = re.compile(r"^[A-Za-z0-9_.+\-]{1,64}$")
MAX_REQUEST_BYTES = 256 * 1024
MAX_REPLY_BYTES = 32 * 1024 * 1024

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS participants (name TEXT PRIMARY KEY, token_hash TEXT UNIQUE NOT NULL,
    created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bots (name TEXT PRIMARY KEY, owner TEXT NOT NULL, address TEXT NOT NULL,
    engine_name TEXT, engine_version TEXT, withdrawn INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS competitions (id TEXT PRIMARY KEY, name TEXT NOT NULL,
    config TEXT NOT NULL, bots TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL);
"""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class ServerDB:
    """The server's own records; one connection shared under a lock."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(
                path, isolation_level=None, check_same_thread=False, timeout=30
            )
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as e:
            raise ConfigError(f"{path}: not a usable server database ({e})") from None
        self.lock = threading.Lock()

    def query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self.lock:
            return self.db.execute(sql, args).fetchall()

    def execute(self, sql: str, args: tuple[Any, ...] = ()) -> None:
        with self.lock, self.db:
            self.db.execute(sql, args)


class Broker:
    """Public match events fanned out to spectators (thread-safe).

    Events of a match are kept for its whole life (and a while after), so a
    spectator who joins late sees the match from its start."""

    def __init__(self, keep: int = 500) -> None:
        self.lock = threading.Lock()
        self.history: collections.OrderedDict[str, list[Any]] = collections.OrderedDict()
        self.subscribers: dict[str, list[queue.SimpleQueue[Any]]] = {}
        self.keep = keep

    def publish(self, key: str, event: Any) -> None:
        with self.lock:
            self.history.setdefault(key, []).append(event)
            while len(self.history) > self.keep:
                self.history.popitem(last=False)
            for q in self.subscribers.get(key, []):
                q.put(event)

    def subscribe(self, key: str) -> tuple[list[Any], queue.SimpleQueue[Any]]:
        q: queue.SimpleQueue[Any] = queue.SimpleQueue()
        with self.lock:
            self.subscribers.setdefault(key, []).append(q)
            return list(self.history.get(key, [])), q

    def unsubscribe(self, key: str, q: queue.SimpleQueue[Any]) -> None:
        with self.lock:
            subs = self.subscribers.get(key, [])
            if q in subs:
                subs.remove(q)


def competition_config(text: str, db: ServerDB, output: Path) -> tuple[TournamentConfig, list[str]]:
    """A tournament file whose engines are registered bots (``bots = [...]``)."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"competition config is not valid TOML: {e}") from None
    bots = raw.pop("bots", None)
    if "engine" in raw:
        raise ConfigError(
            "a competition names registered bots (bots = [...]), not [[engine]] tables"
        )
    if not isinstance(bots, list) or len(bots) < 2 or not all(isinstance(b, str) for b in bots):
        raise ConfigError('a competition needs bots = ["name", "name", ...] with at least 2 bots')
    engines = []
    for name in bots:
        rows = db.query("SELECT address, withdrawn FROM bots WHERE name = ?", (name,))
        if not rows:
            raise ConfigError(f"no registered bot named {name!r}")
        if rows[0][1]:
            raise ConfigError(f"bot {name!r} was withdrawn")
        engines.append({"name": name, "spec": rows[0][0]})
    raw.pop("store", None)
    raw["engine"] = engines
    raw["output"] = str(output)
    return config_from_dict(raw, "competition"), list(bots)


class CompetitionManager:
    """Runs competitions in the trio loop: start, pause (in-flight matches
    finish), and resume on restart."""

    def __init__(self, nursery: trio.Nursery, db: ServerDB, data: Path, broker: Broker) -> None:
        self.nursery = nursery
        self.db = db
        self.data = data
        self.broker = broker
        self.stopping: dict[str, bool] = {}
        self.runners: dict[str, Runner] = {}

    def start(self, comp_id: str) -> None:
        if comp_id in self.runners:
            self.stopping[comp_id] = False
            return
        self.stopping[comp_id] = False
        self.db.execute("UPDATE competitions SET status = 'running' WHERE id = ?", (comp_id,))
        self.nursery.start_soon(self._run, comp_id)

    def pause(self, comp_id: str) -> None:
        self.stopping[comp_id] = True
        if comp_id not in self.runners:
            self.db.execute("UPDATE competitions SET status = 'paused' WHERE id = ?", (comp_id,))

    def running_matches(self) -> set[str]:
        return {f"{c}/{m}" for c, r in list(self.runners.items()) for m in list(r.running)}

    async def _run(self, comp_id: str) -> None:
        (text,) = self.db.query("SELECT config FROM competitions WHERE id = ?", (comp_id,))[0]
        try:
            cfg, _ = competition_config(text, self.db, self.data / comp_id)
            store, _ = open_tournament_store(cfg)
            store.schedule(build_schedule(cfg))
        except ArenaError as e:
            print(f"competition {comp_id} cannot run: {e}", flush=True)
            self.db.execute("UPDATE competitions SET status = 'paused' WHERE id = ?", (comp_id,))
            return
        runner = Runner(
            cfg,
            store,
            should_stop=lambda: self.stopping.get(comp_id, False),
            spectate=lambda key, event: self.broker.publish(f"{comp_id}/{key}", event),
        )
        self.runners[comp_id] = runner
        ended = False
        try:
            async with maybe_pool(cfg) as pool:
                await runner.run(store.pending(), pool)
            ended = True
        finally:
            del self.runners[comp_id]
            done, total = store.counts()
            store.close()
            # Stopped with the server: stays 'running', so the next start resumes it.
            if ended:
                status = "finished" if done == total else "paused"
                self.db.execute(
                    "UPDATE competitions SET status = ? WHERE id = ?", (status, comp_id)
                )
                print(f"competition {comp_id}: {status} ({done}/{total} matches)", flush=True)


@dataclass
class Access:
    organiser_hash: str
    db: ServerDB

    def token(self, context: grpc.ServicerContext) -> str | None:
        for key, value in context.invocation_metadata():
            if key == "authorization" and value.startswith("Bearer "):
                return str(value[7:].strip())
        return None

    def participant_of(self, token: str) -> str | None:
        rows = self.db.query(
            "SELECT name FROM participants WHERE token_hash = ?", (token_hash(token),)
        )
        return str(rows[0][0]) if rows else None

    def organiser(self, context: grpc.ServicerContext, action: str) -> None:
        token = self.token(context)
        if token is None:
            context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                f"to {action}, send the organiser token (authorization: Bearer TOKEN)",
            )
        assert token is not None
        if hmac.compare_digest(token_hash(token), self.organiser_hash):
            return
        if self.participant_of(token) is not None:
            context.abort(grpc.StatusCode.PERMISSION_DENIED, f"only the organiser may {action}")
        context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token")

    def participant(self, context: grpc.ServicerContext, action: str) -> str:
        token = self.token(context)
        if token is None:
            context.abort(
                grpc.StatusCode.UNAUTHENTICATED,
                f"to {action}, send your participant token (authorization: Bearer TOKEN)",
            )
        assert token is not None
        name = self.participant_of(token)
        if name is not None:
            return name
        if hmac.compare_digest(token_hash(token), self.organiser_hash):
            context.abort(grpc.StatusCode.PERMISSION_DENIED, f"only a participant may {action}")
        context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token")
        raise AssertionError


class ArenaServicer(server_pb2_grpc.ArenaServicer):
    def __init__(
        self,
        db: ServerDB,
        data: Path,
        broker: Broker,
        access: Access,
        manager: CompetitionManager,
        trio_token: trio.lowlevel.TrioToken,
    ) -> None:
        self.db, self.data, self.broker, self.access = db, data, broker, access
        self.manager, self.trio_token = manager, trio_token

    # Participants and bots -------------------------------------------------------

    def RegisterParticipant(self, request: Any, context: Any) -> spb.RegisterParticipantResponse:
        if not NAME.match(request.name):
            context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "a name uses 1-64 letters, digits or . _ + -"
            )
        token = secrets.token_urlsafe(24)
        try:
            self.db.execute(
                "INSERT INTO participants VALUES (?, ?, ?)",
                (request.name, token_hash(token), _now()),
            )
        except sqlite3.IntegrityError:
            context.abort(grpc.StatusCode.ALREADY_EXISTS, f"participant {request.name!r} exists")
        return spb.RegisterParticipantResponse(name=request.name, token=token)

    def _check(self, address: str, context: Any) -> Any:
        if not address or len(address) > 300:
            context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "give the bot's address: host:port or unix:/path"
            )
        report = trio.run(check_bot, address)
        if not report.passed:
            context.abort(grpc.StatusCode.FAILED_PRECONDITION, report.text())
        return report

    def RegisterBot(self, request: Any, context: Any) -> spb.BotInfo:
        owner = self.access.participant(context, "register a bot")
        if not NAME.match(request.name):
            context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "a bot name uses 1-64 letters, digits or . _ + -"
            )
        if self.db.query("SELECT 1 FROM bots WHERE name = ?", (request.name,)):
            context.abort(grpc.StatusCode.ALREADY_EXISTS, f"bot {request.name!r} exists")
        report = self._check(request.address, context)
        try:
            self.db.execute(
                "INSERT INTO bots(name, owner, address, engine_name, engine_version) "
                "VALUES (?, ?, ?, ?, ?)",
                (request.name, owner, request.address, report.engine_name, report.engine_version),
            )
        except sqlite3.IntegrityError:
            context.abort(grpc.StatusCode.ALREADY_EXISTS, f"bot {request.name!r} exists")
        return self._bot(request.name)

    def _own_bot(self, name: str, context: Any, action: str) -> None:
        owner = self.access.participant(context, action)
        rows = self.db.query("SELECT owner FROM bots WHERE name = ?", (name,))
        if not rows:
            context.abort(grpc.StatusCode.NOT_FOUND, f"no bot named {name!r}")
        if rows[0][0] != owner:
            context.abort(
                grpc.StatusCode.PERMISSION_DENIED, f"bot {name!r} belongs to another participant"
            )

    def UpdateBot(self, request: Any, context: Any) -> spb.BotInfo:
        self._own_bot(request.name, context, "update a bot")
        report = self._check(request.address, context)
        self.db.execute(
            "UPDATE bots SET address = ?, engine_name = ?, engine_version = ? WHERE name = ?",
            (request.address, report.engine_name, report.engine_version, request.name),
        )
        return self._bot(request.name)

    def WithdrawBot(self, request: Any, context: Any) -> spb.BotInfo:
        self._own_bot(request.name, context, "withdraw a bot")
        self.db.execute("UPDATE bots SET withdrawn = 1 WHERE name = ?", (request.name,))
        return self._bot(request.name)

    def _bot(self, name: str) -> spb.BotInfo:
        row = self.db.query(
            "SELECT name, owner, address, COALESCE(engine_name, ''), COALESCE(engine_version, ''), "
            "withdrawn FROM bots WHERE name = ?",
            (name,),
        )[0]
        return spb.BotInfo(
            name=row[0],
            owner=row[1],
            address=row[2],
            engine_name=row[3],
            engine_version=row[4],
            withdrawn=bool(row[5]),
        )

    def ListBots(self, request: Any, context: Any) -> spb.ListBotsResponse:
        names = [r[0] for r in self.db.query("SELECT name FROM bots ORDER BY name")]
        return spb.ListBotsResponse(bots=[self._bot(n) for n in names])

    def CheckBot(self, request: Any, context: Any) -> spb.CheckReport:
        if not request.address:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "give the bot's address")
        report = trio.run(check_bot, request.address)
        return spb.CheckReport(
            passed=report.passed,
            items=[
                spb.CheckItem(name=i.name, passed=i.passed, detail=i.detail) for i in report.items
            ],
        )

    # Competitions -----------------------------------------------------------------

    def CreateCompetition(self, request: Any, context: Any) -> spb.CompetitionInfo:
        self.access.organiser(context, "create a competition")
        comp_id = f"c{secrets.token_hex(4)}"
        try:
            cfg, bots = competition_config(request.config, self.db, self.data / comp_id)
        except ArenaError as e:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(e))
        self.db.execute(
            "INSERT INTO competitions VALUES (?, ?, ?, ?, 'created', ?)",
            (comp_id, cfg.name, request.config, json.dumps(bots), _now()),
        )
        return self._competition(comp_id, context)

    def _competition_row(self, comp_id: str, context: Any) -> tuple[Any, ...]:
        rows = self.db.query(
            "SELECT id, name, status, bots FROM competitions WHERE id = ?", (comp_id,)
        )
        if not rows:
            context.abort(grpc.StatusCode.NOT_FOUND, f"no competition {comp_id!r}")
        return rows[0]

    def _store(self, comp_id: str) -> Any:
        path = self.data / comp_id / "results.sqlite"
        return open_store(path) if path.exists() else None

    def _competition(self, comp_id: str, context: Any) -> spb.CompetitionInfo:
        cid, name, status, bots = self._competition_row(comp_id, context)
        info = spb.CompetitionInfo(id=cid, name=name, status=status, bots=json.loads(bots))
        store = self._store(comp_id)
        if store is not None:
            info.matches_done, info.matches_total = store.counts()
            store.close()
        return info

    def StartCompetition(self, request: Any, context: Any) -> spb.CompetitionInfo:
        self.access.organiser(context, "start a competition")
        self._competition_row(request.id, context)
        trio.from_thread.run_sync(self.manager.start, request.id, trio_token=self.trio_token)
        return self._competition(request.id, context)

    def ResumeCompetition(self, request: Any, context: Any) -> spb.CompetitionInfo:
        self.access.organiser(context, "resume a competition")
        _, _, status, _ = self._competition_row(request.id, context)
        if status in ("created", "finished"):
            context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"competition {request.id} is {status}: only a paused or running one resumes",
            )
        trio.from_thread.run_sync(self.manager.start, request.id, trio_token=self.trio_token)
        return self._competition(request.id, context)

    def PauseCompetition(self, request: Any, context: Any) -> spb.CompetitionInfo:
        self.access.organiser(context, "pause a competition")
        self._competition_row(request.id, context)
        trio.from_thread.run_sync(self.manager.pause, request.id, trio_token=self.trio_token)
        return self._competition(request.id, context)

    def GetCompetition(self, request: Any, context: Any) -> spb.CompetitionInfo:
        return self._competition(request.id, context)

    def GetStandings(self, request: Any, context: Any) -> spb.StandingsReply:
        self._competition_row(request.id, context)
        store = self._store(request.id)
        if store is None:
            return spb.StandingsReply(text="no match played yet")
        standings = compute_standings(store, resamples=100)
        store.close()
        return spb.StandingsReply(
            text=standings.table(),
            rows=[
                spb.StandingsRow(
                    rank=r.rank,
                    bot=r.engine,
                    elo=r.elo,
                    elo_low=r.elo_low,
                    elo_high=r.elo_high,
                    played=r.played,
                    wins=r.wins,
                    losses=r.losses,
                    draws=r.draws,
                    faults=r.faults,
                )
                for r in standings.rows
            ],
        )

    def ListMatches(self, request: Any, context: Any) -> spb.MatchList:
        self._competition_row(request.id, context)
        store = self._store(request.id)
        if store is None:
            return spb.MatchList()
        running = trio.from_thread.run_sync(
            self.manager.running_matches, trio_token=self.trio_token
        )
        rows = store.db.execute(
            "SELECT id, seats, status, score0, score1, winner_side, termination, reason "
            "FROM matches "
            "ORDER BY seq"
        ).fetchall()
        store.close()
        out = spb.MatchList()
        for mid, seats, status, s0, s1, winner, termination, reason in rows:
            key = f"{request.id}/{mid}"
            summary = out.matches.add(
                id=key,
                seats=json.loads(seats),
                status="running" if key in running else status,
                termination=termination or "",
                reason=reason or "",
            )
            if status == "done":
                summary.final_scores.extend([s0, s1])
                if winner is not None:
                    summary.winner_side = winner
        return out

    def _split(self, key: str, context: Any) -> tuple[str, str]:
        comp_id, _, match_id = key.partition("/")
        if not match_id:
            context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "a match id looks like COMPETITION/MATCH"
            )
        self._competition_row(comp_id, context)
        return comp_id, match_id

    def GetMatchLog(self, request: Any, context: Any) -> spb.MatchLog:
        comp_id, match_id = self._split(request.id, context)
        store = self._store(comp_id)
        rows = (
            store.db.execute(
                "SELECT status, log_path FROM matches WHERE id = ?", (match_id,)
            ).fetchall()
            if store
            else []
        )
        if store is not None:
            store.close()
        if not rows:
            context.abort(grpc.StatusCode.NOT_FOUND, f"no match {request.id!r}")
        status, log_path = rows[0]
        if status != "done" or not log_path:
            context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                "the log is published when the match has ended; watch it meanwhile",
            )
        return spb.MatchLog(data=Path(log_path).read_bytes())

    def WatchMatch(self, request: Any, context: Any) -> Iterator[spb.SpectatorEvent]:
        self._split(request.id, context)
        past, q = self.broker.subscribe(request.id)
        held: collections.deque[Any] = collections.deque()
        plays_after = 0
        try:
            pending = collections.deque(past)
            while context.is_active():
                if pending:
                    event = pending.popleft()
                else:
                    try:
                        event = q.get(timeout=0.5)
                    except queue.Empty:
                        continue
                held.append(event)
                ended = event.HasField("match_end")
                # Hold back events until `delay` more plays have been made.
                plays_after = sum(1 for e in held if e.HasField("play"))
                while held and (ended or plays_after > request.delay):
                    first = held.popleft()
                    if first.HasField("play"):
                        plays_after -= 1
                    yield first
                if ended:
                    return
        finally:
            self.broker.unsubscribe(request.id, q)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


async def serve(data: Path, listen: str, organiser_token: str | None) -> None:
    """Run the server until SIGTERM or Ctrl-C."""
    db = ServerDB(data / "server.sqlite")
    stored = db.query("SELECT value FROM meta WHERE key = 'organiser'")
    if organiser_token:
        db.execute(
            "INSERT OR REPLACE INTO meta VALUES ('organiser', ?)", (token_hash(organiser_token),)
        )
    elif not stored:
        organiser_token = secrets.token_urlsafe(24)
        db.execute("INSERT INTO meta VALUES ('organiser', ?)", (token_hash(organiser_token),))
        print(f"organiser token (shown once, stored hashed): {organiser_token}", flush=True)
    organiser_hash = db.query("SELECT value FROM meta WHERE key = 'organiser'")[0][0]
    broker = Broker()
    async with trio.open_nursery() as nursery:
        manager = CompetitionManager(nursery, db, data, broker)
        servicer = ArenaServicer(
            db,
            data,
            broker,
            Access(organiser_hash, db),
            manager,
            trio.lowlevel.current_trio_token(),
        )
        server = grpc.server(
            futures.ThreadPoolExecutor(max_workers=32, thread_name_prefix="arena-rpc"),
            options=[
                ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
                ("grpc.max_send_message_length", MAX_REPLY_BYTES),
            ],
        )
        server_pb2_grpc.add_ArenaServicer_to_server(servicer, server)
        health_servicer = health.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        names = (
            spb.DESCRIPTOR.services_by_name["Arena"].full_name,
            health.SERVICE_NAME,
            reflection.SERVICE_NAME,
        )
        reflection.enable_server_reflection(names, server)
        port = server.add_insecure_port(listen)
        if port == 0:
            raise ConfigError(f"cannot listen on {listen}")
        server.start()
        health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
        host = listen.rsplit(":", 1)[0]
        print(f"LISTENING {host}:{port}", flush=True)
        for (comp_id,) in db.query("SELECT id FROM competitions WHERE status = 'running'"):
            print(f"resuming competition {comp_id}", flush=True)
            manager.start(comp_id)
        with trio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
            async for _ in signals:
                break
        print("stopping: matches in flight are replayed on the next start", flush=True)
        health_servicer.enter_graceful_shutdown()
        await trio.to_thread.run_sync(lambda: server.stop(grace=1).wait())
        nursery.cancel_scope.cancel()
    with contextlib.suppress(Exception):
        db.db.close()
