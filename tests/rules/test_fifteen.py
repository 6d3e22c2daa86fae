"""Scopa a quindici (docs/rules.md, "Regional options"): a card takes table
cards that add up to 15 with it; with ``fifteen_ordinary`` the ordinary
captures stand too. The sources' worked examples, brute force against the
move generator, random deals that keep every rule, the playout path against
the step API, and whole matches refereed, logged and replayed."""

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import IllegalMoveError, RulesError
from arena.logs.replay import replay_log
from arena.match.report import report_text
from arena.match.settings import MatchSettings
from arena.play import run_match_sync
from arena.rules import Deal, Game, Move, Variant, legal_moves, parse_card, seeded_deck
from arena.rules.cards import ACE_MASK, RANK, RANK_MASK, cards_of
from arena.wire import convert as cv

from .helpers import cards, position
from .test_properties import _subsets, accounted, assert_playout_equals_steps

ALL = (1 << 40) - 1
card = parse_card


def quindici(table: str, hand: str = "7d 5c", **options: bool) -> Deal:
    return position(Game.SCOPA, [hand, "Rb"], table, to_move=0, fifteen=True, **options)


def moves_of(deal: Deal, name: str) -> set[int]:
    return {m.captures for m in deal.legal_moves() if m.card == card(name)}


def test_only_a_set_adding_up_to_15_with_the_card_is_taken():
    # giocodigitale.it, "Quindici": "l'unico modo per raccogliere le carte è quello
    # di raggiungere la somma di 15", not the equal value of the classic game.
    deal = quindici("7c 8s")
    assert moves_of(deal, "7d") == {cards("8s")}  # 7 + 8, not the other 7
    with pytest.raises(IllegalMoveError, match="7d and 7c add up to 14, not 15"):
        deal.check(Move(card("7d"), cards("7c")))
    # A set of several cards, and a king (10) with the 5 it needs.
    assert moves_of(quindici("2c 3s 3b Fs"), "7d") == {cards("2c 3s 3b"), cards("Fs")}
    assert moves_of(quindici("5s Ab", hand="Rd"), "Rd") == {cards("5s")}


def test_a_card_that_cannot_make_15_is_laid_and_one_that_can_must_take():
    # digitalmoka.com, "Scopa a 15": without 15 "il giocatore di turno non può
    # prendere nessuna carta"; the arena's reading (docs/rules.md): with 15 it must.
    deal = quindici("Rc Cs")
    assert moves_of(deal, "7d") == {0} and moves_of(deal, "5c") == {cards("Rc")}
    with pytest.raises(IllegalMoveError, match="5c can capture \\(Rc\\), so it cannot be laid"):
        deal.check(Move(card("5c"), 0))


def test_taking_the_whole_table_with_15_is_a_scopa():
    # Escoba (en.wikipedia, via wikisum): "If a player can combine one hand card
    # with all of the cards on the board to total 15, that player has scored an escoba".
    deal = position(Game.SCOPA, ["6d 5c", "Rb Rs"], "2c 3s 4b", to_move=0, fifteen=True)
    play = deal.play((card("6d"), cards("2c 3s 4b")))
    assert play.scopa and deal.scope == [1, 0] and deal.table == 0


def test_with_the_ordinary_captures_the_player_chooses_among_both():
    # spazioinwind.libero.it, "Cirulla": "La capacità di presa è come nella scopa
    # di Assi e di Quindici insieme".
    deal = quindici("7c 8s", fifteen_ordinary=True)
    assert moves_of(deal, "7d") == {cards("7c"), cards("8s")}
    # The ordinary rule keeps its own priority: a 7 on the table, so no 3 + 4 for a 7.
    assert moves_of(quindici("7c 3s 4b", fifteen_ordinary=True), "7d") == {cards("7c")}
    with pytest.raises(IllegalMoveError, match="not 15, nor an ordinary capture"):
        quindici("7c 3s 4b", fifteen_ordinary=True).check(Move(card("7d"), cards("3s 4b")))


def test_cirulla_s_simple_capture_takes_the_fewest_cards_and_15_stands_beside_it():
    # regoledelgioco.com, "Cirulla": a 7 on a table of 3, 5, 6 and 7 "con la presa
    # semplice si può raccogliere il solo 7 ...; è possibile però raccogliere il 3 e
    # il 5 attraverso la presa da 15"; the simple capture "deve avvenire attraverso
    # la combinazione del minor numero possibile di carte".
    cirulla = {"fifteen_ordinary": True, "fewest_cards": True}
    assert moves_of(quindici("3c 5s 6b 7c", **cirulla), "7d") == {cards("7c"), cards("3c 5s")}
    deal = quindici("Ac 2s 5b 3c", hand="Fd", **cirulla)
    assert moves_of(deal, "Fd") == {cards("5b 3c"), cards("2s 5b")}  # not A + 2 + 5
    with pytest.raises(IllegalMoveError, match="fewest-cards rule: Fd must take a set of 2"):
        deal.check(Move(card("Fd"), cards("Ac 2s 5b")))
    every = quindici("Ac 2s 5b 3c", hand="Fd", fifteen_ordinary=True)
    assert moves_of(every, "Fd") == {cards("5b 3c"), cards("Ac 2s 5b"), cards("2s 5b")}


def test_the_ace_rule_combines_with_it():
    deal = quindici("Fs 3c", hand="Ad 5c", ace_takes_all=True)
    assert moves_of(deal, "Ad") == {cards("Fs 3c")}
    with pytest.raises(IllegalMoveError, match="ace-takes-all rule"):
        deal.check(Move(card("Ad"), 0))
    with_ace = quindici("Ac Rs 4b", hand="Ad 5c", ace_takes_all=True)
    assert moves_of(with_ace, "Ad") == {cards("Rs 4b")}  # an ace there: 1 + 14 only


def test_the_readings_are_options_of_their_own():
    with pytest.raises(RulesError, match="fifteen_ordinary is a reading of fifteen"):
        Variant(fifteen_ordinary=True)
    with pytest.raises(RulesError, match="fewest_cards is a rule of the ordinary"):
        Variant(fifteen=True, fewest_cards=True)
    assert Variant(fifteen=True, fifteen_ordinary=True, fewest_cards=True).fewest_cards
    variant = Variant(Game.SCOPONE, fifteen=True, fifteen_ordinary=True)
    assert cv.variant_from_pb(cv.variant_to_pb(variant)) == variant
    assert variant.options == ("fifteen", "fifteen_ordinary")
    assert "scopa a quindici with ordinary captures" in variant.describe()


def _brute_force(
    hand: int, table: int, ordinary: bool, ace_takes_all: bool, fewest: bool = False
) -> set[Move]:
    expected = set()
    for c in cards_of(hand):
        r = RANK[c]
        takes = [s for s in _subsets(table) if r + sum(RANK[x] for x in cards_of(s)) == 15]
        if ordinary:
            same = [s for s in _subsets(table) if s.bit_count() == 1 and s & RANK_MASK[r]]
            sums = [
                s
                for s in _subsets(table)
                if s.bit_count() >= 2 and sum(RANK[x] for x in cards_of(s)) == r
            ]
            if fewest and sums:
                least = min(s.bit_count() for s in sums)
                sums = [s for s in sums if s.bit_count() == least]
            takes += same or sums
        if ace_takes_all and r == 1 and table and not table & ACE_MASK:
            takes = [table]
        expected |= {Move(c, s) for s in takes or [0]}
    return expected


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.integers(0, 39), max_size=11, unique=True),
    st.lists(st.integers(0, 39), max_size=4, unique=True),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_legal_moves_match_brute_force(table_cards, hand_cards, ordinary, ace_takes_all, fewest):
    hand_cards = [c for c in hand_cards if c not in table_cards]
    table = sum(1 << c for c in table_cards)
    hand = sum(1 << c for c in hand_cards)
    fewest = fewest and ordinary
    got = legal_moves(hand, table, fewest, ace_takes_all, True, ordinary)
    assert len(got) == len(set(got)) and set(got) == _brute_force(
        hand, table, ordinary, ace_takes_all, fewest
    )
    assert [m.card for m in got] == sorted(m.card for m in got)  # by card, as documented


@settings(max_examples=120, deadline=None)
@given(
    st.sampled_from(list(Game)), st.integers(0, 2**32), st.integers(0, 2**32), *[st.booleans()] * 3
)
def test_random_deals_keep_every_rule(game, deck_seed, play_seed, ordinary, ace, scoring):
    variant = Variant(
        game,
        fifteen=True,
        fifteen_ordinary=ordinary,
        fewest_cards=ordinary and scoring,
        ace_takes_all=ace,
        re_bello=scoring,
        napola=scoring,
        leftovers_to_last_player=scoring and ace,
    )
    deal = Deal(variant, deck_seed % game.seats, seeded_deck(deck_seed, 0))
    rng = random.Random(play_seed)
    while not deal.is_over:
        assert accounted(deal) == ALL  # 40 cards conserved at every step
        seat, table = deal.to_move, deal.table
        moves = deal.legal_moves()
        expected = _brute_force(deal.hands[seat], table, ordinary, ace, variant.fewest_cards)
        assert set(moves) == expected
        move = rng.choice(moves)
        deal.check(move)  # every move generated is legal by the checker too
        deal.play(move)
    assert accounted(deal) == ALL and not any(deal.hands) and deal.stock_count == 0
    score = deal.score()
    for side in (0, 1):
        assert sum(score.breakdown(side).values()) == score.points[side]
    assert list(score.points) == deal.points()
    assert sum(p.scopa for p in deal.plays) == sum(deal.scope)
    assert not deal.plays[-1].scopa  # the last card sweeps for nothing


@pytest.mark.parametrize("ordinary", [False, True])
@pytest.mark.parametrize("game", [Game.SCOPA, Game.SCOPONE, Game.SCOPONE_SCIENTIFICO])
def test_the_playout_path_plays_it_as_the_step_api(game, ordinary):
    """120 deals each, from the start and from inside the deal, uniform and
    with every bias: every field and the points the same."""
    variant = Variant(game, fifteen=True, fifteen_ordinary=ordinary, fewest_cards=ordinary)
    for seed in range(120):
        a = Deal(variant, seed % game.seats, seeded_deck(seed, 5))
        for _ in range(seed % 9):
            a.play(a.legal_moves()[seed % len(a.legal_moves())])
        bias, care, sweep = ((0.0, 0.0, 0.0), (0.8, 0.7, 0.0), (0.8, 0.7, 0.9))[seed % 3]
        assert_playout_equals_steps(a, seed, (game, ordinary, seed), bias, care, sweep)


def test_a_match_of_scopa_a_quindici_is_refereed_logged_and_replayed(tmp_path):
    variant = Variant(Game.SCOPONE, target=None, deal_limit=3, fifteen=True)
    log = tmp_path / "quindici.log"
    engines = [
        "s0=builtin:search --iterations 16",  # thinks a fixed amount: fast and the same each run
        "r1=builtin:random",
        "g2=builtin:greedy",
        "t3=builtin:traditional",
    ]
    report = run_match_sync(engines, MatchSettings(variant, seed=11), log=log)
    assert report.result.termination.value == "completed" and not report.result.faults
    replay = replay_log(log)  # every move checked under the rule of 15 again
    assert replay.variant.fifteen and "scopa a quindici" in report_text(report)
    # The plays were captures of 15 and nothing else.
    for deal in report.deals:
        for play in deal.plays:
            if play.captures:
                assert RANK[play.card] + sum(RANK[c] for c in cards_of(play.captures)) == 15


@pytest.mark.process
def test_the_command_line_plays_it():
    arena = str(Path(sys.executable).parent / "arena")
    out = subprocess.run(
        [arena, "play", "--fifteen", "--fifteen-ordinary", "--seed", "4"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "scopa a quindici with ordinary captures" in out.stdout
