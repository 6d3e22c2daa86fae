"""What the other seats' plays say about their hands: sampled deals weighted
by how likely each seat was to play as it did, holding what the deal gives it.

A uniform sample (arena.rules.determinize) treats every hand consistent with
the cards seen as equally likely. Players are not random: a seat that laid a
card on a table where it could have taken the settebello probably held no
seven. For every play another seat made since its hand was dealt (earlier
packets are played out and tell nothing about the cards still hidden), the
hand it held then is what the sample gives it now plus the cards it has
played since; the play's likelihood under a simple model of a player, a
softmax over a one-ply reading of the table mixed with a share of uniform
choice, weighs the sample. Sampling-importance-resampling then draws the
deals a search plays from a batch of uniform ones in proportion to their
weights (Ginsberg's GIB and later Skat and Hearts programs do the same;
Furtak and Buro, "Recursive Monte Carlo search for imperfect information
games", 2013, and Buro et al., "Improving state evaluation, inference, and
search in trick-based card games", IJCAI 2009).

The model is deliberately plain (the greedy strategy's card values), and
``strength`` tempers it (the weights are raised to it): a real opponent is
not this model, and a tempered belief errs less when it is wrong. Only the
seat's own view is read, so the weights never depend on a hidden card.
"""

from __future__ import annotations

import math
import random

from arena.players.strategies import SCOPA_VALUE, SWEEP_RISK, card_value
from arena.rules.cards import BIT, DECK_SIZE, RANK
from arena.rules.deal import Deal, opening_scope_of
from arena.rules.determinize import determinize
from arena.rules.moves import legal_moves
from arena.rules.observe import Observation

# The player model: greedy's one-ply reading of the table (arena.players.strategies),
# without its exception for the deal's last card: a scopa is worth a point, a
# card its share of the deal's points; laying a card gives half its worth
# away, and a table one card can sweep is a risk.
_CARD = tuple(card_value(c) for c in range(DECK_SIZE))
SHARPNESS = 3.0  # softmax's inverse temperature over move values, in points
UNIFORM_SHARE = 0.15  # the model's share of a uniform choice among the legal moves
STRENGTH = 1.0  # the likelihoods' exponent (0: no inference)
BATCH = 8  # uniform samples drawn per resampling


def _total(cards: int, per_card: tuple[float, ...] | tuple[int, ...]) -> float:
    """``per_card`` summed over the cards of a mask."""
    total = 0.0
    while cards:
        low = cards & -cards
        total += per_card[low.bit_length() - 1]
        cards ^= low
    return total


def move_value(card: int, taken: int, table: int) -> float:
    """The model's value of playing ``card`` taking ``taken`` from ``table``."""
    if taken:
        after = table ^ taken
        value = _total(taken | BIT[card], _CARD)
        if not after:
            return value + SCOPA_VALUE
    else:
        after = table | BIT[card]
        value = -0.5 * _CARD[card]
    if _total(after, RANK) <= 10:
        value -= SWEEP_RISK
    return value - 0.3 * _total(after, _CARD)


class Belief:
    """The other seats' plays this packet, and the weight they give a sampled deal."""

    def __init__(self, obs: Observation, strength: float = STRENGTH) -> None:
        self.obs = obs
        self.strength = strength
        v = obs.variant
        self._rules = (v.fewest_cards, v.ace_takes_all, v.fifteen, v.fifteen_ordinary)
        seats = v.seats
        first = sum(n for step, n in v.game.deal_plan if step == "hands")
        packet = first if len(obs.plays) < seats * first else v.game.refill
        # The table before each play, from the opening table on.
        table = obs.opening_table
        if v.opening_fifteen and opening_scope_of(table, v.matta):
            table = 0
        before = []
        for p in obs.plays:
            before.append(table)
            table = table ^ p.captures if p.captures else table | BIT[p.card]
        # Per other seat: its plays since its hand was dealt, oldest first.
        self._history: list[tuple[int, list[tuple[int, int, int, int]]]] = []
        for seat in range(seats):
            if seat == obs.seat:
                continue
            played = packet - obs.hand_sizes[seat]
            mine = [i for i, p in enumerate(obs.plays) if p.seat == seat]
            recent = mine[len(mine) - played :] if played > 0 else []
            plays = []
            later = 0  # this play's card and the cards the seat played after it
            for i in reversed(recent):
                p = obs.plays[i]
                later |= BIT[p.card]
                plays.append((later, before[i], p.card, p.captures))
            plays.reverse()
            if plays:
                self._history.append((seat, plays))
        self._memo: dict[tuple[int, int], float] = {}
        self._cards: dict[tuple[int, int], tuple[int, float]] = {}

    @property
    def informative(self) -> bool:
        return bool(self._history) and self.strength > 0

    def log_weight(self, deal: Deal) -> float:
        """The log-likelihood, tempered, of the other seats' plays given their
        hands in ``deal``."""
        total = 0.0
        memo = self._memo
        for seat, plays in self._history:
            hand = deal.hands[seat]
            key = (seat, hand)
            found = memo.get(key)
            if found is None:
                found = memo[key] = self._seat_log_likelihood(hand, plays)
            total += found
        return total * self.strength

    def _seat_log_likelihood(self, hand: int, plays: list[tuple[int, int, int, int]]) -> float:
        total = 0.0
        for later, table, card, taken in plays:
            held = hand | later
            count, mass = 0, 0.0
            while held:
                low = held & -held
                n, m = self._card_moves(low.bit_length() - 1, table)
                count += n
                mass += m
                held ^= low
            if count <= 1:
                continue
            chosen = math.exp(SHARPNESS * move_value(card, taken, table)) / mass
            total += math.log(UNIFORM_SHARE / count + (1 - UNIFORM_SHARE) * chosen)
        return total

    def _card_moves(self, card: int, table: int) -> tuple[int, float]:
        """How many moves ``card`` has on ``table``, and their summed softmax
        mass: a hand's moves are its cards' moves, so a sample's likelihood
        adds these up."""
        key = (card, table)
        found = self._cards.get(key)
        if found is None:
            moves = legal_moves(BIT[card], table, *self._rules)
            mass = sum(math.exp(SHARPNESS * move_value(c, t, table)) for c, t in moves)
            found = self._cards[key] = (len(moves), mass)
        return found

    def sample(self, rng: random.Random, count: int = BATCH) -> list[Deal]:
        """``count`` deals drawn in proportion to their weights from ``count``
        uniform samples (systematic resampling; uniform ones when the plays
        tell nothing)."""
        worlds = [determinize(self.obs, rng) for _ in range(count)]
        if not self.informative:
            return worlds
        logs = [self.log_weight(w) for w in worlds]
        top = max(logs)
        weights = [math.exp(x - top) for x in logs]
        step = sum(weights) / count
        out: list[Deal] = []
        point = rng.random() * step
        acc = 0.0
        for world, w in zip(worlds, weights, strict=True):
            acc += w
            copies = 0  # a deal drawn twice is played twice: each play its own copy
            while point < acc and len(out) < count:
                out.append(world.copy() if copies else world)
                copies += 1
                point += step
        while len(out) < count:  # rounding at the end
            out.append(worlds[-1].copy())
        return out
