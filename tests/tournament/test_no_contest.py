"""A bot that never starts wins its opponents nothing: its matches are no
contest, out of every standing and rating, while its faults still count
towards a suspension (whose forfeits are the tournament's documented rule)."""

from pathlib import Path

import pytest
import trio

from arena.outcome import Termination
from arena.tournament.config import config_from_dict
from arena.tournament.runner import open_tournament_store, run_tournament
from arena.tournament.standings import compute_standings
from tests.referee.conftest import live_pids

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
    store, _ = open_tournament_store(cfg)
    trio.run(run_tournament, cfg, store, lambda: "")
    matches = store.finished()
    assert len(matches) == 8  # nothing dropped
    played = [m for m in matches if "suspended" not in m.reason]
    assert len(played) == 3  # then "dead" is suspended
    assert all(m.termination is Termination.NO_CONTEST and m.winner_side is None for m in played)
    assert all(not m.termination.has_result for m in played)
    rows = {r.engine: r for r in compute_standings(store, resamples=10).rows}
    # The five forfeits after the suspension are the only results: none of the no-contests.
    assert (rows["good"].played, rows["good"].wins) == (5, 5)
    assert (rows["dead"].played, rows["dead"].losses, rows["dead"].faults) == (5, 5, 3)
    assert live_pids(tag) == []
