"""Whole matches between real bot processes over gRPC on loopback."""

import subprocess
import sys

import pytest

from arena.logs.record import read_log
from arena.match.outcome import Termination
from arena.match.settings import MatchSettings
from arena.rules import Game, Variant
from tests.support.bots import bot
from tests.support.matches import play
from tests.support.processes import ended, live_pids

pytestmark = pytest.mark.process


@pytest.mark.parametrize("game", list(Game))
def test_full_match_between_launched_bots_each_variant(game, tag, tmp_path):
    specs = [f"greedy={bot('greedy', tag)}", f"random={bot('random', tag)}"]
    specs = specs * (game.seats // 2)  # one process per seat
    if game.sides == 3:  # three players, each for itself
        specs.append(f"greedy={bot('greedy', tag)}")
    log = tmp_path / "match.log"
    report = play(
        MatchSettings(Variant(game), seed=7, match_id="m"), specs, log=log, output=tmp_path
    )
    result = report.result
    assert result.termination is Termination.COMPLETED and not result.faults
    assert max(result.final_scores) >= 11 and result.winner is not None
    assert [e.engine_name for e in report.engines] == [s.split("=")[0] for s in specs]
    # Every seat got its own process, and none is left.
    assert len({d.seat for d in report.decisions}) == game.seats
    assert live_pids(tag) == []
    contents = read_log(log)
    assert contents.complete and not contents.truncated
    kinds = [r.WhichOneof("record") for r in contents.records]
    assert kinds[0] == "header" and kinds[-1] == "match_ended"
    assert kinds.count("deal_started") == kinds.count("deal_ended") == len(report.deals)
    assert kinds.count("decision") == len(report.decisions)


def test_match_against_a_bot_at_a_remote_address(tag):
    server = subprocess.Popen(
        [sys.executable, bot("greedy").split()[1], "--listen", "127.0.0.1:0", tag],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = server.stdout.readline().strip()
        assert line.startswith("LISTENING 127.0.0.1:")
        address = line.split()[1]
        report = play(
            MatchSettings(Variant(Game.SCOPA), seed=3, match_id="remote"),
            [f"remote={address}", "random=builtin:random"],
        )
        assert report.result.termination is Termination.COMPLETED
        assert report.engines[0].engine_name == "greedy"
        # The arena does not own a remote bot: it is still running.
        assert server.poll() is None
    finally:
        server.terminate()
        ended(server, 5)


def test_a_remote_bot_on_two_partner_seats_needs_permission(tag):
    from arena.errors import ConfigError

    server = subprocess.Popen(
        [sys.executable, bot("random").split()[1], tag], stdout=subprocess.PIPE, text=True
    )
    try:
        address = server.stdout.readline().split()[1]
        specs = [f"a={address}", "r=builtin:random", f"a={address}", "r=builtin:random"]
        settings = MatchSettings(Variant(Game.SCOPONE), seed=1, match_id="collude")
        with pytest.raises(ConfigError, match="cannot prevent collusion"):
            play(settings, specs)
        with pytest.warns(UserWarning, match="cannot prevent collusion"):
            report = play(settings, specs, allow_shared=True)
        assert report.result.termination is Termination.COMPLETED
    finally:
        server.terminate()
        ended(server, 5)


def test_in_process_and_launched_bots_share_one_code_path(tag):
    report = play(
        MatchSettings(Variant(Game.SCOPA_A_QUATTRO), seed=11, match_id="mixed"),
        [
            f"g={bot('greedy', tag)}",
            "r=builtin:random",
            "g2=builtin:greedy",
            f"r2={bot('random', tag)}",
        ],
    )
    assert report.result.termination is Termination.COMPLETED
    assert live_pids(tag) == []


def test_same_seed_same_match(tag):
    specs = [f"g={bot('greedy', tag)}", f"r={bot('random', tag)}"]
    a = play(MatchSettings(Variant(Game.SCOPA), seed=21, match_id="same"), specs)
    b = play(MatchSettings(Variant(Game.SCOPA), seed=21, match_id="same"), specs)
    assert [d.move for d in a.decisions] == [d.move for d in b.decisions]
    assert a.result.final_scores == b.result.final_scores
