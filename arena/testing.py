"""Seats that follow a script, and matches on trio's mock clock: for testing
the referee's policy, and a bot author's own code, without a process.

The referee is what is tested: a scripted seat answers exactly what its
script says, and everything after that (is the move legal, is it the bot's
fault, does the match forfeit, what the log says) is the real referee's::

    from arena.testing import ScriptedSeat, mocked
    seat = ScriptedSeat(FIRST, not_held, FIRST)  # the second answer is a card it lacks
    report = mocked([("scripted", seat), "r=builtin:random"], settings)
    seat.assert_done()

A script entry answers one decision:
- a ``Move`` or an ``Answer``: that answer, legal or not;
- a callable: called with the ``Decision``, it returns a Move or an Answer;
- an exception (a ``BotError``, say): raised, as a transport raises the
  fault it classified;
- a number: think that many seconds of trio's clock, then play the first
  legal move (``math.inf``: never answer).

After the script, the seat plays the first legal move (``FIRST``). What it
was asked is kept in ``seen``. ``mocked`` runs a match under
``trio.testing.MockClock``: time passes only when every task waits, so every
duration a test asserts is exact, whatever the machine's load. Seat it
with scripted seats and thinkers only: a built-in strategy thinks in a
thread, where the mock clock jumps past its deadline while it runs.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Sequence

import trio
import trio.testing

from arena.match.engine import Answer, Decision, Hello, Notification
from arena.match.outcome import MatchReport
from arena.match.settings import MatchSettings
from arena.play import Engine, run_match
from arena.rules import Game, Move, Variant
from arena.transport.seat import EngineConnection, SeatTraits
from arena.wire.protocol import PROTOCOL_VERSION

__all__ = ["FIRST", "ScriptedSeat", "Thinker", "mocked"]

Script = Move | Answer | BaseException | float | Callable[[Decision], "Move | Answer"]


def FIRST(decision: Decision) -> Answer:
    """The first legal move."""
    return Answer(decision.legal_moves[0])


class ScriptedSeat(EngineConnection):
    """A seat whose answers are a script, one entry per decision (see the module)."""

    def __init__(self, *script: Script, name: str = "scripted", games: Sequence[Game] = ()) -> None:
        self.script: deque[Script] = deque(script)
        self.label = name
        self.info = Hello(name, "1", "", PROTOCOL_VERSION, games=tuple(games) or tuple(Game))
        self.seen: list[Decision] = []
        self.notes: list[Notification] = []

    async def handshake(self, timeout: float, variant: Variant | None = None) -> Hello:
        return self.info

    async def decide(self, decision: Decision, timeout: float) -> Answer:
        self.seen.append(decision)
        entry = self.script.popleft() if self.script else FIRST
        if isinstance(entry, BaseException):
            raise entry
        if isinstance(entry, int | float):
            await trio.sleep(entry)
            entry = FIRST
        if callable(entry):
            entry = entry(decision)
        return entry if isinstance(entry, Answer) else Answer(entry)

    async def notify(self, note: Notification, timeout: float) -> None:
        self.notes.append(note)

    def assert_done(self) -> None:
        """Fail when the match ended before the script did."""
        assert not self.script, f"{len(self.script)} script entries never asked for"


class Thinker(EngineConnection):
    """A seat that thinks ``think(decision)`` seconds of trio's clock (inf: it
    never answers), then plays the first legal move. With ``reports``, it
    times itself as an in-process strategy does and says it took that long."""

    def __init__(
        self,
        think: Callable[[Decision], float],
        reports: Callable[[Decision], float] | None = None,
    ) -> None:
        self.think = think
        self.reports = reports
        self.traits = SeatTraits(times_itself=reports is not None)
        self.label = "thinker"
        self.seen: list[Decision] = []
        self.cancelled: list[tuple[int, float]] = []  # (decision, seconds it had thought)

    async def handshake(self, timeout: float, variant: Variant | None = None) -> Hello:
        return Hello("thinker", "1", "", PROTOCOL_VERSION)

    async def decide(self, decision: Decision, timeout: float) -> Answer:
        self.seen.append(decision)
        start = trio.current_time()
        try:
            await trio.sleep(self.think(decision))
        except trio.Cancelled:
            self.cancelled.append((decision.number, trio.current_time() - start))
            raise
        return Answer(decision.legal_moves[0])

    async def decide_timed(self, decision: Decision, timeout: float) -> tuple[Answer, float | None]:
        answer = await self.decide(decision, timeout)
        return answer, self.reports(decision) if self.reports is not None else None

    async def notify(self, note: Notification, timeout: float) -> None:
        return None


def mocked(engines: Sequence[Engine], settings: MatchSettings, **options: object) -> MatchReport:
    """``run_match`` under trio's MockClock: time passes only when every task
    waits, and then jumps to the next deadline. ``options`` go to run_match."""
    clock = trio.testing.MockClock(autojump_threshold=0)
    match = functools.partial(run_match, engines, settings, **options)  # type: ignore[arg-type]
    return trio.run(match, clock=clock)
