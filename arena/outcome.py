"""How a match ended: faults and results as plain values (no protobuf here)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class FaultKind(enum.Enum):
    """The ways a bot can fail a decision. Each is the bot's fault, never the referee's."""

    TIMEOUT = "timeout"  # no answer within the time allowed
    ILLEGAL = "illegal"  # a well-formed move that is not legal here
    MALFORMED = "malformed"  # not a move at all: unknown card, oversized, unparsable
    CRASH = "crash"  # the process died or the connection was lost
    STALL = "stall"  # connected but never ready (handshake, health check)


class Termination(enum.Enum):
    COMPLETED = "completed"  # played to the target or the deal limit
    FORFEIT = "forfeit"  # a seat's fault decided the match
    VOID = "void"  # the referee failed: no result, nobody blamed
    ABORTED = "aborted"  # stopped from outside (Ctrl-C, shutdown)


@dataclass(frozen=True)
class Fault:
    """One fault: which seat, what kind, where in the match, and what was said."""

    seat: int
    kind: FaultKind
    deal_number: int
    decision: int
    message: str
    at_startup: bool = False  # before the first deal: start-up or handshake

    def __str__(self) -> str:
        where = (
            "at start-up"
            if self.at_startup
            else f"at deal {self.deal_number + 1}, decision {self.decision + 1}"
        )
        return f"seat {self.seat} {self.kind.value} {where}: {self.message}"


@dataclass(frozen=True)
class MatchResult:
    """The end of a match. ``winner`` is a side, or None for a draw or no result."""

    final_scores: tuple[int, ...]
    winner: int | None
    termination: Termination
    reason: str
    faults: tuple[Fault, ...] = field(default=())
    deals_played: int = 0
