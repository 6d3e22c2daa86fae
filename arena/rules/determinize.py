"""Sampling the hidden cards: a full deal consistent with one seat's view.

Search bots think by playing out such samples ("determinizations"): the
cards the seat has not seen (other hands, partner's included, and the stock)
are dealt at random in the right numbers; everything public is kept.
"""

from __future__ import annotations

import random

from arena.errors import RulesError
from arena.rules.cards import BIT, DECK_SIZE, FULL_DECK, cards_of
from arena.rules.deal import Deal, opening_scope_of
from arena.rules.declarations import DECLARATION_POINTS, shown_in_hands
from arena.rules.observe import Observation


def seen_cards(obs: Observation) -> int:
    """Every card the seat has seen this deal: its hand, the table as dealt and
    as it is (the dealer may have taken the opening table), all plays and captures."""
    seen = obs.hand | obs.table | obs.opening_table
    for p in obs.plays:
        seen |= BIT[p.card] | p.captures
    return seen


def determinize(obs: Observation, rng: random.Random) -> Deal:
    """A deal in the observed position, hidden cards dealt at random."""
    # Cirulla: a declared packet was shown; its seat still holds what it has not played.
    shown = shown_in_hands(obs.declarations, obs.plays) if obs.declarations else {}
    shown.pop(obs.seat, None)
    known = seen_cards(obs)
    for mask in shown.values():
        known |= mask
    unseen = cards_of(FULL_DECK & ~known)
    hidden_sizes = [
        n - shown.get(s, 0).bit_count() for s, n in enumerate(obs.hand_sizes) if s != obs.seat
    ]
    if min(hidden_sizes, default=0) < 0 or len(unseen) != sum(hidden_sizes) + obs.stock_count:
        raise RulesError("observation is inconsistent: hidden card count does not add up")
    rng.shuffle(unseen)
    hands = []
    pos = 0
    for s, n in enumerate(obs.hand_sizes):
        if s == obs.seat:
            hands.append(obs.hand)
        else:
            hand = shown.get(s, 0)
            n -= hand.bit_count()
            for c in unseen[pos : pos + n]:
                hand |= BIT[c]
            hands.append(hand)
            pos += n
    stock = unseen[pos:]
    last = obs.last_capture_seat
    in_stock = 0
    for c in stock:
        in_stock |= BIT[c]
    dealt = [c for c in range(DECK_SIZE) if not in_stock >> c & 1]
    deal = Deal.__new__(Deal)
    deal.set_variant(obs.variant)
    deal.dealer = obs.dealer
    deal.deck = dealt + stock  # the stock is dealt from its end, in this order
    deal.hands = hands
    deal.table = obs.table
    deal.opening_table = obs.opening_table
    deal.stock_pos = DECK_SIZE - len(stock)
    deal.piles = list(obs.captured_cards)
    deal.scope = list(obs.scope)
    deal.last_capturer = None if last is None else obs.variant.side_of(last)
    deal.plays = list(obs.plays)
    deal.leftover = None
    variant = obs.variant
    deal.opening_scope = (
        opening_scope_of(obs.opening_table, variant.matta) if variant.opening_fifteen else 0
    )
    deal.declarations = list(obs.declarations)
    deal.declared = [0] * variant.sides
    for d in obs.declarations:
        deal.declared[variant.side_of(d.seat)] += DECLARATION_POINTS[d.kind]
    deal.cards_in_hands = sum(obs.hand_sizes)
    deal.to_move = obs.to_move
    return deal
