"""run_match, the one way to run a match, as a library user calls it."""

import asyncio
import random

import pytest
import trio

from arena.errors import ConfigError
from arena.logs.record import read_log
from arena.match.outcome import Termination
from arena.match.settings import MatchSettings
from arena.play import run_match, run_match_sync
from arena.players.strategies import greedy_strategy
from arena.rules import Game, Variant
from arena.transport.in_process import InProcessConnection

ENGINES = ["g=builtin:greedy", "r=builtin:random"]


def test_a_match_runs_from_a_script_and_from_inside_a_running_event_loop(tmp_path):
    direct = run_match_sync(ENGINES, MatchSettings(seed=5), log=tmp_path / "a.log")

    async def notebook_cell():  # a notebook runs its cells inside an asyncio loop
        return run_match_sync(ENGINES, MatchSettings(seed=5), log=tmp_path / "b.log")

    inside = asyncio.run(notebook_cell())
    assert direct.result.termination is Termination.COMPLETED
    assert [d.move for d in inside.decisions] == [d.move for d in direct.decisions]
    assert read_log(tmp_path / "a.log").complete and read_log(tmp_path / "b.log").complete


def test_connections_the_caller_opened_take_seats_and_stay_the_callers():
    mine = InProcessConnection(greedy_strategy(random.Random(1)), name="mine")
    report = trio.run(run_match, [("mine", mine), "r=builtin:random"], MatchSettings(seed=2))
    assert [e.name for e in report.engines] == ["mine", "r"]
    assert report.engines[0].engine_name == "mine" and not report.result.faults
    # Two engines in a four-seat game each play both seats of their side: one
    # connection on two partner seats would see both hands, so it needs permission.
    scopone = MatchSettings(Variant(Game.SCOPONE), seed=2)
    with pytest.raises(ConfigError, match="cannot prevent collusion"):
        run_match_sync([("mine", mine), "r=builtin:random"], scopone)
    with pytest.warns(UserWarning, match="cannot prevent collusion"):
        shared = run_match_sync(
            [("mine", mine), "r=builtin:random"], scopone, allow_shared_partners=True
        )
    assert [e.name for e in shared.engines] == ["mine", "r", "mine", "r"]


def test_a_match_that_cannot_be_set_up_is_a_config_error_and_leaves_no_log(tmp_path):
    (tmp_path / "a-file").write_text("a file where a directory should be")
    with pytest.raises(ConfigError, match="cannot write the match log"):
        run_match_sync(ENGINES, log=tmp_path / "a-file" / "m.log")
    log = tmp_path / "m.log"
    with pytest.raises(ConfigError, match="No such file or directory"):
        run_match_sync(["g=/no/such/bot", "r=builtin:random"], log=log)
    assert not log.exists()
    with pytest.raises(ConfigError, match="needs 2 engines"):
        run_match_sync(["g=builtin:greedy"])
