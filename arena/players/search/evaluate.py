"""Every legal move's expected deal points, from one seat's view only.

Flat Monte Carlo with common random numbers: each sample deals the cards the
seat has not seen at random, consistent with everything it has seen
(``arena.rules.determinize``); every legal move is applied to a copy of that
same deal, which is then played out to the deal's end by a cheap informed
policy (``playout``). A move's value in one sample is the deal's final
margin: the points the seat's side scores for the deal minus the other
side's. What was played before the decision is the same for every move, so
the difference between two moves is exactly what they differ by over the
rest of the deal. The unit is the deal point: a scopa is 1, the settebello
1, carte, denari and primiera 1 each.

Sharing the samples between moves makes the differences between moves far
less noisy than the values themselves: ``Evaluation.difference`` gives the
standard error of a paired difference, which is what deciding "this move
was worse" needs.

Only the Observation is read: nothing here can see another seat's hand, and
``decision_rng`` seeds the sampling from the observation's own content, so
a decision's evaluation is the same in every deal that agrees with what the
seat saw.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, fields

from arena.errors import RulesError
from arena.rules import Deal, Move, Observation
from arena.rules.determinize import determinize
from arena.rules.scoring import margin
from arena.rules.variants import REGIONAL_OPTIONS

__all__ = [
    "CAPTURE_BIAS",
    "Evaluation",
    "MoveValue",
    "decision_rng",
    "evaluate",
    "move_values",
    "playout",
    "view_digest",
]

# How often a playout's player takes something when it can (and no sweep is
# on offer, which it always takes): the search bot's policy (engines/search).
CAPTURE_BIAS = 0.8
# --think: at least this many samples, however short the time.
MIN_SAMPLES = 8


@dataclass(frozen=True)
class MoveValue:
    """A move's expected deal points (mean over the samples) and the standard
    error of that mean. ``se`` is 0 with fewer than two samples."""

    mean: float
    se: float


def _mean_se(values: Sequence[int | float]) -> MoveValue:
    n = len(values)
    if n == 0:
        return MoveValue(0.0, 0.0)
    mean = math.fsum(values) / n
    if n < 2:
        return MoveValue(mean, 0.0)
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return MoveValue(mean, math.sqrt(variance / n))


@dataclass(frozen=True)
class Evaluation:
    """The samples of one decision: ``outcomes[k][i]`` is move i's value in
    sample k (deal points, the seat's side minus the other)."""

    moves: tuple[Move, ...]
    outcomes: tuple[tuple[int, ...], ...]

    @property
    def samples(self) -> int:
        return len(self.outcomes)

    def values(self) -> list[MoveValue]:
        return [_mean_se([o[i] for o in self.outcomes]) for i in range(len(self.moves))]

    def difference(self, better: int, worse: int) -> MoveValue:
        """Move ``better``'s value minus move ``worse``'s, sample by sample:
        its mean, and the standard error of the paired difference."""
        return _mean_se([o[better] - o[worse] for o in self.outcomes])


def playout(deal: Deal, rng: random.Random) -> list[int]:
    """Play ``deal`` to its end and return each side's points (``Deal.points``).

    Each player sweeps the table when it can; otherwise it takes something
    (one capture at random) with probability CAPTURE_BIAS, else plays any
    legal move at random. Cheap, and it reads the table better than uniform
    play: a card left on the table for the next player to take is taken.
    """
    rand = rng.random
    while True:
        seat = deal.to_move
        if seat is None:
            return deal.points()
        moves = deal.legal_moves()
        table = deal.table
        captures = [m for m in moves if m[1]]
        if captures:
            sweeps = [m for m in captures if m[1] == table]
            if sweeps:
                pool = sweeps
            elif rand() < CAPTURE_BIAS:
                pool = captures
            else:
                pool = moves
        else:
            pool = moves
        deal.play_unchecked(pool[int(rand() * len(pool))])


def view_digest(obs: Observation) -> bytes:
    """SHA-256 of everything in the observation (the seat's view), in a fixed
    text form: equal for two observations exactly when they are equal."""
    v = obs.variant
    parts: list[object] = [
        ("variant", v.game.value, v.target, v.deal_limit, v.fewest_cards),
        ("leftovers_to_last_player", v.leftovers_to_last_player),
    ]
    regional = [o for o in v.options if o in REGIONAL_OPTIONS]
    if regional:  # only then: the views of the plain games keep their digests
        parts.append(("regional", *regional))
    for f in fields(obs):
        if f.name == "variant":
            continue
        value = getattr(obs, f.name)
        if f.name == "declarations" and not value:
            continue  # only in Cirulla's views: the other games' digests stay as they were
        if f.name == "plays":
            value = tuple(tuple(p) for p in value)
        parts.append((f.name, value))
    return hashlib.sha256(repr(parts).encode("utf-8")).digest()


def decision_rng(obs: Observation, seed: int = 0) -> random.Random:
    """The sampling's random numbers for one decision: from the seat's view
    and ``seed`` only (never the match's seed or its deck)."""
    key = hashlib.sha256(b"arena-analysis\0" + str(seed).encode() + b"\0" + view_digest(obs))
    return random.Random(int.from_bytes(key.digest(), "big"))


def evaluate(
    obs: Observation,
    moves: Sequence[Move],
    rng: random.Random,
    samples: int | None = None,
    deadline: float | None = None,
) -> Evaluation:
    """Sample ``samples`` deals (exactly), or as many as fit before
    ``deadline`` (``time.perf_counter()``; at least MIN_SAMPLES), and play
    every move out in each. One of the two must be given."""
    if samples is None and deadline is None:
        raise RulesError("evaluate needs a number of samples or a deadline")
    if samples is not None and samples < 1:
        raise RulesError(f"evaluate needs at least one sample, not {samples}")
    if not moves:
        raise RulesError("no legal move to evaluate")
    if obs.to_move != obs.seat:
        raise RulesError(f"seat {obs.seat} is not the seat to move")
    side = obs.variant.side_of(obs.seat)
    outcomes: list[tuple[int, ...]] = []
    while True:
        if samples is not None:
            if len(outcomes) >= samples:
                break
        elif len(outcomes) >= MIN_SAMPLES and time.perf_counter() >= (deadline or 0.0):
            break
        world = determinize(obs, rng)
        row = []
        for move in moves:
            deal = world.copy()
            deal.play_unchecked(move)
            points = playout(deal, rng)
            row.append(margin(points, side))
        outcomes.append(tuple(row))
    return Evaluation(tuple(Move(*m) for m in moves), tuple(outcomes))


def move_values(
    obs: Observation,
    moves: Sequence[Move],
    rng: random.Random,
    samples: int | None = None,
    deadline: float | None = None,
) -> list[MoveValue]:
    """Each move's expected deal margin (the side of ``obs.seat`` minus the
    other side, in deal points) with its standard error (see ``evaluate``)."""
    return evaluate(obs, moves, rng, samples, deadline).values()
