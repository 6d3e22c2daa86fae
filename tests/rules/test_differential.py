"""The rules engine against the independent straightforward implementation in
benchmarks/naive_scopa.py (card objects, itertools.combinations): on random
decks, with the same choice at every step, both must reach the same piles."""

import random

import pytest

from arena.rules import Deal, Game, Variant, seeded_deck
from arena.rules.cards import RANK, SUIT
from benchmarks import naive_scopa as naive

CARD = {c: naive.Card(RANK[c], naive.SUITS[SUIT[c]]) for c in range(40)}
INDEX = {v: k for k, v in CARD.items()}


def canonical(moves, rng):
    """The same pick from the same moves, whatever order an engine lists them in."""
    keys = sorted(moves, key=lambda k: k[0])
    return keys[int(rng.random() * len(keys))][1]


@pytest.mark.parametrize(
    "game", [Game.SCOPA, Game.SCOPA_A_QUATTRO, Game.SCOPONE, Game.SCOPA_A_TRE, Game.SCOPA_A_SEI]
)
def test_same_deals_same_piles(game):
    for seed in range(150):
        deck = seeded_deck(seed, 0)
        rng_a, rng_b = random.Random(seed), random.Random(seed)

        deal = Deal(Variant(game), game.seats - 1, deck)  # seat 0 plays first, as in naive
        while not deal.is_over:
            ms = [((m.card, m.captures), m) for m in deal.legal_moves()]
            deal.play_unchecked(canonical(ms, rng_a))

        def choose(moves, rng=rng_b):
            keyed = [((INDEX[m.card], sum(1 << INDEX[c] for c in m.captures)), m) for m in moves]
            return canonical(keyed, rng)

        piles, scope = naive.play_deal(
            [CARD[c] for c in deck], game.seats, game is Game.SCOPONE, choose
        )
        assert [sum(1 << INDEX[c] for c in p) for p in piles] == deal.piles, seed
        assert scope == deal.scope
        assert naive.score(piles, scope) == list(deal.score().points)


@pytest.mark.parametrize(
    "game", [Game.SCOPA, Game.SCOPA_A_QUATTRO, Game.SCOPONE, Game.SCOPA_A_TRE, Game.SCOPA_A_SEI]
)
def test_same_legal_moves_at_every_step(game):
    """In lockstep: at every turn of many seeded deals both engines offer the
    same set of moves, and the finished deals score the same."""
    for seed in range(300):
        deck = seeded_deck(seed, 2)
        rng = random.Random(seed)
        deal = Deal(Variant(game), game.seats - 1, deck)

        def choose(moves, deal=deal, rng=rng, seed=seed):
            keyed = {(INDEX[m.card], sum(1 << INDEX[c] for c in m.captures)): m for m in moves}
            ours = deal.legal_moves()
            assert len(keyed) == len(moves) and len(set(ours)) == len(ours), seed
            assert {(m.card, m.captures) for m in ours} == set(keyed), (seed, len(deal.plays))
            move = ours[int(rng.random() * len(ours))]
            deal.play_unchecked(move)
            return keyed[move]

        piles, scope = naive.play_deal(
            [CARD[c] for c in deck], game.seats, game is Game.SCOPONE, choose
        )
        assert deal.is_over
        assert [sum(1 << INDEX[c] for c in p) for p in piles] == deal.piles, seed
        assert naive.score(piles, scope) == list(deal.score().points)
