"""Scoring, category by category, and hand-scored golden deals for each game."""

import pytest

from arena.rules import Deal, Game, Variant, parse_card, primiera, score_deal
from arena.rules.scoring import deal_points

from .helpers import cards

ALL = (1 << 40) - 1


def test_primiera_values_table():
    # Best card per suit: 7=21, 6=18, A=16, 5=15, 4=14, 3=13, 2=12, figures 10.
    assert primiera(cards("7d 7c 7s 7b")) == 84
    assert primiera(cards("6d Ac 5s 4b")) == 18 + 16 + 15 + 14
    assert primiera(cards("3d 2c Fs Cb")) == 13 + 12 + 10 + 10
    assert primiera(cards("Rd Ad 2c Rs Cb Fb")) == 16 + 12 + 10 + 10
    assert primiera(cards("7d 7c 7s")) is None  # no Bastoni: no primiera


def split(side0: str) -> list[int]:
    mine = cards(side0)
    return [mine, ALL & ~mine]


def test_categories_go_to_the_side_with_more():
    # Side 0: 21 cards, 6 denari (without the 7), a primiera of four 6s... against 7s.
    side0 = "Ad 2d 3d 4d 5d 6d 6c 6s 6b Ac 2c 3c 4c 5c As 2s 3s 4s 5s Ab 2b"
    score = score_deal(split(side0), [1, 2])
    t0, t1 = score.tallies
    assert (t0.cards, t1.cards, t0.denari, t1.denari) == (21, 19, 6, 4)
    assert not t0.settebello and t1.settebello
    assert (t0.primiera, t1.primiera) == (18 * 4, 21 * 4)
    assert (score.carte, score.denari, score.settebello, score.primiera) == (0, 0, 1, 1)
    assert score.breakdown(0) == {
        "scope": 1,
        "carte": 1,
        "denari": 1,
        "settebello": 0,
        "primiera": 0,
        "re_bello": 0,  # the regional options, off
        "napola": 0,
        "grande": 0,
        "declared": 0,
    }
    assert score.points == (3, 4)


def test_ties_score_nothing():
    # 20 cards and 5 denari each, equal primiera (each side holds two 7s and two 7s... by suit).
    side0 = "Ad 2d 3d 4d 5d 7c 7s Ac Fc Cc Rc As Fs Cs Rs 2b 3b 4b 5b 6b"
    score = score_deal(split(side0), [0, 0])
    assert score.tallies[0].cards == score.tallies[1].cards == 20
    assert score.tallies[0].denari == score.tallies[1].denari == 5
    assert score.carte is None and score.denari is None


def test_a_side_missing_a_suit_cannot_win_primiera():
    # Side 0 has every 7 but the 7 of Bastoni, and no Bastoni at all.
    side0 = "7d 7c 7s 6d 6c 6s"
    score = score_deal(split(side0), [0, 0])
    assert score.tallies[0].primiera is None and score.primiera == 1


def test_nobody_wins_primiera_when_both_miss_a_suit():
    piles = [cards("7d 7c 7s"), cards("6d 6c 6s")]
    score = score_deal(piles, [0, 0])
    assert score.primiera is None and score.points == (1, 0)  # settebello only


def test_fast_points_equal_full_scoring():
    import random

    rng = random.Random(3)
    for _ in range(2000):
        mine = rng.getrandbits(40)
        piles = [mine, ALL & ~mine]
        scope = [rng.randrange(4), rng.randrange(4)]
        assert deal_points(piles, scope) == list(score_deal(piles, scope).points)
    assert deal_points([0, 0], [0, 0]) == [0, 0]


# Golden deals ------------------------------------------------------------------
#
# Each deck below is arranged so that every played card has exactly one legal
# move, and the play follows a pattern a person can score by hand:
#
# Scopa, Scopa a quattro, Scopone: the four Assi lie on the table and side 0
# opens by sweeping them with a 4 (1+1+1+1); from then on side 1 lays a card on
# the empty table and side 0 takes it with the same rank, a scopa every time.
# Side 1's last card (4b) is laid last and goes to side 0 as the last capturer.
# Hand score: side 0 has 18 scope, all 40 cards, all 10 denari, the settebello
# and a primiera of 84 (four 7s): 18 + 4 = 22 points. Side 1: nothing.

PAIRS = [  # (laid by side 1, taken by side 0)
    ("2c", "2d"),
    ("2b", "2s"),
    ("3c", "3d"),
    ("3b", "3s"),
    ("5c", "5d"),
    ("5b", "5s"),
    ("6c", "6d"),
    ("6b", "6s"),
    ("7c", "7d"),
    ("7b", "7s"),
    ("Fc", "Fd"),
    ("Fb", "Fs"),
    ("Cc", "Cd"),
    ("Cb", "Cs"),
    ("Rc", "Rd"),
    ("Rb", "Rs"),
    ("4c", "4s"),
]
SIDE0_PLAYS = ["4d"] + [taken for _, taken in PAIRS]
SIDE1_PLAYS = [laid for laid, _ in PAIRS] + ["4b"]
ACES = "Ad Ac As Ab"


def golden_deck(game: Game) -> tuple[list[int], list[str]]:
    """The deck (dealer = last seat, so seat 0 plays first) and the play order."""
    seats = game.seats
    order = [p for pair in zip(SIDE0_PLAYS, SIDE1_PLAYS, strict=True) for p in pair]
    # Play i is made by seat i % seats; each seat's plays split into rounds of 3.
    by_seat = [[c for i, c in enumerate(order) if i % seats == s] for s in range(seats)]
    packets: list[str] = []
    if game is Game.SCOPONE:
        for k in range(3):  # 3 to each, 2 to the table, 3 each, 2, 3 each
            packets += [" ".join(by_seat[s][3 * k : 3 * k + 3]) for s in range(seats)]
            if k < 2:
                packets.append(ACES.split()[2 * k] + " " + ACES.split()[2 * k + 1])
    else:
        for k in range(len(by_seat[0]) // 3):
            packets += [" ".join(by_seat[s][3 * k : 3 * k + 3]) for s in range(seats)]
            if k == 0:
                packets.append(ACES)
    deck = [parse_card(c) for p in packets for c in p.split()]
    assert sorted(deck) == list(range(40))
    return deck, order


def play_forced(deal: Deal, order: list[str]) -> None:
    for name in order:
        moves = [m for m in deal.legal_moves() if m.card == parse_card(name)]
        assert len(moves) == 1, f"{name} should have exactly one legal move"
        deal.play(moves[0])


@pytest.mark.parametrize("game", [Game.SCOPA, Game.SCOPA_A_QUATTRO, Game.SCOPONE])
def test_golden_side_zero_sweeps_every_time(game):
    deck, order = golden_deck(game)
    deal = Deal(Variant(game), game.seats - 1, deck)
    play_forced(deal, order)
    assert deal.is_over
    assert sum(p.scopa for p in deal.plays) == 18
    assert not deal.plays[-1].scopa and deal.leftover == (0, cards("4b"))
    score = deal.score()
    t0, t1 = score.tallies
    assert (t0.scope, t0.cards, t0.denari, t0.settebello, t0.primiera) == (18, 40, 10, True, 84)
    assert (t1.scope, t1.cards, t1.denari, t1.settebello, t1.primiera) == (0, 0, 0, False, None)
    assert score.breakdown(0) == {
        "scope": 18,
        "carte": 1,
        "denari": 1,
        "settebello": 1,
        "primiera": 1,
        "re_bello": 0,
        "napola": 0,
        "grande": 0,
        "declared": 0,
    }
    assert score.points == (22, 0)


def test_golden_scientifico_suits_dealt_in_order():
    # Sorted deck, dealer seat 3: seat 0 holds all Denari, 1 Coppe, 2 Spade, 3 Bastoni.
    # Each seat plays its lowest card: seat 0 lays A, seat 1 takes it with its A
    # (scopa), seat 2 lays A, seat 3 takes it (scopa); then the 2s, and so on.
    # Side 1 sweeps twice per rank, except the very last capture (Rb takes Rs),
    # which ends the deal: 19 scope. It holds all 40 cards, all denari, the
    # settebello and primiera 84: 19 + 4 = 23 points; side 0 scores nothing.
    deal = Deal(Variant(Game.SCOPONE_SCIENTIFICO), 3, list(range(40)))
    order = [f"{'A234567FCR'[r]}{s}" for r in range(10) for s in "dcsb"]
    play_forced(deal, order)
    score = deal.score()
    assert [p.scopa for p in deal.plays].count(True) == 19 and not deal.plays[-1].scopa
    assert score.tallies[1].primiera == 84 and score.tallies[0].primiera is None
    assert score.breakdown(1) == {
        "scope": 19,
        "carte": 1,
        "denari": 1,
        "settebello": 1,
        "primiera": 1,
        "re_bello": 0,
        "napola": 0,
        "grande": 0,
        "declared": 0,
    }
    assert score.points == (0, 23)
