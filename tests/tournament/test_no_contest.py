"""A bot that never starts wins its opponents nothing: its matches are no
contest, out of every standing and rating, and after three in a row the run
stops, saying why (forfeits only when the file asks for them)."""

from pathlib import Path

import pytest
import trio

from arena.match.outcome import Termination
from arena.tournament.config import config_from_dict
from arena.tournament.lifecycle import Run
from arena.tournament.standings import compute_standings
from tests.support.processes import live_pids

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.process
def test_matches_against_a_bot_that_never_starts_count_for_no_one(tmp_path, tag):
    dead = f"python {ROOT / 'tests/bots/misbehave.py'} --mode die-at-start {tag}"
    cfg = config_from_dict(
        {
            "engine": [
                {"name": "dead", "spec": dead},
                {"name": "good", "spec": "builtin:greedy"},
            ],
            "rounds": 4,
            "suspend_after": 3,
            "output": str(tmp_path),
            "keep_warm": False,
        }
    )
    opened = Run.open(cfg)
    store, cfg = opened.store, opened.cfg
    assert not trio.run(opened.play)  # not complete: stopped, and says why
    assert opened.stopped is not None
    assert "dead failed to start in 3 matches in a row" in opened.stopped
    matches = store.finished()
    assert len(matches) == 3  # then the run stopped: no string of forfeits
    assert all(m.termination is Termination.NO_CONTEST and m.winner_side is None for m in matches)
    assert all(not m.termination.has_result for m in matches)
    assert store.suspended() == {}  # start-up failures stop the run; they do not suspend
    rows = {r.engine: r for r in compute_standings(store, resamples=10).rows}
    assert (rows["good"].played, rows["good"].wins) == (0, 0)
    assert (rows["dead"].played, rows["dead"].faults) == (0, 3)
    assert live_pids(tag) == []
    store.close()
