"""A strategy running inside the arena, as a seat: handed the referee's own
plain values (nothing is encoded or decoded) and called in a worker thread."""

from __future__ import annotations

import math
import time

import trio

from arena.errors import BotError, FaultKind
from arena.match.engine import Answer, Decision, Hello, Notification
from arena.match.outcome import SEES_EVERY_HAND
from arena.rules import Declaring, Game, Move, Strategy, Variant
from arena.rules.cards import BIT, DECK_SIZE, FULL_DECK
from arena.transport.faults import one_line
from arena.transport.seat import EngineConnection, SeatTraits
from arena.wire.protocol import PROTOCOL_VERSION

_IN_PROCESS_THREADS: trio.lowlevel.RunVar[trio.CapacityLimiter] = trio.lowlevel.RunVar(
    "arena_in_process_threads"
)


def _in_process_threads() -> trio.CapacityLimiter:
    """The threads in-process strategies think in: one per waiting decision."""
    try:
        return _IN_PROCESS_THREADS.get()
    except LookupError:
        limiter = trio.CapacityLimiter(math.inf)
        _IN_PROCESS_THREADS.set(limiter)
        return limiter


class InProcessConnection(EngineConnection):
    """A strategy running inside the arena (Observation, legal moves -> move),
    handed the referee's own plain values (nothing is encoded or decoded), and
    called in a worker thread (abandoned, never waited for, when the clock runs
    out). For fast local runs and tests."""

    def __init__(
        self,
        strategy: Strategy,
        *,
        name: str,
        version: str = "1.0",
        author: str = "",
        label: str | None = None,
        thinks: bool = False,
        sees_every_hand: bool = False,
    ) -> None:
        self.strategy = strategy
        # The built-in strategies play every game, by the rules engine's moves.
        self.info = Hello(name, version, author, PROTOCOL_VERSION, games=tuple(Game))
        self.label = label or f"{name} (in-process)"
        self.confinement = SEES_EVERY_HAND if sees_every_hand else "in-process strategy"
        self.traits = SeatTraits(times_itself=True, sees_every_hand=sees_every_hand)
        self.death = None
        self.thinks = thinks  # the strategy also takes clock=the seat's clock

    def _decide(self, decision: Decision) -> tuple[Answer, float]:
        start = time.perf_counter()
        # A list of its own: what the strategy does to it is never the referee's.
        # The strategies choose among plain moves; where a declaration is open
        # they all make it (three or ten points for a packet shown).
        moves = [m for m in decision.legal_moves if not isinstance(m, Declaring)]
        declaring = next((m for m in decision.legal_moves if isinstance(m, Declaring)), None)
        extra: dict[str, object] = {}
        if self.thinks:
            extra["clock"] = decision.clock
        if self.traits.sees_every_hand:  # hands=every hand (a research bound)
            extra["hands"] = decision.hands
        chosen = strategy_move(self.strategy(decision.observation, moves, **extra))
        if declaring is not None and chosen in moves:
            return Answer(Declaring(*chosen, declaring.declaration)), time.perf_counter() - start
        return Answer(chosen), time.perf_counter() - start

    async def handshake(self, timeout: float, variant: Variant | None = None) -> Hello:
        return self.info

    async def decide(self, decision: Decision, timeout: float) -> Answer:
        return (await self.decide_timed(decision, timeout))[0]

    async def decide_timed(self, decision: Decision, timeout: float) -> tuple[Answer, float]:
        """Run in a thread of the in-process pool (never queued behind trio's
        default limit of 40 threads) and timed inside it, so that a busy event
        loop is never charged to the strategy."""
        try:
            return await trio.to_thread.run_sync(
                self._decide, decision, abandon_on_cancel=True, limiter=_in_process_threads()
            )
        except BotError:
            raise
        except Exception as e:  # the strategy's own code failed: its fault, not the arena's
            raise BotError(
                FaultKind.MALFORMED, f"raised {type(e).__name__}: {one_line(str(e))}"
            ) from None

    async def notify(self, note: Notification, timeout: float) -> None:
        return None


def strategy_move(chosen: object) -> Move:
    """A strategy's answer as a Move: a card (0..39) and a mask of the table
    cards it takes, without the card itself; BotError (MALFORMED) when it is none."""
    try:
        card, taken = chosen  # type: ignore[misc]
    except (TypeError, ValueError):
        card = taken = None
    if (
        isinstance(card, int)
        and isinstance(taken, int)
        and 0 <= card < DECK_SIZE
        and taken & ~FULL_DECK == 0
        and not taken & BIT[card]
    ):
        return Move(card, taken)
    raise BotError(FaultKind.MALFORMED, f"returned {one_line(repr(chosen), 80)}, not a move")
