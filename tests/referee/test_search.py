"""The search engine plays through the arena and honours the time it is given."""

from arena.outcome import Termination
from arena.referee import ClockSettings, MatchSettings
from arena.rules import Game, Variant

from .conftest import ROOT, live_pids, play


def test_search_engine_plays_within_its_time(tag):
    clock = ClockSettings(move_time=0.1, grace=0.05)
    search = f"python {ROOT / 'engines/search/bot.py'} --think 1.0 {tag}"
    report = play(
        MatchSettings(Variant(Game.SCOPA), seed=4, clock=clock, match_id="search"),
        [f"search={search}", "greedy=builtin:greedy"],
    )
    assert report.result.termination is Termination.COMPLETED and not report.result.faults
    thinking = [d.think_time for d in report.decisions if d.seat == 0]
    # It was told 100 ms and thinks at most half of that, never its own 1 s budget.
    assert max(thinking) < 0.1 and sum(t > 0.03 for t in thinking) > len(thinking) / 3
    assert live_pids(tag) == []
