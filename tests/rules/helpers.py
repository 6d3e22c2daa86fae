"""Helpers for rules tests: build exact positions from card names."""

from __future__ import annotations

from arena.rules import Deal, Game, Variant, mask_of, parse_cards


def cards(text: str) -> int:
    """A mask from card names: cards("7d Rb 5c")."""
    return mask_of(parse_cards(text))


def deck_from_packets(*packets: str) -> list[int]:
    """A 40-card deck from packets of card names, in dealing order; checks it is whole."""
    deck = [c for p in packets for c in parse_cards(p)]
    assert sorted(deck) == list(range(40)), "test deck must hold each card once"
    return deck


def position(game: Game, hands: list[str], table: str, to_move: int = 0, **options: bool) -> Deal:
    """A deal in an exact position: these hands and table, empty stock, seat to_move to play.

    The remaining cards are given to side 1's pile so that 40 cards are accounted for.
    """
    variant = Variant(game, **options)  # type: ignore[arg-type]
    deal = Deal(variant, (to_move - 1) % variant.seats, list(range(40)))
    deal.hands = [cards(h) for h in hands]
    deal.table = deal.opening_table = cards(table)
    used = deal.table
    for h in deal.hands:
        used |= h
    deal.piles = [0, ((1 << 40) - 1) & ~used]
    deal.stock_pos = 40
    deal.cards_in_hands = sum(h.bit_count() for h in deal.hands)
    deal.to_move = to_move
    return deal
