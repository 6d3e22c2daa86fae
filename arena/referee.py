"""One match between bots the arena does not trust: the match loop, its clock
and its fault policy. Nothing else: seats are opened and greeted before
(arena.transport.seats) and spoken to in the plain values of arena.match.engine,
log records are built by the wire layer, and spectators get the observer's
public view (arena.rules.observe).

The referee owns the truth: the deck, every hand, the clock. For each
decision it sends the seat to move exactly what that seat may know (its
observation and the legal moves), waits under its own clock, and checks the
answer with the rules engine, never with the bot's claims. Every failure is
classified (arena.errors.FaultKind), recorded, and handled by the match's
fault policy: by default the faulting side loses; or a legal substitute move
is played and the bot is forfeited after N strikes. A seat that failed before
the first deal makes the match no contest: it never began, nobody wins it. An
error in the referee itself makes the match void: no bot loses for it.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections.abc import Callable, Sequence

import trio

from arena.audit.probing import Probing
from arena.errors import BotError, ConfigError, FaultKind, IllegalMoveError
from arena.logs.record import LogWriter
from arena.match.engine import (
    Answer,
    DealEnded,
    Decision,
    MatchEnded,
    MatchStarted,
    Notification,
    SeatClock,
    forfeit_winner,
    forfeits,
)
from arena.match.outcome import (
    DealBegan,
    DealScored,
    DecisionRecord,
    Fault,
    MatchEvent,
    MatchReport,
    MatchResult,
    Termination,
)
from arena.match.settings import MatchSettings, Substitute
from arena.rules import Declaring, Match, OfferedMove, Play, Sight, observe, view
from arena.rules.cards import card_name
from arena.rules.declarations import undeclarable_reason
from arena.transport.seat import Seat
from arena.transport.seats import Greeting
from arena.wire.protocol import MAX_COMMENT_CHARS, fresh_match_id

Spectator = Callable[[MatchEvent], None]

# How long past its deadline the referee waits for an in-process strategy whose
# own time is measured (see SeatTraits.times_itself).
IN_PROCESS_SLACK = 10.0


def cutoff_after(conn: Seat, allowed: float) -> float:
    """How long the referee's loop waits for a seat allowed ``allowed``
    seconds. A bot timed where it runs is judged by that time; the loop's
    cut-off only stops one that never returns, so a late loop is never its
    timeout."""
    return allowed + IN_PROCESS_SLACK if conn.traits.times_itself else allowed


class _Forfeit(Exception):
    def __init__(self, fault: Fault) -> None:
        self.fault = fault


class Referee:
    """Runs one match between greeted seats: ``report = await Referee(...).run()``.

    Use ``arena.play.run_match``, which opens and greets the seats first.
    """

    def __init__(
        self,
        settings: MatchSettings,
        seats: Sequence[Seat | Exception],
        greeting: Greeting,
        log: LogWriter | None = None,
        spectate: Spectator | None = None,
        probed: Sequence[int] = (),
    ) -> None:
        """``seats``: a connection per seat (an exception for a seat that could
        not be opened: it has a start-up fault in ``greeting``). ``spectate``:
        receives each public event; never a hand. ``probed``: the seats whose
        decisions are probed, as ``settings.probes`` says (docs/audit.md)."""
        variant = settings.variant
        if len(seats) != variant.seats or len(greeting.engines) != variant.seats:
            raise ConfigError(f"{variant.game.value} needs {variant.seats} seats")
        self.settings = settings
        self.seats = list(seats)
        self.engines = list(greeting.engines)
        self.opening_faults = list(greeting.faults)
        self.log = log
        self.spectate = spectate
        self.match = Match(
            variant, settings.seed, first_dealer=settings.first_dealer, decks=settings.decks
        )
        self.decisions: list[DecisionRecord] = []
        self.faults: list[Fault] = list(greeting.faults)
        self.strikes = [0] * variant.seats
        self.clocks = [settings.clock_of(seat) for seat in range(variant.seats)]
        self.banks: list[float | None] = [clock.bank for clock in self.clocks]
        # Seats shown their view after every play (a person's page), not only when asked.
        self.followers = [
            seat
            for seat, c in enumerate(self.seats)
            if not isinstance(c, Exception) and c.traits.follows
        ]
        self.probing = Probing(settings, probed)  # the audit's one hook (docs/audit.md)

    # The match ------------------------------------------------------------------

    async def run(self) -> MatchReport:
        """Play the match to its end and return the report. A bot's failure is
        handled by the policy; an error of the referee's own makes the match
        void; cancellation (Ctrl-C) is recorded as ABORTED and propagates."""
        if self.log is not None:
            self.log.header(self.settings, self.engines, self.match.first_dealer)
        try:
            result = await self._play()
        except Exception as e:  # a referee bug: nobody loses for it
            result = self._stopped(Termination.VOID, f"referee error: {type(e).__name__}: {e}")
        except BaseException:
            self._end_log(self._stopped(Termination.ABORTED, "match interrupted"))
            raise
        self._end_log(result)
        self._publish(result)
        match_id = self.settings.match_id
        await self._notify_all(lambda seat: MatchEnded(match_id, seat, result))
        return MatchReport(self.settings, self.engines, result, self.match.finished, self.decisions)

    async def _play(self) -> MatchResult:
        if self.opening_faults:
            reason = "; ".join(f.headline() for f in self.opening_faults)
            return self._result(Termination.NO_CONTEST, None, reason)
        settings = self.settings
        engines, clocks = tuple(self.engines), [SeatClock.of(c, c.bank) for c in self.clocks]
        await self._notify_all(
            lambda seat: MatchStarted(
                settings.match_id,
                settings.variant,
                seat,
                engines,
                clocks[seat],
                self.match.first_dealer,
            )
        )
        try:
            while not self.match.is_over:
                await self._play_deal()
        except _Forfeit as f:
            winner = forfeit_winner([f.fault.seat], self.match.variant.sides, self.match.scores)
            return self._result(Termination.FORFEIT, winner, f.fault.headline())
        return self._result(Termination.COMPLETED, self.match.winner, self.match.end_reason)

    async def _play_deal(self) -> None:
        match = self.match
        deal = match.start_deal()
        if self.log is not None:
            self.log.deal_started(match.deal_number, deal.dealer, deal.deck, match.void_decks)
        self._publish(DealBegan(match.deal_number, deal.dealer))
        self._show_followers()
        index = 0
        while deal.to_move is not None:
            record = await self._decide(deal.to_move, index)
            assert record.move is not None
            play = deal.play_offered(record.move)
            if play.scopa:
                record = dataclasses.replace(record, scopa=True)
            self._record(record)
            self._publish(play)
            self._show_followers()
            index += 1
        done = match.end_deal()
        if self.log is not None:
            self.log.deal_ended(done)
        self._publish(DealScored.of(done))
        match_id = self.settings.match_id
        await self._notify_all(lambda seat: DealEnded(match_id, seat, done))

    # One decision ---------------------------------------------------------------

    async def _decide(self, seat: int, index: int) -> DecisionRecord:
        # What the seat is told is what it is held to: one clock, computed once.
        clock = SeatClock.of(self.clocks[seat], self.banks[seat])
        deadline = clock.deadline
        conn = self.seats[seat]
        assert not isinstance(conn, Exception)
        decision = Decision.of(
            self.match, seat, clock, self.settings.match_id, index, conn.traits.sees_every_hand
        )
        legal = decision.legal_moves
        number = self.match.deal_number
        move, comment, problem = None, "", None
        allowed = deadline + self.clocks[seat].grace
        start = trio.current_time()
        measured: float | None = None
        cutoff = cutoff_after(conn, allowed)
        no_answer = (FaultKind.TIMEOUT, f"no answer within {deadline:g}s")
        try:
            # A bare scope, not trio.fail_after: this runs once per decision.
            with trio.CancelScope(deadline=start + cutoff) as scope:
                answer, measured = await conn.decide_timed(decision, timeout=allowed)
            if scope.cancelled_caught:
                problem = no_answer
        except BotError as e:  # the gRPC deadline, met first, is the same timeout
            problem = no_answer if e.kind is FaultKind.TIMEOUT else (e.kind, e.message)
        # The referee's own clock, unless the bot ran in-process and was timed where it ran.
        elapsed = trio.current_time() - start if measured is None else measured
        if problem is None:
            comment = answer.comment[:MAX_COMMENT_CHARS]
            if elapsed > allowed:
                problem = (FaultKind.TIMEOUT, f"answered after {elapsed:.3f}s, limit {deadline:g}s")
            else:
                move, problem = self._check_answer(answer, legal)
        self.banks[seat] = clock.bank_after(elapsed)
        # The log keeps the deadline the seat was told and its bank after the decision.
        record = DecisionRecord(
            deal_number=number,
            decision=index,
            seat=seat,
            move=move,
            think_time=elapsed,
            comment=comment,
            deadline=deadline,
            bank_left=self.banks[seat],
        )
        if problem is None:
            assert move is not None
            if self.probing.wants(seat, number, index, len(legal)):
                deal = self.match.deal
                assert deal is not None
                ask = functools.partial(self._ask_off_the_clock, conn, allowed=allowed)
                probes = await self.probing.probe(
                    decision, deal.hands, conn.traits.sees_every_hand, ask
                )
                record = dataclasses.replace(record, probes=probes)
            return record
        fault = Fault(seat, problem[0], number, index, problem[1])
        self.faults.append(fault)
        self.strikes[seat] += 1
        if forfeits(self.settings.policy, self.strikes[seat]):
            self._record(dataclasses.replace(record, move=None, fault=fault))
            raise _Forfeit(fault)
        substitute = self._substitute(legal, number, index)
        return dataclasses.replace(record, move=substitute, fault=fault)

    async def _ask_off_the_clock(
        self, conn: Seat, decision: Decision, allowed: float
    ) -> tuple[Decision, Answer | None, str, float]:
        """Ask a decision again (a probe, docs/audit.md): under a fresh match id
        of the shape real ids have, bounded by the decision's own time but
        charged to no clock, never played, never a fault of the match."""
        asked = dataclasses.replace(decision, match_id=fresh_match_id())
        start = trio.current_time()
        cutoff = cutoff_after(conn, allowed)
        answer, problem, measured = None, "", None
        try:
            with trio.CancelScope(deadline=start + cutoff) as scope:
                answer, measured = await conn.decide_timed(asked, timeout=allowed)
            if scope.cancelled_caught:
                answer, problem = None, f"no answer within {asked.clock.deadline:g}s"
        except BotError as e:
            problem = e.message
        elapsed = trio.current_time() - start if measured is None else measured
        return asked, answer, problem, elapsed

    def _check_answer(
        self, answer: Answer, legal: Sequence[OfferedMove]
    ) -> tuple[OfferedMove | None, tuple[FaultKind, str] | None]:
        move = answer.move
        if move is None:
            return None, (FaultKind.MALFORMED, answer.unreadable)
        if move in legal:
            return move, None
        deal = self.match.deal
        assert deal is not None
        if isinstance(move, Declaring) and move.move in legal:
            seat = deal.to_move
            assert seat is not None
            reason = undeclarable_reason(move, deal.hands[seat], deal.variant)
            return None, (FaultKind.ILLEGAL, reason)
        plain = move.move if isinstance(move, Declaring) else move
        try:
            deal.check(plain)
        except IllegalMoveError as e:
            played = card_name(move.card)
            said = e.reason if played in e.reason else f"{e.reason} (played {played})"
            return None, (FaultKind.ILLEGAL, said)
        return None, (FaultKind.ILLEGAL, f"{move} is not a legal move")

    def _substitute(
        self, legal: Sequence[OfferedMove], deal_number: int, index: int
    ) -> OfferedMove:
        # A substitute plays for a seat that faulted; it never declares for it.
        legal = [m for m in legal if not isinstance(m, Declaring)]
        if self.settings.policy.substitute is Substitute.FIRST:
            return legal[0]
        rng = random.Random(f"{self.settings.seed}/substitute/{deal_number}/{index}")
        return legal[int(rng.random() * len(legal))]

    def _show_followers(self) -> None:
        """Each following seat's own view of the position, as a bot of that seat
        would be shown it when asked (arena.rules.observe): nothing more."""
        for seat in self.followers:
            conn = self.seats[seat]
            assert not isinstance(conn, Exception)
            conn.show(observe(self.match, seat))

    async def _notify_all(self, build: Callable[[int], Notification]) -> None:
        """Best effort, all seats at once, bounded in time: never a fault."""
        timeout = self.settings.notify_timeout
        with trio.move_on_after(timeout + 0.5):
            async with trio.open_nursery() as nursery:
                for seat, conn in enumerate(self.seats):
                    if not isinstance(conn, Exception):
                        nursery.start_soon(conn.notify, build(seat), timeout)

    # Results, the log and spectators -----------------------------------------------

    def _stopped(self, termination: Termination, reason: str) -> MatchResult:
        """A match stopped by an error or from outside: void or aborted, unless its
        last deal had already decided it (e.g. stopped while bots were told of the
        last deal's end): then its result stands, as a replay of its log says."""
        if self.match.is_over and self.match.deal is None:
            return self._result(Termination.COMPLETED, self.match.winner, self.match.end_reason)
        return self._result(termination, None, reason)

    def _result(self, termination: Termination, winner: int | None, reason: str) -> MatchResult:
        return MatchResult(
            final_scores=tuple(self.match.scores),
            winner=winner,
            termination=termination,
            reason=reason,
            faults=tuple(self.faults),
            deals_played=len(self.match.finished),
        )

    def _record(self, decision: DecisionRecord) -> None:
        self.decisions.append(decision)
        if self.log is not None:
            self.log.decision(decision)

    def _end_log(self, result: MatchResult) -> None:
        if self.log is not None:
            self.log.match_ended(result)
            self.log = None

    def _publish(self, what: DealBegan | Play | DealScored | MatchResult) -> None:
        """A public event for spectators, with the observer's public view."""
        if self.spectate is None:
            return
        match = self.match
        public = view(match, Sight.PUBLIC) if match.deal is not None else None
        self.spectate(MatchEvent(what, public, tuple(match.scores)))
