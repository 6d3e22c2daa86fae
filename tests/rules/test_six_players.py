"""Scopa a sei (docs/rules.md, "Variants"): six seats in two teams of three,
dealt as Scopa in two rounds; a bot plays it only when its handshake lists
it. The deal as the source describes it, the sides, whole matches between
launched bots over gRPC, logged, replayed and shown. (The property and
differential tests of tests/rules run over every game, this one included.)"""

import subprocess
import sys
from pathlib import Path

import pytest

from arena.errors import FaultKind
from arena.logs.replay import replay_log
from arena.logs.viewer import viewer_data
from arena.match.outcome import Termination
from arena.match.settings import ClockSettings, MatchSettings
from arena.rules import Deal, Game, Match, Variant, observe, seeded_deck, side_of
from tests.support.bots import bot
from tests.support.matches import play


def test_the_deal_is_three_cards_each_and_four_on_the_table_then_three_more_once():
    # it.wikipedia "Scopa": "in sei a squadre di 3. Il mazziere distribuisce tre carte
    # coperte ciascun giocatore e mette quattro carte in banco. Quando tutti i giocatori
    # hanno giocato tutte le proprie carte, il mazziere ne distribuisce altre tre".
    deal = Deal(Variant(Game.SCOPA_A_SEI), 5, seeded_deck(8, 0))
    assert [h.bit_count() for h in deal.hands] == [3] * 6
    assert deal.table.bit_count() == 4 and deal.stock_count == 18 and deal.to_move == 0
    refills = 0
    while not deal.is_over:
        before = deal.stock_count
        deal.play(deal.legal_moves()[0])
        refills += deal.stock_count < before
    assert refills == 1 and len(deal.plays) == 36  # two rounds of three cards
    assert [side_of(s) for s in range(6)] == [0, 1, 0, 1, 0, 1]
    assert Game.SCOPA_A_SEI.is_team_game and Variant(Game.SCOPA_A_SEI).sides == 2


def test_a_seat_sees_its_hand_and_the_counts_of_the_five_others():
    match = Match(Variant(Game.SCOPA_A_SEI), seed=4)
    deal = match.start_deal()
    obs = observe(match, 3)
    assert obs.hand == deal.hands[3] and obs.hand_sizes == (3,) * 6
    assert all(not obs.hand & h for s, h in enumerate(deal.hands) if s != 3)


@pytest.mark.process
def test_six_launched_bots_play_it_over_grpc_and_the_log_replays_and_shows(tmp_path):
    specs = [f"g{s}={bot('greedy')}" if s % 2 == 0 else f"r{s}={bot('random')}" for s in range(6)]
    log = tmp_path / "six.log"
    settings = MatchSettings(Variant(Game.SCOPA_A_SEI, target=None, deal_limit=2), seed=9)
    report = play(settings, specs, log=log, output=tmp_path)
    assert report.result.termination is Termination.COMPLETED and not report.result.faults
    assert {d.seat for d in report.decisions} == set(range(6)) and len(report.decisions) == 72
    replay = replay_log(log)
    assert replay.variant.game is Game.SCOPA_A_SEI and replay.result == report.result
    data = viewer_data(replay)
    assert data["seats"] == 6 and data["partners"] == [[0, 2, 4], [1, 3, 5]]
    assert data["sides"] == ["g0#0 + g2#2 + g4#4", "r1#1 + r3#3 + r5#5"]
    html = tmp_path / "six.html"
    arena = str(Path(sys.executable).parent / "arena")
    out = subprocess.run(
        [arena, "replay", str(log), "--html", str(html)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert '"seats": 6' in html.read_text()


@pytest.mark.process
def test_a_bot_that_lists_no_games_is_not_seated_in_it_and_one_that_lists_it_is():
    variant = Variant(Game.SCOPA_A_SEI, target=None, deal_limit=1)
    settings = MatchSettings(variant, seed=5, clock=ClockSettings(move_time=2.0))
    silent = play(settings, [f"c={bot('claims')}", "g=builtin:greedy"]).result
    assert silent.termination is Termination.NO_CONTEST
    refused = [f for f in silent.faults if f.kind is FaultKind.MALFORMED]
    assert {f.seat for f in refused} == {0, 2, 4}  # one process each, every one refused
    assert all("does not play scopa6" in f.message for f in refused)
    listed = play(settings, [f"c={bot('claims', '--games', 'scopa6')}", "g=builtin:greedy"])
    assert listed.result.termination is Termination.COMPLETED and not listed.result.faults
