"""The search engine plays through the arena and honours the time it is given."""

import pytest

from arena.outcome import Termination
from arena.rules import Game, Variant
from arena.settings import ClockSettings, MatchSettings
from tests.support.matches import play
from tests.support.paths import ROOT
from tests.support.processes import live_pids

pytestmark = pytest.mark.process


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
    thinking = [d.think_time for d in report.decisions if d.seat == 0]
    # It was told 400 ms and thinks half of that (200 ms: the margin is 40 times its
    # few ms of overrun), never its own 10 s budget nor its 2000-sample cap (well
    # over 400 ms early in a deal).
    assert max(thinking) < 0.4 and sum(t > 0.12 for t in thinking) > len(thinking) / 3
    assert live_pids(tag) == []
