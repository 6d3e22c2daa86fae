"""Challenges: a participant plays a registered bot or a baseline themselves,
in the browser, on the server's site (`arena serve --http`).

A challenge is one Scopa match between the participant (a human seat,
arena.transport.human) and the bot, refereed as every match is, with the
person's own clock. It is unrated and apart from every competition: its log
and its record are under DATA/challenges/ (``ID.log``, ``ID.json``), never in
a competition's store, so no standings or rating sees it. The participant's
page on the site lists their challenges. The organiser can turn challenges
off (`arena serve --no-challenges`).

A challenge is opened with the participant's token (the same one the gRPC
service takes); the seat's own secret, made then, is handed back to that
request alone, and the page keeps it in its address's fragment.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from arena.broker import Broker
from arena.errors import ArenaError
from arena.match.settings import (
    AddressEngine,
    BuiltinEngine,
    ClockSettings,
    CommandEngine,
    EngineSpec,
    HumanEngine,
    MatchSettings,
    SandboxMode,
    SandboxSettings,
)
from arena.play import run_match
from arena.players.strategies import BUILT_IN
from arena.rules import Game, Variant
from arena.server.auth import token_hash
from arena.server.storage import ServerStorage
from arena.server.submissions import SubmissionFiles, submission_digest
from arena.timestamps import utc_now
from arena.transport.human import People
from arena.wire.protocol import fresh_match_id

BASELINE = "builtin:"
MAX_RUNNING = 8  # challenges played at once on the server, all participants together
GAMES = (Game.SCOPA,)  # a person against one bot


class ChallengeError(ArenaError):
    """A challenge that cannot be opened, and why (``status``: HTTP)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Challenge:
    """One challenge: who plays whom, and how it stands."""

    id: str
    participant: str
    opponent: str  # a registered bot's name, or builtin:NAME
    game: str
    started_at: str
    status: str = "running"  # running, done, or interrupted (the server stopped)
    result: str = ""
    winner: str = ""  # the participant, the opponent, or "" (no winner)
    scores: tuple[int, ...] = ()

    def record(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class Seating:
    """A challenge's table as the site builds it: the person's seat, the game,
    the seats' names and its public events."""

    people: People
    variant: Variant
    names: tuple[str, ...]
    events: Broker


class Challenges:
    """The server's challenges: opened from the site, played in the server's nursery."""

    def __init__(
        self,
        nursery: trio.Nursery,
        data: Path,
        storage: ServerStorage,
        key: bytes,
        *,
        enabled: bool = True,
        spectator_delay: int = 0,
    ) -> None:
        self.enabled = enabled
        self._nursery = nursery
        self._dir = data / "challenges"
        self._storage = storage
        self._key = key
        self._files = SubmissionFiles(data)
        self.spectator_delay = spectator_delay
        self._seatings: dict[str, Seating] = {}  # every challenge played since the start
        self._running: dict[str, Challenge] = {}

    # Who may challenge whom -----------------------------------------------------

    def participant(self, token: str) -> str | None:
        """The participant holding ``token`` (the organiser's is not one)."""
        return self._storage.participant_with(token_hash(self._key, token))

    def opponents(self) -> list[str]:
        """Every bot that can be challenged: the registered ones, then the baselines."""
        bots = sorted(b.name for b in self._storage.bots() if not b.withdrawn)
        baselines = [BASELINE + k for k, b in BUILT_IN.items() if not b.sees_every_hand]
        return bots + baselines

    def _opponent(self, name: str) -> EngineSpec:
        if name.startswith(BASELINE):
            which = name[len(BASELINE) :]
            if which not in BUILT_IN or BUILT_IN[which].sees_every_hand:
                raise ChallengeError(404, f"no baseline {name!r}")
            return BuiltinEngine(which, which)
        bot = self._storage.bot(name)
        if bot is None or bot.withdrawn:
            raise ChallengeError(404, f"no registered bot {name!r}")
        digest = submission_digest(bot.address)
        if digest is None:
            return AddressEngine(name, bot.address)
        table = self._files.engine_table(name, digest)
        return CommandEngine(
            name,
            tuple(shlex.split(table["spec"])),
            sandbox=SandboxSettings(SandboxMode.ON),
            workdir=Path(table["workdir"]),
        )

    # Opening and playing ------------------------------------------------------------

    def open(self, participant: str, opponent: str, game: str = "scopa") -> tuple[str, str]:
        """Start a challenge; its id and the participant's seat secret."""
        if not self.enabled:
            raise ChallengeError(403, "the organiser has turned challenges off on this server")
        if game not in {g.value for g in GAMES}:
            raise ChallengeError(
                400, f"a challenge is a game of {', '.join(g.value for g in GAMES)}"
            )
        if any(c.participant == participant for c in self._running.values()):
            raise ChallengeError(409, "you are already playing a challenge: finish it first")
        if len(self._running) >= MAX_RUNNING:
            raise ChallengeError(503, "the server is playing as many challenges as it can")
        bot = self._opponent(opponent)
        if bot.name == participant:
            raise ChallengeError(400, "a bot cannot take its challenger's name")
        cid = f"{utc_now()[:10]}-{secrets.token_hex(6)}"
        challenge = Challenge(cid, participant, opponent, game, utc_now())
        person = HumanEngine(participant)
        engines: list[EngineSpec] = [person, bot]
        people = People(engines)
        seat = people.seats[0]
        seat.sit(participant)  # the token said who they are
        broker = Broker()
        self._dir.mkdir(parents=True, exist_ok=True)
        self._save(challenge)
        self._running[cid] = challenge
        self._seatings[cid] = Seating(people, Variant(Game(game)), (participant, bot.name), broker)
        self._nursery.start_soon(self._play, challenge, engines, people, broker)
        return cid, seat.secret

    async def _play(
        self, challenge: Challenge, engines: list[EngineSpec], people: People, broker: Broker
    ) -> None:
        settings = MatchSettings(
            Variant(Game(challenge.game)),
            seed=secrets.randbits(63),
            clock=ClockSettings(move_time=1.0),
            match_id=fresh_match_id(),  # the one shape of every id a bot is told
        )
        try:
            report = await run_match(
                engines,
                settings,
                log=self._dir / f"{challenge.id}.log",
                spectate=lambda event: broker.publish(challenge.id, event),
                bot_output=self._dir,
                bot_output_shown="challenges",  # never the server's own path
                people=people,
            )
            result = report.result
            challenge.status = "done"
            challenge.result = result.reason
            challenge.scores = tuple(result.final_scores)
            if result.winner is not None:
                challenge.winner = (
                    challenge.participant if result.winner == 0 else challenge.opponent
                )
        except BaseException:
            challenge.status = "interrupted"
            raise
        finally:
            broker.close(challenge.id)
            for seat in people.seats.values():
                seat.close()
            self._running.pop(challenge.id, None)
            self._save(challenge)  # the table stays for pages still open on it

    def _save(self, challenge: Challenge) -> None:
        """Write the record whole or not at all: a crash leaves the last one."""
        path = self._dir / f"{challenge.id}.json"
        part = path.with_suffix(".json.part")
        part.write_text(json.dumps(challenge.record()), encoding="utf-8")
        os.replace(part, path)

    # Reading --------------------------------------------------------------------

    def seating(self, cid: str) -> Seating | None:
        """What the site's table for challenge ``cid`` is made of, while the
        server runs (a page may still be open on a challenge just over)."""
        return self._seatings.get(cid)

    def get(self, cid: str) -> dict[str, Any] | None:
        """A challenge's record (running or not), or None."""
        if cid in self._running:
            return self._running[cid].record()
        if not _ID_CHARS.issuperset(cid) or not cid:
            return None
        path = self._dir / f"{cid}.json"
        try:
            record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if record.get("status") == "running":  # the server stopped while it was played
            record["status"] = "interrupted"
        return record

    def log_path(self, cid: str) -> Path | None:
        record = self.get(cid)
        path = self._dir / f"{cid}.log"
        return path if record is not None and record["status"] == "done" and path.exists() else None

    def of(self, participant: str) -> list[dict[str, Any]]:
        """A participant's challenges, newest first."""
        found = []
        try:
            names = os.listdir(self._dir)
        except OSError:
            return []
        for name in names:
            if name.endswith(".json"):
                record = self.get(name[: -len(".json")])
                if record is not None and record["participant"] == participant:
                    found.append(record)
        return sorted(found, key=lambda r: r["started_at"], reverse=True)


_ID_CHARS = frozenset("0123456789abcdef-")
