"""The search engine plays through the arena and honours the time it is given:
the arena tells it its move time, and it thinks for half of that (at most its
own --think), by its own clock. How long it really took is `make bench`'s
(benchmarks/bench_search.py)."""

import importlib.util
from types import ModuleType

import pytest

from arena.outcome import Termination
from arena.rules import Game, Match, Variant, observe
from arena.sdk import Decision
from arena.settings import ClockSettings, MatchSettings
from tests.support.matches import play
from tests.support.paths import ROOT
from tests.support.processes import live_pids


@pytest.mark.process
def test_search_engine_plays_within_its_time(tag):
    # One deal; the grace keeps a loaded machine's latency from becoming a fault.
    clock = ClockSettings(move_time=0.4, grace=0.2)
    search = f"python {ROOT / 'engines/search/bot.py'} --think 10 {tag}"
    report = play(
        MatchSettings(
            Variant(Game.SCOPA, deal_limit=1, target=None), seed=4, clock=clock, match_id="search"
        ),
        [f"search={search}", "greedy=builtin:greedy"],
    )
    assert report.result.termination is Termination.COMPLETED and not report.result.faults
    # It was told 400 ms each time (what it thinks half of: the test below).
    told = [d.deadline for d in report.decisions if d.seat == 0]
    assert told and set(told) == {0.4}
    assert live_pids(tag) == []


def search_engine() -> ModuleType:
    """engines/search/bot.py as a module (it is a script, not a package)."""
    spec = importlib.util.spec_from_file_location("search_bot", ROOT / "engines/search/bot.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class SteppingClock:
    """A clock that moves on 10 ms each time it is read: the engine's search
    ends after as many samples as its budget allows, whatever the machine."""

    STEP = 0.01

    def __init__(self) -> None:
        self.reads = 0

    def perf_counter(self) -> float:
        self.reads += 1
        return self.reads * self.STEP


def first_decision(time_limit: float) -> Decision:
    match = Match(Variant(Game.SCOPA), seed=4)
    deal = match.start_deal()
    seat = deal.to_move
    assert seat is not None
    legal = deal.legal_moves()
    assert len(legal) > 1  # one move is played without a search
    return Decision("search", seat, observe(match, seat), legal, time_limit, 1, 0)


@pytest.mark.parametrize(
    ("told", "think", "searched"),
    [
        (0.4, 10.0, 0.2),  # half of what it is told, not its own 10 s
        (0.4, 0.05, 0.05),  # its own --think when that is less
        (0.0, 0.1, 0.1),  # told no limit: its own --think
    ],
)
def test_the_search_engine_thinks_half_its_time_at_most(monkeypatch, told, think, searched):
    search = search_engine()
    clock = SteppingClock()
    monkeypatch.setattr(search, "time", clock)
    decision = first_decision(told)
    move = search.make_chooser(think)(decision)
    assert move in decision.legal_moves
    # From its first look at the clock to its last: the budget, to a step or two
    # past it (at least 4 samples, and far from its 2000-sample cap).
    thought = (clock.reads - 1) * clock.STEP
    assert searched - 1e-9 <= thought <= searched + 2 * clock.STEP, thought
