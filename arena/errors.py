"""The one error hierarchy of the arena.

Every error says whose fault it is by its class and carries the context a
person needs to act on it. Rules errors subclass ValueError (bad input to a
pure function); bot errors are the bot's fault and never the referee's;
record and config errors are about files and settings the user gave us.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from os import PathLike


class ArenaError(Exception):
    """Base of every error the arena raises on purpose."""


class RulesError(ArenaError, ValueError):
    """A value the rules cannot accept (unknown card, impossible state)."""


class IllegalMoveError(RulesError):
    """A move that is not legal in this position.

    Attributes:
        seat: the seat that tried it (None when not known).
        move: the move, as given.
        reason: why it is not legal, in plain words.
    """

    def __init__(self, reason: str, *, seat: int | None = None, move: object = None) -> None:
        who = f"seat {seat}: " if seat is not None else ""
        super().__init__(f"{who}illegal move: {reason}")
        self.seat = seat
        self.move = move
        self.reason = reason


class FaultKind(enum.Enum):
    """The ways a bot can fail a decision. Each is the bot's fault, never the referee's."""

    TIMEOUT = "timeout"  # no answer within the time allowed
    ILLEGAL = "illegal"  # a well-formed move that is not legal here
    MALFORMED = "malformed"  # not a move at all: unknown card, oversized, unparsable
    CRASH = "crash"  # the process died or the connection was lost
    STALL = "stall"  # connected but never ready (handshake, health check)


class BotError(ArenaError):
    """A bot failed: its own fault, classified by ``kind`` (timeout, crash, ...).

    Raised by the transport layer; the referee turns it into a recorded Fault.
    """

    def __init__(self, kind: FaultKind, message: str) -> None:
        super().__init__(f"{kind.value}: {message}")
        self.kind = kind
        self.message = message


class ConfigError(ArenaError):
    """A setting, option or configuration file the arena cannot use."""


class WireError(ArenaError, ValueError):
    """A protobuf message that does not describe a valid rules value."""


class RecordError(ArenaError):
    """A match log that cannot be read or does not verify."""


class StoreError(ArenaError):
    """A results store that cannot be used: damaged, foreign, held by another
    writer, or bound to another configuration. Nothing was written to it."""


class VerifyError(RecordError):
    """A match log that was changed after it was written (its hash chain
    breaks, its framing is damaged, bytes follow its end) or that disagrees
    with the rules. A plain RecordError means the file is no log this arena reads.

    Attributes:
        reason: what is wrong and where in the log (record, deal, decision).
        path: the log; once known, the message begins with it, like any RecordError's.
    """

    def __init__(self, reason: str, path: str | PathLike[str] | None = None) -> None:
        super().__init__(reason if path is None else f"{path}: {reason}")
        self.reason = reason
        self.path = path

    def at(self, path: str | PathLike[str]) -> VerifyError:
        """This error, naming the log it is about."""
        return self if self.path is not None else VerifyError(self.reason, path)


class AnalysisError(ArenaError):
    """A move analysis that cannot be made or used: a file that is not one
    (arena analyse's JSON), or the analysis of another log than the one shown."""
