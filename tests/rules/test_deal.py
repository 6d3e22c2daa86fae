"""Dealing, turn order, sweeps, refills, leftovers and redeals (RULES.md)."""

import pytest

from arena.errors import IllegalMoveError, RulesError
from arena.rules import Deal, Game, Match, Move, Variant, cards_of, parse_card, seeded_deck

from .helpers import cards, position

SEQ = list(range(40))


@pytest.mark.parametrize(
    ("game", "hand", "table", "stock"),
    [
        (Game.SCOPA, 3, 4, 30),
        (Game.SCOPA_A_QUATTRO, 3, 4, 24),
        (Game.SCOPONE, 9, 4, 0),
        (Game.SCOPONE_SCIENTIFICO, 10, 0, 0),
    ],
)
def test_deal_sizes(game, hand, table, stock):
    d = Deal(Variant(game), 0, SEQ)
    assert [h.bit_count() for h in d.hands] == [hand] * game.seats
    assert d.table.bit_count() == table
    assert d.stock_count == stock


def test_seat_after_dealer_is_dealt_first_and_plays_first():
    d = Deal(Variant(Game.SCOPA), 1, SEQ)
    assert cards_of(d.hands[0]) == [0, 1, 2]  # seat 0 follows dealer 1
    assert cards_of(d.hands[1]) == [3, 4, 5]
    assert cards_of(d.table) == [6, 7, 8, 9]
    assert d.to_move == 0
    d4 = Deal(Variant(Game.SCOPA_A_QUATTRO), 2, SEQ)
    assert d4.to_move == 3 and cards_of(d4.hands[3]) == [0, 1, 2]
    assert cards_of(d4.hands[2]) == [9, 10, 11]


def test_scopone_deals_3_2_3_2_3():
    d = Deal(Variant(Game.SCOPONE), 3, SEQ)
    assert cards_of(d.hands[0]) == [0, 1, 2, 14, 15, 16, 28, 29, 30]
    assert cards_of(d.hands[3]) == [9, 10, 11, 23, 24, 25, 37, 38, 39]
    assert cards_of(d.table) == [12, 13, 26, 27]


def test_playing_order_and_refill_of_three_each():
    d = Deal(Variant(Game.SCOPA), 1, seeded_deck(5, 0))
    order = []
    for _ in range(6):
        order.append(d.to_move)
        d.play(d.legal_moves()[0])
    assert order == [0, 1, 0, 1, 0, 1]
    # Hands were empty, so three more each; the table is not refilled.
    assert [h.bit_count() for h in d.hands] == [3, 3]
    assert d.stock_count == 24 and d.to_move == 0


def test_play_rejects_illegal_moves_and_the_wrong_seat_cards():
    d = Deal(Variant(Game.SCOPA), 1, SEQ)  # seat 0 holds Ad 2d 3d
    with pytest.raises(IllegalMoveError, match="not in the hand"):
        d.play(Move(parse_card("4d"), 0))
    before = (list(d.hands), d.table, len(d.plays))
    with pytest.raises(IllegalMoveError):
        d.play(Move(parse_card("Ad"), cards("7d")))
    assert (d.hands, d.table, len(d.plays)) == before  # nothing applied


def test_capture_emptying_table_is_a_scopa():
    d = position(Game.SCOPA, ["5d 2c", "Rb 3s"], "2s 3b")
    play = d.play(Move(parse_card("5d"), cards("2s 3b")))
    assert play.scopa and d.scope == [1, 0] and d.table == 0


def test_capture_with_the_last_card_of_the_deal_is_not_a_scopa():
    d = position(Game.SCOPA, ["5d", "Rb"], "2s 3b", to_move=1)
    d.play(Move(parse_card("Rb"), 0))
    play = d.play(Move(parse_card("5d"), cards("2s 3b")))
    assert d.is_over and d.table == 0 and not play.scopa and d.scope == [0, 0]


def test_leftovers_go_to_last_capturer_and_are_not_a_scopa():
    d = position(Game.SCOPA, ["5d 6c", "Rb Fs"], "5s 2b")
    d.play(Move(parse_card("5d"), cards("5s")))  # side 0 captures
    d.play(Move(parse_card("Rb"), 0))
    d.play(Move(parse_card("6c"), 0))
    d.play(Move(parse_card("Fs"), cards("6c 2b")))  # side 1 captures last, table left: Rb
    assert d.is_over
    assert d.leftover == (1, cards("Rb"))
    assert d.piles[1] & cards("Rb") and d.scope == [0, 0]


def test_leftovers_to_last_player_option():
    d = position(Game.SCOPA, ["5d Fc", "Rb"], "5s 2b", leftovers_to_last_player=True)
    d.play(Move(parse_card("5d"), cards("5s")))
    d.play(Move(parse_card("Rb"), 0))
    d.play(Move(parse_card("Fc"), 0))  # side 0 plays last; last capture was side 0 too
    assert d.leftover == (0, cards("2b Rb Fc"))
    d = position(Game.SCOPA, ["5d", "Rb Fc"], "5s 2b", to_move=1, leftovers_to_last_player=True)
    d.play(Move(parse_card("Rb"), 0))
    d.play(Move(parse_card("5d"), cards("5s")))  # side 0 captures last
    d.play(Move(parse_card("Fc"), 0))  # side 1 plays last and takes the leftovers
    assert d.leftover == (1, cards("2b Rb Fc"))


def test_nobody_captured_means_leftovers_go_to_no_one():
    d = position(Game.SCOPA, ["Rd", "Cb"], "2s 3c")
    d.play(Move(parse_card("Rd"), 0))
    d.play(Move(parse_card("Cb"), 0))
    assert d.is_over and d.leftover is None and d.table == cards("2s 3c Rd Cb")


def three_kings_deck() -> list[int]:
    deck = seeded_deck(1, 0)
    kings = [c for c in deck if c % 10 == 9]
    others = [c for c in deck if c % 10 != 9]
    # Scopa: seats get 6 cards, then the table gets 3 kings and one more card.
    return others[:6] + kings[:3] + others[6:7] + kings[3:] + others[7:]


def test_three_kings_on_the_table_void_the_deal_and_same_dealer_redeals():
    bad, good = three_kings_deck(), seeded_deck(2, 0)
    assert Deal(Variant(Game.SCOPA), 0, bad).is_void
    decks = {0: bad, 1: good}
    m = Match(Variant(Game.SCOPA), first_dealer=1, decks=lambda i, attempt: decks[attempt])
    d = m.start_deal()
    assert d.deck == good and d.dealer == 1 and m.void_decks == [tuple(bad)]


def test_two_kings_are_fine_and_scientifico_is_never_void():
    deck = three_kings_deck()
    deck[8], deck[11] = deck[11], deck[8]  # the third king goes to the stock
    assert not Deal(Variant(Game.SCOPA), 0, deck).is_void
    sorted_kings_first = [9, 19, 29, 39] + [c for c in range(40) if c % 10 != 9]
    assert not Deal(Variant(Game.SCOPONE_SCIENTIFICO), 0, sorted_kings_first).is_void


def test_bad_decks_and_dealers_are_rejected():
    with pytest.raises(RulesError, match="each of the 40 cards once"):
        Deal(Variant(Game.SCOPA), 0, [0] * 40)
    with pytest.raises(RulesError, match="each of the 40 cards once"):
        Deal(Variant(Game.SCOPA), 0, list(range(39)))
    with pytest.raises(RulesError, match="dealer"):
        Deal(Variant(Game.SCOPA), 2, SEQ)


def test_a_finished_deal_has_empty_hands_and_stock():
    d = Deal(Variant(Game.SCOPONE), 0, seeded_deck(9, 0))
    while not d.is_over:
        d.play(d.legal_moves()[-1])
    assert d.hands == [0, 0, 0, 0] and d.stock_count == 0 and d.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="over"):
        d.check(Move(0, 0))
