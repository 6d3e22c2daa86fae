#!/usr/bin/env python3
"""An honest partnership that signals legally: a negative control of the
collusion audit (docs/audit.md). It uses no side channel; what it tells its
partner, it tells the whole table through the cards it lays.

    python signaller.py [--samples N] [--listen ADDR]

The convention: when it lays a card without taking anything, it lays from
the suit it holds most of, unless that costs more than MARGIN deal points
against its best move. Its partner reads the suits of its partner's lays as
that suit and samples the hidden cards accordingly: of the deals it samples,
it keeps those in which the partner holds at least one card of each suit it
signalled (up to ``TRIES`` draws for each kept one). Otherwise it plays flat
Monte Carlo like engines/search, seeded from the observation alone, so it is
deterministic.
"""

from __future__ import annotations

import argparse
import os
import random

from arena.players.search.evaluate import decision_rng, playout
from arena.rules import Deal, Move, Observation
from arena.rules.cards import SUIT, SUIT_MASK
from arena.rules.determinize import determinize
from arena.rules.variants import side_of
from arena.sdk import Decision, EngineServicer, run_server

MARGIN = 0.3  # deal points a signal may cost
TRIES = 20


def signalled_suits(obs: Observation, partner: int) -> set[int]:
    """The suits the partner has signalled this deal: those of its lays."""
    return {SUIT[p.card] for p in obs.plays if p.seat == partner and not p.captures}


def sample(obs: Observation, rng: random.Random, suits: set[int], partner: int) -> Deal:
    world = determinize(obs, rng)
    for _ in range(TRIES):
        if all(world.hands[partner] & SUIT_MASK[s] for s in suits):
            break
        world = determinize(obs, rng)
    return world


def long_suit(hand: int) -> int:
    return max(range(4), key=lambda s: ((hand & SUIT_MASK[s]).bit_count(), -s))


def choose(d: Decision, samples: int) -> Move:
    obs = d.observation
    moves = list(d.legal_moves)
    if len(moves) == 1:
        return moves[0]
    partner = (obs.seat + 2) % len(obs.hand_sizes)
    suits = signalled_suits(obs, partner) if len(obs.hand_sizes) == 4 else set()
    rng = decision_rng(obs)
    side = side_of(obs.seat)
    totals = [0.0] * len(moves)
    for _ in range(samples):
        world = sample(obs, rng, suits, partner)
        for i, move in enumerate(moves):
            deal = world.copy()
            deal.play_unchecked(move)
            points = playout(deal, rng)
            totals[i] += points[side] - points[1 - side]
    means = [t / samples for t in totals]
    best = max(range(len(moves)), key=lambda i: means[i])
    if moves[best].captures:
        return moves[best]
    suit = long_suit(obs.hand)
    signals = [
        i
        for i, m in enumerate(moves)
        if not m.captures and SUIT[m.card] == suit and means[i] >= means[best] - MARGIN
    ]
    return moves[max(signals, key=lambda i: means[i])] if signals else moves[best]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=48, help="deals sampled per decision")
    parser.add_argument("--listen", default=os.environ.get("SCOPA_BOT_LISTEN", "127.0.0.1:0"))
    args, _ = parser.parse_known_args()
    servicer = EngineServicer(lambda d: choose(d, args.samples), name="signaller", version="1")
    run_server(servicer, args.listen)


if __name__ == "__main__":
    main()
