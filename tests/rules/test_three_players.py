"""Scopa a tre (docs/rules.md, "Variants"): three players, each for itself,
dealt as Scopa in four rounds; the points of the deal go to the unique most,
a tie for the most scores nothing; a bot plays it only when its handshake
lists it. The deal as the sources describe it, the scoring with three sides,
the end of a match, a forfeit, whole matches between launched bots over gRPC,
logged, replayed and shown. (The property and differential tests of
tests/rules run over every game, this one included.)"""

import random
import subprocess
import sys
from pathlib import Path

import pytest

from arena.errors import ConfigError, FaultKind
from arena.logs.replay import replay_log
from arena.logs.viewer import viewer_data
from arena.match.engine import forfeit_winner
from arena.match.outcome import Termination
from arena.match.settings import ClockSettings, MatchSettings
from arena.rules import Deal, Game, Match, Variant, observe, seeded_deck
from arena.rules.cards import parse_cards
from arena.rules.determinize import determinize
from arena.rules.scoring import deal_points, margin, score_deal
from arena.tournament.config import config_from_dict
from tests.support.bots import bot
from tests.support.matches import play

THREE = Variant(Game.SCOPA_A_TRE)


def mask(text: str) -> int:
    out = 0
    for c in parse_cards(text):
        out |= 1 << c
    return out


def test_the_deal_is_three_cards_each_and_four_on_the_table_in_four_rounds():
    # it.wikipedia "Scopa": "si può giocare in due, tre, in quattro a coppie o in sei
    # a squadre di 3. Il mazziere distribuisce tre carte coperte ciascun giocatore e
    # mette quattro carte in banco": 4 + 3 x 3 x 4 = 40, four rounds of three cards.
    deal = Deal(THREE, 2, seeded_deck(8, 0))
    assert [h.bit_count() for h in deal.hands] == [3, 3, 3]
    assert deal.table.bit_count() == 4 and deal.stock_count == 27 and deal.to_move == 0
    refills = 0
    while not deal.is_over:
        before = deal.stock_count
        deal.play(deal.legal_moves()[0])
        refills += deal.stock_count < before
    assert refills == 3 and len(deal.plays) == 36
    assert [THREE.side_of(s) for s in range(3)] == [0, 1, 2] and THREE.sides == 3
    assert not Game.SCOPA_A_TRE.is_team_game
    assert len(deal.piles) == len(deal.scope) == len(deal.score().points) == 3
    assert sum(p.bit_count() for p in deal.piles) == 40


def test_carte_denari_and_primiera_go_to_the_unique_most_and_a_tie_scores_nothing():
    # Every suit's seven, six and ace to player 0; 14 cards against 13 and 13.
    p0 = mask("7d 6d 1d 7c 6c 1c 7s 6s 1s 7b 6b 1b 2d 3d")
    p1 = mask("2c 3c 4c 5c 2s 3s 4s 5s 4d 5d Fd Cd Rd")
    p2 = ((1 << 40) - 1) & ~p0 & ~p1
    assert (p0.bit_count(), p1.bit_count(), p2.bit_count()) == (14, 13, 13)
    score = score_deal([p0, p1, p2], [0, 2, 1])
    # 14 cards win carte with no threshold of 21; denari 5 / 5 / 0: a tie for the most.
    assert (score.carte, score.denari, score.settebello, score.primiera) == (0, None, 0, 0)
    assert score.points == (3, 2, 1)
    assert deal_points([p0, p1, p2], [0, 2, 1]) == [3, 2, 1]
    # Two level on cards at the top, the third behind: nobody has carte.
    tied = score_deal([mask("1d 2d 3d"), mask("1c 2c 3c"), mask("1s")], [0, 0, 0])
    assert tied.carte is None and tied.denari == 0
    assert margin([3, 2, 1], 0) == 1 and margin([3, 2, 1], 2) == -2 and margin([2, 2, 0], 1) == 0


def test_the_fast_scoring_path_agrees_with_the_full_one_over_random_deals():
    rng = random.Random(31)
    for seed in range(200):
        match = Match(THREE, seed=seed)
        deal = match.start_deal()
        assert deal.random_playout(rng.random, capture_bias=0.5) == list(deal.score().points)


def test_the_fast_points_equal_the_full_scoring_for_any_three_piles_and_options():
    rng = random.Random(12)
    for _ in range(3000):
        owner = [rng.randrange(3) for _ in range(40)]
        piles = [sum(1 << c for c in range(40) if owner[c] == s) for s in range(3)]
        scope = [rng.randrange(4) for _ in range(3)]
        declared = [rng.choice((0, 3, 10)) for _ in range(3)] if rng.random() < 0.5 else None
        options = {k: rng.random() < 0.5 for k in ("re_bello", "napola", "grande")}
        options["piccola"] = not options["napola"] and rng.random() < 0.5
        full = score_deal(piles, scope, declared=declared, **options).points
        assert deal_points(piles, scope, declared=declared, **options) == list(full)


def test_a_match_ends_only_with_one_player_at_the_target_and_ahead_of_both_others():
    ties_played_on = ended = 0
    for seed in range(150):
        match, rng = Match(THREE, seed=seed), random.Random(seed)
        while not match.is_over:
            deal = match.start_deal()
            while not deal.is_over:
                deal.play(rng.choice(deal.legal_moves()))
            totals = match.end_deal().totals
            top = max(totals)
            unique = totals.count(top) == 1
            assert match.is_over == (top >= 11 and unique)
            ties_played_on += top >= 11 and not unique
        ended += 1
        assert match.winner == match.scores.index(max(match.scores))
    assert ended == 150 and ties_played_on > 0


def test_a_forfeit_in_a_three_player_match_goes_to_the_one_ahead_of_the_two_left():
    assert forfeit_winner([1], 3, [4, 0, 7]) == 2
    assert forfeit_winner([2], 3, [4, 9, 7]) == 1
    assert forfeit_winner([0], 3, [4, 6, 6]) is None  # level: nobody is given it
    assert forfeit_winner([0, 2], 3, [4, 1, 7]) == 1  # the one not at fault
    assert forfeit_winner([0, 1, 2], 3, [4, 1, 7]) is None
    assert forfeit_winner([3], 2) == 0 and forfeit_winner([0, 1], 2) is None


def test_a_seat_sees_its_hand_and_sampled_worlds_keep_three_sides():
    match = Match(THREE, seed=4)
    deal = match.start_deal()
    rng = random.Random(2)
    for _ in range(7):
        deal.play(rng.choice(deal.legal_moves()))
    seat = deal.to_move
    obs = observe(match, seat)
    assert obs.hand == deal.hands[seat] and len(obs.captured_cards) == 3
    world = determinize(obs, rng)
    assert world.piles == deal.piles and world.scope == deal.scope
    assert world.hands[seat] == deal.hands[seat] and world.last_capturer == deal.last_capturer
    assert len(world.random_playout(rng.random)) == 3


def test_tournaments_refuse_it_with_the_reason():
    raw = {
        "variant": "scopa3",
        "engine": [{"name": n, "spec": "builtin:random"} for n in "abc"],
    }
    with pytest.raises(ConfigError, match="scopa3 is a game of three players, which arena match"):
        config_from_dict(raw)


@pytest.mark.process
def test_three_launched_bots_play_it_over_grpc_and_the_log_replays_and_shows(tmp_path):
    specs = [f"g={bot('greedy')}", f"r={bot('random')}", f"s={bot('search', '--iterations', '8')}"]
    log = tmp_path / "three.log"
    settings = MatchSettings(Variant(Game.SCOPA_A_TRE, target=None, deal_limit=2), seed=9)
    report = play(settings, specs, log=log, output=tmp_path)
    assert report.result.termination is Termination.COMPLETED and not report.result.faults
    assert {d.seat for d in report.decisions} == {0, 1, 2} and len(report.decisions) == 72
    assert len(report.result.final_scores) == 3
    replay = replay_log(log)
    assert replay.variant.game is Game.SCOPA_A_TRE and replay.result == report.result
    data = viewer_data(replay)
    assert data["seats"] == 3 and data["partners"] == [[0], [1], [2]]
    assert data["sides"] == ["g#0", "r#1", "s#2"]
    html = tmp_path / "three.html"
    arena = str(Path(sys.executable).parent / "arena")
    out = subprocess.run(
        [arena, "replay", str(log), "--html", str(html)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert '"seats": 3' in html.read_text()
    text = subprocess.run([arena, "replay", str(log)], capture_output=True, text=True, timeout=60)
    scores = " - ".join(map(str, report.result.final_scores))
    assert text.returncode == 0 and f"final score {scores}" in text.stdout, text.stdout[-500:]


def test_the_built_in_engines_play_it_legally_to_the_end(tmp_path):
    specs = ["i=builtin:ismcts --iterations 60", "t=builtin:traditional", "s=builtin:search"]
    settings = MatchSettings(Variant(Game.SCOPA_A_TRE, target=None, deal_limit=1), seed=3)
    report = play(settings, specs, log=tmp_path / "b.log")
    assert report.result.termination is Termination.COMPLETED and not report.result.faults
    assert len(report.decisions) == 36
    assert replay_log(tmp_path / "b.log").result == report.result


@pytest.mark.process
def test_a_bot_that_lists_no_games_is_not_seated_in_it_and_one_that_lists_it_is():
    variant = Variant(Game.SCOPA_A_TRE, target=None, deal_limit=1)
    settings = MatchSettings(variant, seed=5, clock=ClockSettings(move_time=2.0))
    silent = play(settings, [f"c={bot('claims')}", "g=builtin:greedy", "r=builtin:random"])
    assert silent.result.termination is Termination.NO_CONTEST
    refused = [f for f in silent.result.faults if f.kind is FaultKind.MALFORMED]
    assert [f.seat for f in refused] == [0]
    assert "does not play scopa3" in refused[0].message
    listed = play(
        settings,
        [f"c={bot('claims', '--games', 'scopa3')}", "g=builtin:greedy", "r=builtin:random"],
    )
    assert listed.result.termination is Termination.COMPLETED and not listed.result.faults
