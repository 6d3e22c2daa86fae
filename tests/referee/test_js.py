"""The JavaScript engine (engines/js, @grpc/grpc-js, the .proto files only)
plays full matches through the arena against a Python engine."""

import pytest

from arena.match.outcome import Termination
from arena.match.settings import MatchSettings
from arena.rules import Game, Variant
from tests.support.bots import js_command
from tests.support.matches import play
from tests.support.paths import ROOT
from tests.support.processes import live_pids

pytestmark = pytest.mark.process


@pytest.fixture(scope="module")
def js_bot() -> str:
    return js_command()


@pytest.mark.parametrize("game", [Game.SCOPA, Game.SCOPONE])
def test_javascript_engine_plays_a_full_match(js_bot, game, tag):
    specs = [f"js={js_bot} {tag}", f"greedy={ROOT / 'engines/greedy/bot.py'} {tag}"]
    specs[1] = f"greedy=python {specs[1].split('=', 1)[1]}"
    if game.seats == 4:
        specs = specs * 2  # one process per seat
    report = play(MatchSettings(Variant(game), seed=6, match_id=f"js-{game.value}"), specs)
    assert report.result.termination is Termination.COMPLETED and not report.result.faults
    assert report.engines[0].engine_name == "capture-most-js"
    assert live_pids(tag) == []
