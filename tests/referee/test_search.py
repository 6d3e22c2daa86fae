"""The search engines play through the arena as launched bots and honour the
time they are given (what they make of a clock is tests/search/test_players.py;
how long they really took is `make bench`'s, benchmarks/bench_search.py)."""

import pytest

from arena.match.outcome import Termination
from arena.match.settings import ClockSettings, MatchSettings
from arena.rules import Game, Variant
from tests.support.matches import play
from tests.support.paths import ROOT
from tests.support.processes import live_pids


@pytest.mark.process
@pytest.mark.parametrize("engine", ["search", "ismcts"])
def test_search_engine_plays_within_its_time(tag, engine):
    # One deal; the grace keeps a loaded machine's latency from becoming a fault.
    clock = ClockSettings(move_time=0.4, grace=0.2)
    search = f"python {ROOT / 'engines' / engine / 'bot.py'} --think 10 {tag}"
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
