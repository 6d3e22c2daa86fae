"""Determinized flat Monte Carlo: every legal move scored on the same sampled
deals, played out by a cheap policy (engines/search serves it).

For each sample it deals the cards the seat has not seen at random
(consistent with everything public: arena.rules.determinize), and for every
legal move plays that deal out with the rules engine, scoring the playout by
the points the seat's side makes minus the other side's. The same samples
serve every move (common random numbers), and the best mean wins. Playouts
take something when they can, four times in five, rather than play
uniformly at random: that reads the table better.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from arena.rules import Move, Observation
from arena.rules.deal import Deal
from arena.rules.determinize import determinize
from arena.rules.scoring import margin

MIN_SAMPLES = 4
MAX_SAMPLES = 2000
CAPTURE_BIAS = 0.8  # how often a playout captures when it can


def playout(deal: Deal, rng: random.Random) -> list[int]:
    """Play the deal out: a capturing move when there is one (chosen at random
    among them) four times in five, else any move. Returns each side's points."""
    uniform = rng.random
    while deal.to_move is not None:
        moves = deal.legal_moves()
        captures = [m for m in moves if m.captures]
        pool = captures if captures and uniform() < CAPTURE_BIAS else moves
        deal.play_unchecked(pool[int(uniform() * len(pool))])
    return deal.points()


def evaluate(
    obs: Observation,
    moves: Sequence[Move],
    rng: random.Random,
    seconds: float | None,
    samples: int | None = None,
) -> list[float]:
    """Each move's mean point difference for the seat's side, over at least
    MIN_SAMPLES samples and then as many as ``seconds`` and ``samples`` allow
    (MAX_SAMPLES at most)."""
    side = obs.variant.side_of(obs.seat)
    deadline = time.perf_counter() + seconds if seconds is not None else math.inf
    limit = min(samples, MAX_SAMPLES) if samples is not None else MAX_SAMPLES
    totals = [0.0] * len(moves)
    done = 0
    while done < limit and (done < MIN_SAMPLES or time.perf_counter() < deadline):
        world = determinize(obs, rng)
        for i, move in enumerate(moves):
            deal = world.copy()
            deal.play_unchecked(move)
            points = playout(deal, rng)
            totals[i] += margin(points, side)
        done += 1
    return [t / done for t in totals]
