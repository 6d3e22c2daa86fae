"""A seat's engine as the referee sees it, in plain values: what it is told at
a decision (its observation, the legal moves, its clock), what it answers,
what it says of itself in the handshake, and the notifications it is sent.
Every connection (arena.transport.seat) speaks these values; only the
gRPC one turns them into messages (arena.wire.convert).

Also the two rules an engine is judged by, written once for the referee that
applies them and the replay checker that checks a log against them: how a
seat's clock runs (its deadline and its bank) and when a fault forfeits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.match.outcome import EngineInfo, MatchResult
from arena.match.settings import ClockSettings, FaultPolicy, OnFault
from arena.rules import (
    FinishedDeal,
    Game,
    Match,
    Observation,
    OfferedMove,
    Variant,
    observe,
    side_of,
)
from arena.rules.variants import ORIGINAL_GAMES

# The clock ------------------------------------------------------------------


@dataclass(frozen=True)
class SeatClock:
    """A seat's clock at one decision: what the seat is told, and the deadline
    (seconds) it is held to, the same number, computed once."""

    move_time: float | None
    bank: float | None  # what is left in its bank; None: no bank
    increment: float
    deadline: float

    @classmethod
    def of(cls, clock: ClockSettings, bank: float | None) -> SeatClock:
        return cls(clock.move_time, bank, clock.increment, clock.deadline(bank))

    def bank_after(self, elapsed: float) -> float | None:
        """The bank once a decision took ``elapsed`` seconds: charged with it
        (never below empty), then topped up by the increment."""
        if self.bank is None:
            return None
        return max(0.0, self.bank - elapsed) + self.increment


# The fault policy -----------------------------------------------------------


def forfeits(policy: FaultPolicy, strikes: int) -> bool:
    """Whether a seat's fault, its ``strikes``-th, forfeits the match."""
    return policy.on_fault is OnFault.LOSE or strikes >= policy.strikes


def forfeit_winner(
    faulting_seats: Iterable[int], sides: int = 2, scores: Sequence[int] = ()
) -> int | None:
    """The side that wins a match these seats' faults ended: the one side not
    at fault, or none when every side is. With three players, when two are
    not at fault, the one ahead in the match ``scores`` wins, and none if
    they are level (the fault is its own side's loss, never a gift to one of
    two players it did not choose between)."""
    at_fault = {side_of(seat, sides) for seat in faulting_seats}
    clear = [s for s in range(sides) if s not in at_fault]
    if len(clear) == 1:
        return clear[0]
    if not clear or not scores:
        return None
    best = max(scores[s] for s in clear)
    leaders = [s for s in clear if scores[s] == best]
    return leaders[0] if len(leaders) == 1 else None


# What an engine is told and answers -------------------------------------------


@dataclass(frozen=True)
class Decision:
    """One decision a seat is asked for: exactly what it may know."""

    match_id: str
    number: int  # within the deal, from 0 (DecisionRequest.decision)
    observation: Observation
    legal_moves: tuple[OfferedMove, ...]  # declaring too where a declaration is open
    clock: SeatClock
    # Every seat's hand: set only for an in-process engine that sees every hand
    # (builtin:cheating-mcts); no wire message has a field for it.
    hands: tuple[int, ...] | None = None

    @classmethod
    def of(
        cls,
        match: Match,
        seat: int,
        clock: SeatClock,
        match_id: str,
        number: int,
        every_hand: bool = False,
    ) -> Decision:
        """The decision ``seat`` is asked for in ``match``'s current deal
        (``every_hand``: with every seat's hand, for a cheating engine alone)."""
        deal = match.deal
        assert deal is not None
        hands = tuple(deal.hands) if every_hand else None
        moves = tuple(deal.offered_moves())
        return cls(match_id, number, observe(match, seat), moves, clock, hands)


@dataclass(frozen=True)
class Answer:
    """An engine's answer to a decision: its move, or None when the answer
    held none the arena could read (``unreadable`` says why), and its comment."""

    move: OfferedMove | None
    comment: str = ""
    unreadable: str = ""


@dataclass(frozen=True)
class Hello:
    """What an engine says of itself in the handshake."""

    name: str
    version: str
    author: str
    protocol_version: int
    games: tuple[Game, ...] = ()  # the games it offers, of those the arena knows
    every_game: bool = True  # it listed no game: it plays the first four (ORIGINAL_GAMES)
    options: tuple[str, ...] = ()  # the Variant options it plays (arena.rules.OPTIONS)
    every_option: bool = True  # it listed no option: it plays them all

    def plays(self, game: Game) -> bool:
        return (self.every_game and game in ORIGINAL_GAMES) or game in self.games

    def missing_options(self, variant: Variant) -> list[str]:
        """The options of ``variant`` this engine did not say it plays."""
        if self.every_option:
            return []
        return [name for name in variant.options if name not in self.options]

    def seated(self, seat: int, name: str, confinement: str) -> EngineInfo:
        """Who sits at ``seat``: the organiser's name and what the engine said."""
        return EngineInfo(seat, name, self.name, self.version, self.author, confinement)


# Notifications: best effort, never a fault --------------------------------------


@dataclass(frozen=True)
class MatchStarted:
    match_id: str
    variant: Variant
    seat: int
    engines: tuple[EngineInfo, ...]
    clock: SeatClock  # every seat's clock before its first decision
    first_dealer: int


@dataclass(frozen=True)
class DealEnded:
    match_id: str
    seat: int
    deal: FinishedDeal


@dataclass(frozen=True)
class MatchEnded:
    match_id: str
    seat: int
    result: MatchResult


Notification = MatchStarted | DealEnded | MatchEnded
