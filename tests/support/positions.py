"""Positions for property tests: a random point of a match's first deal, and
the same position with the cards a seat cannot see dealt around differently."""

from __future__ import annotations

import random

from arena.rules import Game, Match, Variant
from arena.rules.cards import cards_of
from arena.rules.declarations import shown_in_hands


def random_position(
    game: Game, seed: int, steps: int, variant: Variant | None = None
) -> Match | None:
    """A match ``steps`` random plays into its first deal (plays drawn from
    ``random.Random(seed)``, declaring where a declaration is open), or None
    if the deal ends before then."""
    match = Match(variant or Variant(game), seed=seed)
    rng = random.Random(seed)
    deal = match.start_deal()
    for _ in range(steps):
        if deal.is_over:
            return None
        deal.play(rng.choice(deal.legal_moves()), deal.declarable())
    return None if deal.is_over else match


def shuffle_hidden(match: Match, seat: int, rng: random.Random) -> Match:
    """A copy of the match where every card ``seat`` cannot see (other hands,
    partner's included, and the undealt stock) is dealt around differently;
    the cards a declaration showed stay where they are (every seat saw them)."""
    other = Match(match.variant, seed=match.seed, first_dealer=match.first_dealer)
    other.scores = list(match.scores)
    other.finished = list(match.finished)
    deal = match.deal.copy()
    deal.deck = list(deal.deck)
    others = [s for s in range(len(deal.hands)) if s != seat]
    shown = shown_in_hands(deal.declarations, deal.plays)
    held = {s: deal.hands[s] & ~shown.get(s, 0) for s in others}
    hidden = [c for s in others for c in cards_of(held[s])] + deal.deck[deal.stock_pos :]
    rng.shuffle(hidden)
    pos = 0
    for s in others:
        n = held[s].bit_count()
        deal.hands[s] = shown.get(s, 0) | sum(1 << c for c in hidden[pos : pos + n])
        pos += n
    deal.deck[deal.stock_pos :] = hidden[pos:]
    other.deal = deal
    return other
