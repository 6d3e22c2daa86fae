"""The regional options, re bello, napola and the last sweep (docs/rules.md,
"Regional options"): the sources' worked examples, the fast paths against
the full rules, and whole matches refereed, logged and replayed with them."""

import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from arena.errors import IllegalMoveError, RulesError
from arena.logs.replay import replay_log
from arena.match.outcome import result_text
from arena.match.report import report_text
from arena.match.settings import MatchSettings
from arena.play import run_match_sync
from arena.rules import Deal, Game, Move, Variant, parse_card, score_deal, seeded_deck
from arena.rules.cards import ACE_MASK
from arena.rules.scoring import deal_points, napola
from arena.tournament.config import config_from_dict
from arena.wire import convert as cv

from .helpers import cards, position

ALL = (1 << 40) - 1
card = parse_card


@pytest.mark.parametrize(
    ("denari", "points", "source"),
    [
        ("Ad 2d 3d", 3, "everything2: the minimum is ace, 2, 3, worth three points"),
        ("Ad 2d 3d 4d 6d 7d", 4, "everything2: ace, 2, 3, 4, 6, 7 scores only four"),
        ("Ad 2d 3d 4d 5d Fd", 5, "scribd: ace to 5 and the Fante score 5"),
        ("Ad 3d 4d 5d 6d 7d Fd Cd Rd", 0, "scribd: every Denari but the 2 scores nothing"),
        ("Ad 2d 3d 4d 5d 6d 7d Fd Cd Rd", 10, "scribd: all ten, Napoleone"),
        ("2d 3d 4d 5d", 0, "no ace, no napola"),
        ("Ad 2d 3d Ac 2c 3c 4c", 3, "only Denari count"),
    ],
)
def test_napola_as_the_sources_count_it(denari, points, source):
    assert napola(cards(denari)) == points, source


def test_the_options_add_their_points_and_nothing_else():
    side0 = "Ad 2d 3d 4d Rd 7c 7s 7b 6c"  # napola of 4 and the re bello, not the settebello
    piles = [cards(side0), ALL & ~cards(side0)]
    plain = score_deal(piles, [0, 0])
    both = score_deal(piles, [0, 0], re_bello=True, napola=True)
    assert (plain.re_bello, [t.napola for t in plain.tallies]) == (None, [0, 0])
    assert plain.tallies[0].re_bello is False  # off: not even counted
    assert both.re_bello == 0 and [t.napola for t in both.tallies] == [4, 0]
    assert both.breakdown(0)["re_bello"] == 1 and both.breakdown(0)["napola"] == 4
    assert both.points[0] == plain.points[0] + 5 and both.points[1] == plain.points[1]
    assert score_deal(piles, [0, 0], re_bello=True).points[0] == plain.points[0] + 1
    assert score_deal(piles, [0, 0], napola=True).points[0] == plain.points[0] + 4


@pytest.mark.parametrize("seed", range(300))
def test_the_playout_s_fast_points_are_the_full_scoring_s(seed):
    rng = random.Random(seed)
    mine = sum(1 << c for c in range(40) if rng.random() < 0.5)
    piles = [mine, ALL & ~mine] if seed % 3 else [mine, 0]  # a deal nobody finished too
    scope = [rng.randrange(4), rng.randrange(4)]
    for re_bello in (False, True):
        for with_napola in (False, True):
            expected = score_deal(piles, scope, re_bello, with_napola).points
            assert deal_points(piles, scope, re_bello, with_napola) == list(expected)


@pytest.mark.parametrize("game", [Game.SCOPA, Game.SCOPONE_SCIENTIFICO])
def test_a_sweep_with_the_last_card_scores_only_with_the_last_sweep_option(game):
    hands = ["5c"] + [""] * (game.seats - 1)  # the dealer's last card, after the others'
    for last_sweep in (False, True):
        deal = position(game, hands, "2d 3s", to_move=0, last_sweep=last_sweep)
        play = deal.play((card("5c"), cards("2d 3s")))
        assert deal.is_over and play.scopa is last_sweep and deal.scope == [int(last_sweep), 0]
        assert deal.score().tallies[0].scope == int(last_sweep)
        fast = position(game, hands, "2d 3s", to_move=0, last_sweep=last_sweep)
        assert fast.random_playout(random.Random(0).random) == list(deal.score().points)
        assert fast.scope == deal.scope


def test_the_wire_carries_the_options_points_and_checks_them():
    side0 = "Ad 2d 3d Rd"
    score = score_deal([cards(side0), ALL & ~cards(side0)], [1, 0], re_bello=True, napola=True)
    sides = cv.side_scores_to_pb(score)
    assert (sides[0].re_bello, sides[0].re_bello_point, sides[0].napola_point) == (True, 1, 3)
    assert sides[0].total == score.points[0]
    assert cv.side_scores_from_pb(sides) == score
    sides[0].napola_point = 2  # a napola is at least ace, 2 and 3
    with pytest.raises(cv.WireError, match="napola of 2 points"):
        cv.side_scores_from_pb(sides)


def test_a_match_with_the_options_is_refereed_logged_and_replayed(tmp_path):
    variant = Variant(
        Game.SCOPONE, target=None, deal_limit=12, re_bello=True, napola=True, last_sweep=True
    )
    log = tmp_path / "m.log"
    engines = ["g0=builtin:greedy", "r1=builtin:random", "g2=builtin:greedy", "r3=builtin:random"]
    report = run_match_sync(engines, MatchSettings(variant, seed=2026), log=log)
    assert len(report.deals) == 12
    kings = napolas = 0
    for deal in report.deals:
        kings += deal.score.re_bello is not None
        napolas += sum(t.napola for t in deal.score.tallies)
    assert kings == 12 and napolas > 0  # every deal gives the king to someone
    replay = replay_log(log)  # recomputes every deal's scoring and checks the log's
    assert replay.variant == variant
    assert [d.finished.score for d in replay.deals] == [d.score for d in report.deals]
    assert "re bello napola" in report_text(report)
    assert replay.variant.last_sweep  # and the replay held the plays' scopa flags to it
    plain = run_match_sync(
        engines, MatchSettings(Variant(Game.SCOPONE, target=None, deal_limit=12), seed=2026)
    )
    assert sum(report.result.final_scores) > sum(plain.result.final_scores)


def test_a_tournament_file_takes_the_options_and_keeps_old_fingerprints():
    base = {
        "engine": [{"name": "a", "spec": "builtin:random"}, {"name": "b", "spec": "builtin:greedy"}]
    }
    plain = config_from_dict(base)
    assert "re_bello" not in plain.fingerprint() and "napola" not in plain.fingerprint()
    cfg = config_from_dict({**base, "re_bello": True, "napola": True})
    assert cfg.variant.re_bello and cfg.variant.napola
    assert cfg.fingerprint()["re_bello"] is True and cfg.fingerprint()["napola"] is True


@pytest.mark.process
def test_the_command_line_plays_them_and_shows_their_columns():
    arena = str(Path(sys.executable).parent / "arena")
    out = subprocess.run(
        [arena, "play", "--variant", "scopone", "--re-bello", "--napola", "--seed", "3"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "re bello, napola" in out.stdout and "primiera re bello napola" in out.stdout


def ace_deal(table: str, hand: str = "Ad 5c", **options: bool):
    return position(Game.SCOPA, [hand, "7b"], table, to_move=0, ace_takes_all=True, **options)


def test_the_ace_takes_the_whole_table_and_its_sweep_scores_only_if_the_option_says():
    # giochi-di-carte.lotoflaughs.com, "Scopa d'Assi": "l'Asso prende tutte le carte"
    deal = ace_deal("5s 3b Rc")
    assert Move(card("Ad"), cards("5s 3b Rc")) in deal.legal_moves()
    assert Move(card("Ad"), 0) not in deal.legal_moves()
    play = deal.play((card("Ad"), cards("5s 3b Rc")))
    # everything2, "scopa all'asso": it "clears the table ... but it does not score a scopa"
    assert deal.table == 0 and not play.scopa and deal.scope == [0, 0]
    # Parlett: it "may or may not score as a sweep": asso piglia tutto counts it
    scoring = ace_deal("5s 3b Rc", ace_sweep_scores=True)
    assert scoring.play((card("Ad"), cards("5s 3b Rc"))).scopa and scoring.scope == [1, 0]


def test_with_an_ace_on_the_table_the_ace_takes_only_that_ace():
    # lotoflaughs: played "quando in tavola c'è ne uno già presente accompagnato da
    # altre carte, prende solo l'Asso e non fa scopa"
    deal = ace_deal("Ac 5s")
    ace_moves = [m for m in deal.legal_moves() if m.card == card("Ad")]
    assert ace_moves == [Move(card("Ad"), cards("Ac"))]
    with pytest.raises(IllegalMoveError, match="must take exactly one card of its rank"):
        deal.check(Move(card("Ad"), cards("Ac 5s")))
    alone = ace_deal("Ac")  # the lone ace taken is an ordinary sweep: a scopa
    assert alone.play((card("Ad"), cards("Ac"))).scopa


def test_the_ace_is_laid_on_an_empty_table_and_may_not_take_part_of_one():
    empty = ace_deal("")
    assert Move(card("Ad"), 0) in empty.legal_moves()
    deal = ace_deal("5s 3b")
    with pytest.raises(IllegalMoveError, match="ace-takes-all rule: Ad takes the whole table"):
        deal.check(Move(card("Ad"), 0))
    with pytest.raises(IllegalMoveError, match="ace-takes-all rule"):
        deal.check(Move(card("Ad"), cards("5s")))
    plain = position(Game.SCOPA, ["Ad 5c", "7b"], "5s 3b", to_move=0)
    assert Move(card("Ad"), 0) in plain.legal_moves()  # without the option: laid


def test_the_ace_s_sweep_scoring_is_a_reading_of_the_ace_rule():
    with pytest.raises(RulesError, match="ace_sweep_scores is a reading of ace_takes_all"):
        Variant(ace_sweep_scores=True)


@pytest.mark.parametrize("sweep_scores", [False, True])
def test_the_playout_path_plays_the_ace_rule_as_the_step_api(sweep_scores):
    """300 Scopa and Scopone deals each way, uniform play: every field the same,
    and aces took whole tables in them."""
    took_all = 0
    for seed in range(300):
        game = (Game.SCOPA, Game.SCOPONE)[seed % 2]
        variant = Variant(game, ace_takes_all=True, ace_sweep_scores=sweep_scores)
        a = Deal(variant, 0, seeded_deck(seed, 0))
        b = a.copy()
        r1, r2 = random.Random(seed).random, random.Random(seed).random
        while not a.is_over:
            moves = a.legal_moves()
            before = a.table
            play = a.play_unchecked(moves[int(r1() * len(moves))])
            took_all += play.card % 10 == 0 and play.captures == before and before & ~ACE_MASK > 0
        points = b.random_playout(r2)
        assert (b.piles, b.scope, b.leftover) == (a.piles, a.scope, a.leftover), seed
        assert points == list(a.score().points) == a.points(), seed
    assert took_all > 100


def test_a_match_of_scopa_d_assi_is_refereed_logged_and_replayed(tmp_path):
    variant = Variant(Game.SCOPONE, target=None, deal_limit=6, ace_takes_all=True)
    log = tmp_path / "assi.log"
    engines = [
        "s0=builtin:search --iterations 16",  # thinks a fixed amount: fast and the same each run
        "r1=builtin:random",
        "g2=builtin:greedy",
        "t3=builtin:traditional",
    ]
    report = run_match_sync(engines, MatchSettings(variant, seed=7), log=log)
    assert report.result.termination.value == "completed" and not report.result.faults
    replay = replay_log(log)  # every move checked under the ace rule again
    assert replay.variant.ace_takes_all and "ace takes all" in report_text(report)


def test_napoleone_is_a_reading_of_napola():
    with pytest.raises(RulesError, match="napoleone is a reading of napola"):
        Variant(Game.SCOPA, napoleone=True)
    told = cv.variant_from_pb(cv.variant_to_pb(Variant(Game.SCOPA, napola=True, napoleone=True)))
    assert told.napoleone and "napoleone" in told.options


def test_napoleone_wins_the_match_at_the_end_of_the_deal_whatever_the_scores(tmp_path):
    # Seed 152: all four greedy, side 0 takes all ten Denari in the second deal
    # with 16 points to 2, short of the target of 21 (found by trying seeds).
    engines = [f"g{seat}=builtin:greedy" for seat in range(4)]
    variant = Variant(Game.SCOPONE, target=21, napola=True, napoleone=True)
    log = tmp_path / "napoleone.log"
    report = run_match_sync(engines, MatchSettings(variant, seed=152), log=log)
    result = report.result
    assert (result.winner, result.final_scores, result.deals_played) == (0, (16, 2), 2)
    assert result.reason == "napoleone: all ten Denari taken in one deal"
    assert "termination: completed (napoleone: all ten" in report_text(report)
    sides, how = ["a+c", "b+d"], (result.final_scores, 0, result.termination, result.reason)
    assert result_text(sides, *how) == "a+c won 16-2 by napoleone"  # as the pages say it
    assert report.deals[-1].score.tallies[0].napola == 10
    assert replay_log(log).result == result  # the replay's rules end it there too
    # Without the option the same deals are played, all ten score 10, and it goes on.
    goes_on = run_match_sync(engines, MatchSettings(replace(variant, napoleone=False), seed=152))
    assert [d.score for d in goes_on.deals[:2]] == [d.score for d in report.deals]
    assert goes_on.result.deals_played > 2 and goes_on.result.reason == "played to the end"
