"""Cirulla's declarations and the matta (docs/rules.md, "Cirulla"): which
packets declare, when a seat may, what it scores, what every seat then sees
and what a sampled world keeps."""

import random

import pytest

from arena.errors import IllegalMoveError, RulesError
from arena.rules import Deal, Game, Variant, observe, parse_cards
from arena.rules.declarations import (
    CIRULLA,
    DECINO,
    declaration_of,
    opening_scope,
    shown_in_hands,
)
from arena.rules.determinize import determinize

from .helpers import cards

DECLARING = Variant(Game.SCOPA, declarations=True)
WITH_MATTA = Variant(Game.SCOPA, declarations=True, matta=True)


def deck(hands: str, table: str = "Fd Cb Rc 6d") -> list[int]:
    """Three cards to seat 1, then three to seat 0 (the dealer), then the
    table, then the rest in order."""
    head = parse_cards(hands) + parse_cards(table)
    return head + [c for c in range(40) if c not in head]


@pytest.mark.parametrize(
    ("packet", "matta", "expected"),
    [
        # regoledelgioco.com, "Cirulla": three cards adding up to less than 10.
        ("Ad 3b 5s", False, CIRULLA),  # 9
        ("Ad 3b 6s", False, None),  # 10
        ("5d 5b 5s", False, DECINO),  # three of a value
        ("Rd Rb Rs", False, DECINO),
        ("3d 3b 3s", False, DECINO),  # both: the decino, the larger
        ("2d 2b 4s", False, CIRULLA),  # a pair is not a decino
        # The matta (7 of Coppe) as any value: 1 for a cirulla, the pair's for a decino.
        ("7c 2d 5b", True, CIRULLA),  # 2 + 5 + 1 = 8
        ("7c 3d 5b", True, CIRULLA),  # 3 + 5 + 1 = 9
        ("7c 4d 5b", True, None),  # 4 + 5 + 1 = 10
        ("7c Rd Rb", True, DECINO),
        ("7c 2d 5b", False, None),  # without the matta option the 7 is a 7
        ("7d 2d Ab", True, None),  # the 7 of Denari is no matta: 10
    ],
)
def test_which_packets_declare(packet, matta, expected):
    assert declaration_of(cards(packet), matta) == expected


def test_only_a_packet_of_three_declares():
    assert declaration_of(cards("Ad 2b")) is None
    assert declaration_of(cards("Ad 2b 3s 4s")) is None


@pytest.mark.parametrize(
    ("table", "matta", "scope"),
    [
        ("Ad 2b 5s 7d", False, 1),  # 15
        ("7c Rd 2b Ab", True, 1),  # 13 and the matta as a 2: 15 (30 is out of reach)
        ("7c Rd Rb 5s", True, 2),  # 25 and the matta as a 5: 30
        ("7c Ad Ab 2b", True, 0),  # 4: the matta reaches neither 15 nor 30
        ("7c Rd Rb Fs", False, 0),  # 35
        ("7c Ad 2b 5s", False, 1),  # the 7 of Coppe counted as 7: 15
    ],
)
def test_the_matta_on_the_opening_table(table, matta, scope):
    assert opening_scope(cards(table), matta) == scope
    variant = Variant(Game.SCOPA, opening_fifteen=True, matta=matta)
    deal = Deal(variant, 0, deck("2c 3c 4c 2s 3s 4s", table))
    assert not deal.is_void and deal.opening_scope == scope
    assert deal.scope[0] == scope  # the dealer's side


def test_a_seat_declares_with_the_first_card_of_its_packet_and_scores_at_once():
    deal = Deal(DECLARING, 0, deck("Ad 3b 5s 4d 4b 4s"))
    assert deal.to_move == 1 and deal.declarable() == CIRULLA
    move = deal.legal_moves()[0]
    with pytest.raises(IllegalMoveError, match="only cirulla"):
        deal.play(move, DECINO)
    assert deal.declarations == [] and deal.declared == [0, 0]  # nothing half done
    deal.play(move, CIRULLA)
    assert deal.declared == [0, 3] and deal.scope == [0, 0]  # points, not sweeps
    [declared] = deal.declarations
    assert (declared.seat, declared.kind, declared.hand, declared.play) == (
        1,
        CIRULLA,
        cards("Ad 3b 5s"),
        0,
    )
    # Seat 0 holds three 4s: a decino, worth 10.
    assert deal.declarable() == DECINO
    deal.play(deal.legal_moves()[0], DECINO)
    assert deal.declared == [10, 3]
    # Neither may declare again from these packets.
    assert deal.declarable() is None
    with pytest.raises(IllegalMoveError, match="no declaration"):
        deal.declare(CIRULLA)


def test_a_declaration_is_made_once_and_only_before_the_packet_s_first_play():
    deal = Deal(DECLARING, 0, deck("Ad 3b 5s 4d 6b Rs"))
    deal.declare(CIRULLA)
    assert deal.declarable() is None  # declared: the play comes next
    deal.play(deal.legal_moves()[0])
    assert deal.declarable() is None  # seat 0's 4, 6, Re: 20
    deal.play(deal.legal_moves()[0])
    assert deal.declarable() is None  # seat 1 has played from its packet
    assert deal.declared == [0, 3]


def test_declaring_is_optional_and_off_without_the_option():
    plain = Deal(Variant(Game.SCOPA), 0, deck("Ad 3b 5s 4d 4b 4s"))
    assert plain.declarable() is None
    with pytest.raises(IllegalMoveError):
        plain.play(plain.legal_moves()[0], CIRULLA)
    kept = Deal(DECLARING, 0, deck("Ad 3b 5s 4d 4b 4s"))
    kept.play(kept.legal_moves()[0])  # not declared: legal, and lost
    kept.play(kept.legal_moves()[0])
    assert kept.declarable() is None and kept.declared == [0, 0]


def test_the_variant_refuses_what_it_cannot_play():
    with pytest.raises(RulesError, match="hands of three"):
        Variant(Game.SCOPONE, declarations=True)
    with pytest.raises(RulesError, match="matta"):
        Variant(Game.SCOPA, matta=True)
    assert "declared" in WITH_MATTA.describe() and "matta" in WITH_MATTA.describe()
    for game in (Game.SCOPA, Game.SCOPA_A_QUATTRO, Game.SCOPA_A_SEI):
        Variant(game, declarations=True)


def test_every_seat_sees_the_shown_packet_and_what_is_left_of_it():
    deal = Deal(DECLARING, 0, deck("Ad 3b 5s 4d 6b Rs"))
    first = deal.legal_moves()[0]
    deal.play(first, CIRULLA)
    for seat in (0, 1):
        obs = observe(deal, seat)
        assert [d.hand for d in obs.declarations] == [cards("Ad 3b 5s")]
    still = cards("Ad 3b 5s") & ~(1 << first.card)
    assert shown_in_hands(deal.declarations, deal.plays) == {1: still}
    # Seat 0's sampled worlds all give seat 1 the two shown cards it still holds.
    obs = observe(deal, 0)
    rng = random.Random(1)
    for _ in range(50):
        world = determinize(obs, rng)
        assert world.hands[1] & still == still
        assert world.hands[1].bit_count() == 2
        assert world.hands[0] == deal.hands[0] and world.declarations == deal.declarations
    # Once both shown cards are played, nothing of the packet is left to show.
    while deal.to_move is not None and deal.plays[-1:] and len(deal.plays) < 6:
        deal.play(deal.legal_moves()[0])
    assert 1 not in shown_in_hands(deal.declarations, deal.plays)


def test_random_deals_declaring_whenever_they_can_keep_the_cards_and_the_count():
    rng = random.Random(7)
    declared = 0
    for game in (Game.SCOPA, Game.SCOPA_A_QUATTRO):
        variant = Variant(game, declarations=True, matta=True, opening_fifteen=True)
        for _ in range(300):
            deal = Deal(variant, 0, rng.sample(range(40), 40))
            while deal.to_move is not None:
                kind = deal.declarable()
                seat = deal.to_move
                if kind is not None:
                    assert declaration_of(deal.hands[seat], True) == kind
                    assert deal.hands[seat].bit_count() == 3
                    declared += 1
                moves = deal.legal_moves()
                deal.play(moves[int(rng.random() * len(moves))], kind)
                for other in range(variant.seats):  # what was shown is still seen
                    obs = observe(deal, other)
                    assert obs.declarations == tuple(deal.declarations)
            piles = deal.piles[0] | deal.piles[1]
            assert piles == (1 << 40) - 1 and not deal.piles[0] & deal.piles[1]
            sweeps = sum(p.scopa for p in deal.plays) + deal.opening_scope
            worth = sum(3 if d.kind == CIRULLA else 10 for d in deal.declarations)
            assert sum(deal.scope) == sweeps and sum(deal.declared) == worth
            score = deal.score()
            assert list(score.points) == deal.points()
            assert [t.declared for t in score.tallies] == deal.declared
    assert declared > 300


def test_in_process_play_declares_whatever_the_strategies_choose():
    from arena.rules import Match, play_match

    first = [lambda obs, moves: moves[0]] * 2
    declared = play_match(
        Match(Variant(Game.SCOPA, target=None, deal_limit=3, declarations=True), seed=1), first
    )
    plain = play_match(Match(Variant(Game.SCOPA, target=None, deal_limit=3), seed=1), first)
    extra = 0
    for with_, without in zip(declared.finished, plain.finished, strict=True):
        assert with_.plays == without.plays  # declaring changes no card played
        tallies = with_.score.tallies
        assert [t.scope for t in tallies] == [t.scope for t in without.score.tallies]
        gained = [a - b for a, b in zip(with_.score.points, without.score.points, strict=True)]
        assert gained == [t.declared for t in tallies]
        extra += sum(gained)
    assert extra > 0
