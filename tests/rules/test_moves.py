"""Capture rules, one test per line of RULES.md "A turn", and the seed examples."""

import pytest

from arena.errors import IllegalMoveError
from arena.rules import Move, check_move, legal_moves, parse_card

from .helpers import cards


def moves_of(hand: str, table: str, **kw: bool) -> set[tuple[str, frozenset[str]]]:
    """Legal moves as (card name, set of captured names), order-free."""
    from arena.rules import card_name, cards_of

    out = set()
    for m in legal_moves(cards(hand), cards(table), **kw):
        out.add((card_name(m.card), frozenset(card_name(c) for c in cards_of(m.captures))))
    return out


def test_seed_example_rank_capture_beats_sum():
    # Table 5, 9, 4 and a Cavallo in hand: it must take the 9, not 5+4.
    assert moves_of("Cd", "5c 9s 4b") == {("Cd", frozenset({"Cs"}))}


def test_seed_example_choice_between_sums():
    # Table 2, 5, 7, 4 and a Cavallo: 5+4 or 7+2, the player's choice.
    assert moves_of("Cd", "2c 5s 7b 4d") == {
        ("Cd", frozenset({"5s", "4d"})),
        ("Cd", frozenset({"7b", "2c"})),
    }


def test_seed_example_re_takes_asso_and_cavallo():
    assert moves_of("Rd", "Ac Cs") == {("Rd", frozenset({"Ac", "Cs"}))}


def test_seed_example_seven_takes_five_and_two():
    assert moves_of("7c", "5d 2b") == {("7c", frozenset({"5d", "2b"}))}


def test_rank_capture_takes_exactly_one_of_equal_ranks():
    # Two 5s on the table: take one of them (choice), never both, never a sum.
    assert moves_of("5d", "5c 5s 3b 2b") == {
        ("5d", frozenset({"5c"})),
        ("5d", frozenset({"5s"})),
    }


def test_sum_capture_sets_of_two_or_more_any_size():
    assert moves_of("6d", "Ac 2c 3c 4s") == {
        ("6d", frozenset({"2c", "4s"})),
        ("6d", frozenset({"Ac", "2c", "3c"})),
    }


def test_no_capture_possible_means_trail():
    assert moves_of("Rd", "2c 3s") == {("Rd", frozenset())}
    assert moves_of("4d", "") == {("4d", frozenset())}


def test_a_card_that_can_capture_must_capture():
    assert ("5d", frozenset()) not in moves_of("5d", "5c 3b")
    assert ("7d", frozenset()) not in moves_of("7d", "3c 4b")


def test_player_may_choose_a_card_that_captures_nothing():
    # 5 could take the 5; the Re captures nothing and may still be played.
    assert moves_of("5d Rb", "5c 3b") == {("5d", frozenset({"5c"})), ("Rb", frozenset())}


def test_suits_matter_in_moves():
    ms = legal_moves(cards("Cd"), cards("5c 4b 5s 4d"))
    assert len(ms) == 4 and len({m.captures for m in ms}) == 4


def test_equal_ranks_in_sums_are_distinct_sets():
    # Two 3s and a 4 on the table: 7 = 3c+4b or 3s+4b.
    assert moves_of("7d", "3c 3s 4b") == {
        ("7d", frozenset({"3c", "4b"})),
        ("7d", frozenset({"3s", "4b"})),
    }


def test_fewest_cards_option_keeps_only_the_smallest_sets():
    table = "Ac 2c 3c 4s"
    assert moves_of("6d", table, fewest_cards=True) == {("6d", frozenset({"2c", "4s"}))}
    # Off by default.
    assert len(moves_of("6d", table)) == 2


def check(hand: str, table: str, card: str, taken: str = "", **kw: bool) -> None:
    check_move(cards(hand), cards(table), Move(parse_card(card), cards(taken)), **kw)


def test_check_move_accepts_every_legal_move():
    hand, table = cards("Cd 5b 7s"), cards("2c 5s 7b 4d")
    for m in legal_moves(hand, table):
        check_move(hand, table, m)


@pytest.mark.parametrize(
    ("hand", "table", "card", "taken", "why"),
    [
        ("Cd", "9s", "Cc", "9s", "not in the hand"),
        ("Cd", "5c 4b", "Cd", "5c 4d", "not on the table"),
        ("Cd", "5c 9s 4b", "Cd", "5c 4b", "exactly one card of its rank"),
        ("5d", "5c 5s", "5d", "5c 5s", "exactly one card of its rank"),
        ("Cd", "5c 3b 4s", "Cd", "5c 3b", "add up to 8, not 9"),
        ("7d", "3c 4b", "7d", "", "can capture"),
        ("4d", "4c", "4d", "", "can capture \\(4c\\), so it cannot be laid"),
    ],
)
def test_check_move_says_why(hand, table, card, taken, why):
    with pytest.raises(IllegalMoveError, match=why) as e:
        check(hand, table, card, taken)
    assert isinstance(e.value, ValueError)


def test_check_move_fewest_cards():
    with pytest.raises(IllegalMoveError, match="fewest-cards"):
        check("6d", "Ac 2c 3c 4s", "6d", "Ac 2c 3c", fewest_cards=True)
    check("6d", "Ac 2c 3c 4s", "6d", "Ac 2c 3c")


def test_capture_sets_count_a_lone_king_as_a_set_adding_up_to_ten():
    # Patterns leave kings out of the memo; capture_sets still lists them first.
    from arena.rules.moves import capture_sets

    table = cards("Rd Rb Ac 9s 4d 6c")
    assert capture_sets(table, 10) == [
        cards("Rd"),
        cards("Rb"),
        *capture_sets(table & ~cards("Rd Rb"), 10),
    ]
    assert sorted(capture_sets(table, 10)) == sorted(
        [cards("Rd"), cards("Rb"), cards("Ac 9s"), cards("4d 6c")]
    )
    assert capture_sets(cards("Rd 9s"), 9) == [cards("9s")]
