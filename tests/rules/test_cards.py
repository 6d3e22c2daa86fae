import pytest

from arena.errors import RulesError
from arena.rules import (
    BASTONI,
    COPPE,
    DENARI,
    RANK,
    SETTEBELLO,
    SPADE,
    SUIT,
    card,
    card_name,
    cards_of,
    mask_of,
    parse_card,
)


def test_forty_cards_four_suits_ranks_one_to_ten():
    all_cards = [card(r, s) for s in (DENARI, COPPE, SPADE, BASTONI) for r in range(1, 11)]
    assert sorted(all_cards) == list(range(40))
    assert all(
        RANK[card(r, s)] == r and SUIT[card(r, s)] == s for r in range(1, 11) for s in range(4)
    )


def test_settebello_is_the_seven_of_denari():
    assert card(7, DENARI) == SETTEBELLO
    assert card_name(SETTEBELLO) == "7d"


def test_names_round_trip_and_accept_numbers():
    for c in range(40):
        assert parse_card(card_name(c)) == c
    assert parse_card("10b") == card(10, BASTONI) == parse_card("Rb")
    assert parse_card("1c") == card(1, COPPE) == parse_card("Ac")
    assert card_name(card(8, SPADE)) == "Fs" and card_name(card(9, SPADE)) == "Cs"


@pytest.mark.parametrize("bad", ["", "7", "7x", "11d", "0d", "Zd"])
def test_bad_card_names_are_clear_errors(bad):
    with pytest.raises(RulesError, match="cannot read card"):
        parse_card(bad)


def test_masks():
    assert cards_of(mask_of([5, 0, 39])) == [0, 5, 39]
    with pytest.raises(RulesError, match="twice"):
        mask_of([3, 3])
    with pytest.raises(RulesError, match="not a card"):
        mask_of([40])
    with pytest.raises(RulesError):
        card(11, DENARI)
