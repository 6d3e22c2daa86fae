"""A seat as the referee sees it: the one interface every way of reaching a
player offers (a bot over gRPC, a strategy in this process, a person in a
browser, a scripted seat in a test), and what the referee needs to know of
it, as a value.

The referee asks a seat for its handshake, its decisions and notifications
in the plain values of arena.match.engine, and closes it; a seat that fails
raises BotError with a classified FaultKind (arena.transport.faults), so the
referee has one code path. Timeouts are the referee's business: it wraps
calls in a cancel scope; the timeout passed in is a backstop that also tells
a bot its deadline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from arena.match.engine import Answer, Decision, Hello, Notification
from arena.rules import Observation, Variant


@dataclass(frozen=True)
class SeatTraits:
    """What the referee needs to know of a seat, beyond its calls.

    ``times_itself``: the seat measures its own thinking where it runs (an
    in-process strategy), and that time, not the event loop's, decides a
    timeout. ``sees_every_hand``: it is shown every hand (only the in-process
    research bound builtin:cheating-mcts; no wire message has a field for
    it). ``follows``: it is shown its view after every play, not only at its
    decisions (a person's page). ``handshake_timeout``: how long its
    handshake may take when not the match's (a person sitting down)."""

    times_itself: bool = False
    sees_every_hand: bool = False
    follows: bool = False
    handshake_timeout: float | None = None


@runtime_checkable
class Seat(Protocol):
    """What the referee calls on a seat; ``EngineConnection`` is the base of
    the arena's own, with the defaults most seats want."""

    label: str  # how messages name it
    confinement: str  # how it runs: a sandbox and its limits, remote, in-process
    death: str | None  # why it is known to be gone
    traits: SeatTraits

    async def handshake(self, timeout: float, variant: Variant | None = None) -> Hello: ...

    async def decide_timed(
        self, decision: Decision, timeout: float
    ) -> tuple[Answer, float | None]: ...

    async def notify(self, note: Notification, timeout: float) -> None: ...

    def show(self, observation: Observation) -> None: ...

    def close(self) -> None: ...


class EngineConnection:
    """One bot instance serving one seat (or, when allowed, several)."""

    label: str = "bot"
    death: str | None = None  # why the bot is known to be gone
    confinement: str = ""  # how the bot runs: a sandbox and its limits, remote, in-process
    traits: SeatTraits = SeatTraits()

    def show(self, observation: Observation) -> None:
        """The seat's view after a play, for a connection that ``follows``."""

    async def handshake(self, timeout: float, variant: Variant | None = None) -> Hello:
        raise NotImplementedError

    async def decide(self, decision: Decision, timeout: float) -> Answer:
        raise NotImplementedError

    async def decide_timed(self, decision: Decision, timeout: float) -> tuple[Answer, float | None]:
        """The answer, and the time the bot took when it can be measured
        closer to it than the referee's loop (in-process, where it ran; on
        the Play stream, by the asyncio thread from the request's write to
        the answer's read); None for a bot the referee times itself."""
        return await self.decide(decision, timeout), None

    async def notify(self, note: Notification, timeout: float) -> None:
        """Best effort: a notification that fails is not a fault."""
        raise NotImplementedError

    def close(self) -> None:
        pass
