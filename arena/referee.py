"""One match between bots the arena does not trust.

The referee owns the truth: the deck, every hand, the clock. For each
decision it sends the seat to move exactly what that seat may know (its
observation and the legal moves), waits under its own clock, and checks the
answer with the rules engine, never with the bot's claims. Every failure is
classified (arena.outcome.FaultKind), recorded, and handled by the match's
fault policy: by default the faulting side loses; or a legal substitute move
is played and the bot is forfeited after N strikes. An error in the referee
itself makes the match void: no bot loses for it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import trio

from arena import __version__
from arena.errors import BotError, ConfigError, IllegalMoveError, WireError
from arena.outcome import Fault, FaultKind, MatchResult, Termination
from arena.record import FORMAT_VERSION, LogWriter
from arena.rules import FinishedDeal, Match, Move, Variant, observe
from arena.rules.cards import card_name
from arena.rules.match import DeckSource
from arena.transport.connection import EngineConnection
from arena.wire import convert
from arena.wire.v1 import engine_pb2 as epb
from arena.wire.v1 import log_pb2

MAX_COMMENT = 256


@dataclass(frozen=True)
class ClockSettings:
    """Time control, in seconds. ``move_time``: the limit per decision (None:
    none). ``bank``/``increment``: a chess-style time bank per seat, charged
    with each decision's measured time and topped up by the increment (None:
    no bank). ``grace``: network allowance added to every deadline."""

    move_time: float | None = 1.0
    bank: float | None = None
    increment: float = 0.0
    grace: float = 0.05

    def __post_init__(self) -> None:
        if self.move_time is None and self.bank is None:
            raise ConfigError("a clock needs a move time, a bank, or both")
        for name in ("move_time", "bank"):
            value = getattr(self, name)
            if value is not None and value <= 0:
                raise ConfigError(f"{name.replace('_', ' ')} must be positive, not {value}")
        if self.increment < 0 or self.grace < 0:
            raise ConfigError("increment and grace cannot be negative")


def parse_duration(value: object) -> float:
    """Seconds from a number (seconds) or a text with a unit: "1s", "250ms", "2m".
    Never negative. The one parser for the command line and tournament files."""
    seconds: float | None = None
    if isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip().lower()
        for suffix, scale in (("ms", 0.001), ("s", 1.0), ("m", 60.0)):
            if text.endswith(suffix):
                with contextlib.suppress(ValueError):
                    seconds = float(text[: -len(suffix)]) * scale
                break
    if seconds is None:
        raise ConfigError(f'{value!r} is not a duration like "1s" or "250ms"')
    if seconds < 0:
        raise ConfigError(f"{value!r} cannot be negative")
    return seconds


class OnFault(enum.Enum):
    LOSE = "lose"  # the faulting seat's side loses the match at once
    SUBSTITUTE = "substitute"  # a legal move is played for it; forfeit after N strikes


@dataclass(frozen=True)
class FaultPolicy:
    on_fault: OnFault = OnFault.LOSE
    strikes: int = 3  # with SUBSTITUTE: the N-th fault of a seat forfeits the match
    substitute: str = "random"  # or "first": which legal move is played instead

    def __post_init__(self) -> None:
        if self.strikes < 1:
            raise ConfigError("strikes must be at least 1")
        if self.substitute not in ("random", "first"):
            raise ConfigError(f"substitute must be random or first, not {self.substitute!r}")


@dataclass(frozen=True)
class MatchSettings:
    variant: Variant
    seed: int = 0
    first_dealer: int | None = None
    clock: ClockSettings = field(default_factory=ClockSettings)
    policy: FaultPolicy = field(default_factory=FaultPolicy)
    match_id: str = "match"
    handshake_timeout: float = 5.0
    notify_timeout: float = 1.0
    # Explicit deck orders (deal index, attempt) -> deck; None: drawn from the seed.
    decks: DeckSource | None = None


@dataclass(frozen=True)
class EngineInfo:
    """Who sat where: the organiser's name and what the bot said of itself."""

    seat: int
    name: str
    engine_name: str = ""
    engine_version: str = ""
    author: str = ""


@dataclass(frozen=True)
class DecisionRecord:
    deal_number: int
    decision: int
    seat: int
    move: Move | None  # the move applied (a substitute when fault is set; None: forfeit)
    think_time: float  # seconds, measured by the referee
    fault: Fault | None = None
    scopa: bool = False
    comment: str = ""


@dataclass
class MatchReport:
    settings: MatchSettings
    engines: list[EngineInfo]
    result: MatchResult
    deals: list[FinishedDeal] = field(default_factory=list)
    decisions: list[DecisionRecord] = field(default_factory=list)


class _Forfeit(Exception):
    def __init__(self, fault: Fault) -> None:
        self.fault = fault


def clock_request(settings: ClockSettings, bank_left: float | None) -> tuple[epb.Clock, float]:
    """The Clock message a seat is sent, and its deadline in seconds."""
    limits = [t for t in (settings.move_time, bank_left) if t is not None]
    deadline = max(0.0, min(limits))
    clock = epb.Clock(
        move_time_ms=round((settings.move_time or 0) * 1000),
        bank_ms=round((bank_left or 0) * 1000),
        increment_ms=round(settings.increment * 1000),
        deadline_ms=round(deadline * 1000),
    )
    return clock, deadline


def decision_request(
    match: Match, seat: int, legal: Sequence[Move], clock: epb.Clock, match_id: str, index: int
) -> epb.DecisionRequest:
    """Exactly what ``seat`` is sent: built from its observation alone, so it is
    byte for byte the same whatever the cards it cannot see."""
    request = epb.DecisionRequest(match_id=match_id, decision=index)
    convert.observation_to_pb(observe(match, seat), request.observation)
    convert.moves_to_pb(legal, request.legal_moves)
    request.clock.CopyFrom(clock)
    return request


class Referee:
    """Runs one match. Use ``report = await Referee(settings, seats, names).run()``."""

    def __init__(
        self,
        settings: MatchSettings,
        seats: Sequence[EngineConnection | Exception],
        names: Sequence[str],
        log: LogWriter | None = None,
        spectate: Callable[[Any], None] | None = None,
    ) -> None:
        """``seats``: a connection per seat, or the exception that kept a
        seat's bot from starting (recorded as that seat's fault).
        ``spectate``: receives a SpectatorEvent (server.proto) after each
        public event: public information only, never a hand."""
        self.spectate = spectate
        variant = settings.variant
        if len(seats) != variant.seats or len(names) != variant.seats:
            raise ConfigError(f"{variant.game.value} needs {variant.seats} seats")
        self.settings = settings
        self.seats = list(seats)
        self.log = log
        self.engines = [EngineInfo(seat=i, name=n) for i, n in enumerate(names)]
        self.match = Match(
            variant, settings.seed, first_dealer=settings.first_dealer, decks=settings.decks
        )
        self.decisions: list[DecisionRecord] = []
        self.faults: list[Fault] = []
        self.strikes = [0] * variant.seats
        bank = settings.clock.bank
        self.banks: list[float | None] = [bank] * variant.seats

    # The match ------------------------------------------------------------------

    async def run(self) -> MatchReport:
        """Play the match to its end and return the report. A bot's failure is
        handled by the policy; an error of the referee's own makes the match
        void; cancellation (Ctrl-C) is recorded as ABORTED and propagates."""
        finished = False
        try:
            result = await self._play()
            finished = True
        except Exception as e:  # a referee bug: nobody loses for it
            result = self._result(Termination.VOID, None, f"referee error: {type(e).__name__}: {e}")
            finished = True
        finally:
            if not finished:
                self._end_log(self._result(Termination.ABORTED, None, "match interrupted"))
        self._end_log(result)
        self._spectate("match_end", result)
        await self._notify_all(
            "MatchEnded",
            lambda s: epb.MatchEnd(
                match_id=self.settings.match_id, seat=s, result=convert.match_result_to_pb(result)
            ),
        )
        return MatchReport(self.settings, self.engines, result, self.match.finished, self.decisions)

    async def _play(self) -> MatchResult:
        opening = await self._handshakes()
        self._write_header()
        if opening:
            return self._forfeit_result(opening)
        await self._notify_all("MatchStarted", self._match_start)
        try:
            while not self.match.is_over:
                await self._play_deal()
        except _Forfeit as f:
            return self._forfeit_result([f.fault])
        return self._result(Termination.COMPLETED, self.match.winner, "played to the end")

    async def _play_deal(self) -> None:
        match = self.match
        deal = match.start_deal()
        started = log_pb2.DealStarted(deal_number=match.deal_number, dealer=deal.dealer)
        convert.set_cards(started.deck, deal.deck)
        for void in match.void_decks:
            convert.set_cards(started.void_decks.add().cards, void)
        self._write(log_pb2.LogRecord(deal_started=started))
        self._spectate("deal_start", None)
        index = 0
        while deal.to_move is not None:
            seat = deal.to_move
            record = await self._decide(seat, index)
            assert record.move is not None
            if deal.play_unchecked(record.move).scopa:
                record = dataclasses.replace(record, scopa=True)
            self.decisions.append(record)
            self._write_decision(record)
            self._spectate("play", deal.plays[-1])
            index += 1
        done = match.end_deal()
        result = convert.deal_result_to_pb(done)
        self._write(log_pb2.LogRecord(deal_ended=log_pb2.DealEnded(result=result)))
        self._spectate("deal_end", result)
        plays = [convert.play_to_pb(p) for p in done.plays]
        await self._notify_all(
            "DealEnded",
            lambda s: epb.DealEnd(
                match_id=self.settings.match_id, seat=s, result=result, plays=plays
            ),
        )

    # One decision ---------------------------------------------------------------

    async def _decide(self, seat: int, index: int) -> DecisionRecord:
        deal = self.match.deal
        assert deal is not None
        legal = deal.legal_moves()
        clock, deadline = clock_request(self.settings.clock, self.banks[seat])
        request = decision_request(self.match, seat, legal, clock, self.settings.match_id, index)
        number = self.match.deal_number
        move, comment, problem = None, "", None
        allowed = deadline + self.settings.clock.grace
        start = time.perf_counter()
        try:
            with trio.fail_after(allowed):
                conn = self.seats[seat]
                assert isinstance(conn, EngineConnection)
                response = await conn.decide(request, timeout=allowed)
        except trio.TooSlowError:
            problem = (FaultKind.TIMEOUT, f"no answer within {deadline:g}s")
        except BotError as e:
            problem = (e.kind, e.message)
        elapsed = time.perf_counter() - start
        if problem is None:
            comment = response.comment[:MAX_COMMENT]
            if elapsed > allowed:
                problem = (FaultKind.TIMEOUT, f"answered after {elapsed:.3f}s, limit {deadline:g}s")
            else:
                move, problem = self._check_answer(response, legal, seat)
        self._charge_clock(seat, elapsed)
        if problem is None:
            assert move is not None
            return DecisionRecord(number, index, seat, move, elapsed, comment=comment)
        fault = Fault(seat, problem[0], number, index, problem[1])
        self.faults.append(fault)
        self.strikes[seat] += 1
        policy = self.settings.policy
        if policy.on_fault is OnFault.LOSE or self.strikes[seat] >= policy.strikes:
            forfeit = DecisionRecord(number, index, seat, None, elapsed, fault, comment=comment)
            self.decisions.append(forfeit)
            self._write_decision(forfeit)
            raise _Forfeit(fault)
        substitute = self._substitute(legal, number, index)
        return DecisionRecord(number, index, seat, substitute, elapsed, fault, comment=comment)

    def _check_answer(
        self, response: epb.DecisionResponse, legal: list[Move], seat: int
    ) -> tuple[Move | None, tuple[FaultKind, str] | None]:
        if not response.HasField("move"):
            return None, (FaultKind.MALFORMED, "the answer holds no move")
        try:
            move = convert.move_from_pb(response.move)
        except WireError as e:
            return None, (FaultKind.MALFORMED, str(e))
        if move in legal:
            return move, None
        deal = self.match.deal
        assert deal is not None
        try:
            deal.check(move)
        except IllegalMoveError as e:
            return None, (FaultKind.ILLEGAL, f"{e.reason} (played {card_name(move.card)})")
        return None, (FaultKind.ILLEGAL, f"{move} is not a legal move")

    def _charge_clock(self, seat: int, elapsed: float) -> None:
        bank = self.banks[seat]
        if bank is not None:
            self.banks[seat] = max(0.0, bank - elapsed) + self.settings.clock.increment

    def _substitute(self, legal: list[Move], deal_number: int, index: int) -> Move:
        if self.settings.policy.substitute == "first":
            return legal[0]
        rng = random.Random(f"{self.settings.seed}/substitute/{deal_number}/{index}")
        return legal[int(rng.random() * len(legal))]

    # Handshakes and notifications ------------------------------------------------

    async def _handshakes(self) -> list[Fault]:
        """Greet every bot instance at once; faults of those that fail."""
        faults: list[Fault] = []
        request = epb.HandshakeRequest(
            protocol_version=epb.PROTOCOL_VERSION_1,
            arena_version=__version__,
            max_message_bytes=16 * 1024,
        )
        timeout = self.settings.handshake_timeout

        async def greet(seat: int) -> None:
            conn = self.seats[seat]
            if isinstance(conn, Exception):
                kind = conn.kind if isinstance(conn, BotError) else FaultKind.CRASH
                text = conn.message if isinstance(conn, BotError) else str(conn)
                faults.append(Fault(seat, kind, 0, 0, text, at_startup=True))
                return
            try:
                with trio.fail_after(timeout):
                    info = await conn.handshake(request, timeout)
            except trio.TooSlowError:
                message = f"{conn.label}: no handshake within {timeout:g}s"
                faults.append(Fault(seat, FaultKind.STALL, 0, 0, message, at_startup=True))
                return
            except BotError as e:
                faults.append(Fault(seat, e.kind, 0, 0, e.message, at_startup=True))
                return
            self.engines[seat] = EngineInfo(
                seat, self.engines[seat].name, info.name, info.version, info.author
            )
            if info.protocol_version != epb.PROTOCOL_VERSION_1:
                message = f"speaks protocol version {info.protocol_version}, not 1"
                faults.append(Fault(seat, FaultKind.MALFORMED, 0, 0, message, at_startup=True))
            game = convert.variant_to_pb_game(self.settings.variant.game)
            if info.games and game not in info.games:
                message = f"does not play {self.settings.variant.game.value}"
                faults.append(Fault(seat, FaultKind.MALFORMED, 0, 0, message, at_startup=True))

        async with trio.open_nursery() as nursery:
            for seat in range(len(self.seats)):
                nursery.start_soon(greet, seat)
        self.faults.extend(sorted(faults, key=lambda f: f.seat))
        return sorted(faults, key=lambda f: f.seat)

    def _match_start(self, seat: int) -> epb.MatchStart:
        clock, _ = clock_request(self.settings.clock, self.settings.clock.bank)
        return epb.MatchStart(
            match_id=self.settings.match_id,
            variant=convert.variant_to_pb(self.settings.variant),
            seat=seat,
            seats=[
                epb.SeatInfo(
                    seat=e.seat, engine_name=e.engine_name, engine_version=e.engine_version
                )
                for e in self.engines
            ],
            clock=clock,
            first_dealer=self.match.first_dealer,
        )

    async def _notify_all(self, method: str, build: Any) -> None:
        timeout = self.settings.notify_timeout
        with trio.move_on_after(timeout + 0.5):
            async with trio.open_nursery() as nursery:
                for seat, conn in enumerate(self.seats):
                    if isinstance(conn, EngineConnection):
                        nursery.start_soon(conn.notify, method, build(seat), timeout)

    # Results and the log ----------------------------------------------------------

    def _forfeit_result(self, faults: list[Fault]) -> MatchResult:
        losers = {f.seat & 1 for f in faults}
        winner = None if len(losers) != 1 else 1 - losers.pop()
        first = faults[0]
        reason = f"forfeit: {first}"
        return self._result(Termination.FORFEIT, winner, reason)

    def _result(self, termination: Termination, winner: int | None, reason: str) -> MatchResult:
        return MatchResult(
            final_scores=tuple(self.match.scores),
            winner=winner,
            termination=termination,
            reason=reason,
            faults=tuple(self.faults),
            deals_played=len(self.match.finished),
        )

    def _write(self, record: log_pb2.LogRecord) -> None:
        if self.log is not None:
            self.log.write(record)

    def _write_header(self) -> None:
        s = self.settings
        clock = s.clock
        header = log_pb2.LogHeader(
            format_version=FORMAT_VERSION,
            match_id=s.match_id,
            variant=convert.variant_to_pb(s.variant),
            engines=[
                log_pb2.EngineRecord(
                    seat=e.seat,
                    name=e.name,
                    engine_name=e.engine_name,
                    engine_version=e.engine_version,
                    author=e.author,
                )
                for e in self.engines
            ],
            clock=log_pb2.ClockSettings(
                move_time_ms=round((clock.move_time or 0) * 1000),
                bank_ms=round((clock.bank or 0) * 1000),
                increment_ms=round(clock.increment * 1000),
                grace_ms=round(clock.grace * 1000),
            ),
            seed=s.seed & (2**64 - 1),
            first_dealer=self.match.first_dealer,
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            arena_version=__version__,
        )
        self._write(log_pb2.LogRecord(header=header))

    def _write_decision(self, r: DecisionRecord) -> None:
        decision = log_pb2.Decision(
            deal_number=r.deal_number,
            decision=r.decision,
            seat=r.seat,
            think_time_us=round(r.think_time * 1e6) if math.isfinite(r.think_time) else 0,
            scopa=r.scopa,
            comment=r.comment,
        )
        if r.move is not None:
            convert.move_to_pb(r.move, decision.move)
        if r.fault is not None:
            decision.fault.CopyFrom(convert.fault_to_pb(r.fault))
        self._write(log_pb2.LogRecord(decision=decision))

    def _spectate(self, kind: str, payload: Any) -> None:
        """A public event for spectators: the table, hand sizes, stock, scores."""
        if self.spectate is None:
            return
        from arena.wire.v1 import server_pb2

        event = server_pb2.SpectatorEvent(match_scores=self.match.scores)
        deal = self.match.deal
        if kind == "deal_start" and deal is not None:
            event.deal_start.deal_number = self.match.deal_number
            event.deal_start.dealer = deal.dealer
        elif kind == "play":
            convert.play_to_pb(payload, event.play)
        elif kind == "deal_end":
            event.deal_end.CopyFrom(payload)
        elif kind == "match_end":
            event.match_end.CopyFrom(convert.match_result_to_pb(payload))
        if deal is not None:
            convert.set_cards(event.table, deal.table)
            event.hand_sizes.extend(h.bit_count() for h in deal.hands)
            event.stock_count = deal.stock_count
        self.spectate(event)

    def _end_log(self, result: MatchResult) -> None:
        if self.log is None:
            return
        ended = log_pb2.MatchEnded(
            result=convert.match_result_to_pb(result),
            finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        self._write(log_pb2.LogRecord(match_ended=ended))
        self.log.close()
        self.log = None
