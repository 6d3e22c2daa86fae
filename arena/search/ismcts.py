"""Information-set Monte Carlo tree search (ISMCTS), single observer.

One tree over the searching seat's information set (Cowling, Powley and
Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012; the
form Di Palma and Lanzi play Scopone with). Each iteration deals the cards
the seat has not seen at random, consistent with everything it has seen
(arena.rules.determinize), and walks the one tree with that deal: a node's
children are moves, a child is eligible only when its move is legal in this
deal, and it is chosen by UCB1 with availability counts (a move that was
seldom possible is not penalised for being seldom tried). One new node per
iteration; below it the deal is played out uniformly at random on the rules
engine's fast path (Deal.random_playout); the deal's outcome is backed up,
each node crediting the side whose move led to it.

The reward is the deal's point difference for that side, divided by
``REWARD_SCALE`` (engines/ismcts/README.md says why deal points and not deal
wins, with what was measured). Every deal is searched on its own: the match
score does not change which move is best often enough to pay for a model of
it at these budgets.

A cheating variant sees every hand (``hands``): then the only unknown is the
stock's order, and the same tree is plain UCT over that one deal. It is a
research upper bound, never a competitor (arena.strategies keeps it out of
competitions).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from arena.rules import Move, Observation
from arena.rules.cards import BIT, DECK_SIZE
from arena.rules.deal import Deal
from arena.rules.determinize import determinize

# Deal points a side can make beyond the other's, on a typical spread: the
# reward's unit, so that UCB's exploration constant reads in the same terms.
REWARD_SCALE = 4.0
REWARDS = ("points", "win")
EXPLORATION = 0.7  # UCB1's c, over rewards in units of REWARD_SCALE (measured: README)


class Node:
    """One move in the tree, reached from its parent; ``side`` made it."""

    __slots__ = ("available", "children", "parent", "side", "total", "visits")

    def __init__(self, parent: Node | None, side: int) -> None:
        self.parent = parent
        self.side = side
        self.children: dict[tuple[int, int], Node] = {}
        self.visits = 0
        self.available = 1  # iterations in which this node's move was legal
        self.total = 0.0  # reward for ``side``, summed over visits


@dataclass(frozen=True)
class SearchResult:
    """What a search found: per root move, its visits and mean reward (in
    deal points for the seat's side), and the iterations run."""

    moves: tuple[Move, ...]
    visits: tuple[int, ...]
    values: tuple[float, ...]  # mean deal-point difference for the seat's side
    iterations: int
    seconds: float

    @property
    def best(self) -> Move:
        """The most visited move (the robust child), its value breaking ties."""
        order = max(range(len(self.moves)), key=lambda i: (self.visits[i], self.values[i]))
        return self.moves[order]


def true_deal(obs: Observation, hands: Sequence[int], rng: random.Random) -> Deal:
    """The deal as a seat that sees every hand knows it: the hands as they
    are, only the stock's order drawn (nobody may know it)."""
    deal = determinize(obs, rng)
    deal.hands = list(hands)
    stock = sorted(set(range(DECK_SIZE)) - _known(deal))
    rng.shuffle(stock)
    deal.deck = deal.deck[: deal.stock_pos] + stock
    return deal


def _known(deal: Deal) -> set[int]:
    """Cards out of the stock: in a hand, on the table, or played."""
    out = deal.table
    for h in deal.hands:
        out |= h
    for p in deal.plays:
        out |= BIT[p.card] | p.captures
    return {c for c in range(DECK_SIZE) if out >> c & 1}


def search(
    obs: Observation,
    moves: Sequence[Move],
    rng: random.Random,
    *,
    iterations: int | None = None,
    seconds: float | None = None,
    hands: Sequence[int] | None = None,
    exploration: float = EXPLORATION,
    reward: str = "points",
) -> SearchResult:
    """Search the seat's position for at most ``iterations`` iterations and at
    most ``seconds`` (at least one of them; at least one iteration).

    ``hands`` (every seat's hand) makes it the cheating variant. ``reward``:
    "points", the deal's point difference over REWARD_SCALE, or "win", the
    deal won (1), tied (0) or lost (-1)."""
    if iterations is None and seconds is None:
        raise ValueError("search needs iterations, seconds or both")
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
    by_points = reward == "points"
    start = time.perf_counter()
    deadline = start + seconds if seconds is not None else math.inf
    limit = iterations if iterations is not None else 1 << 62
    root = Node(None, -1)
    scale = 1.0 / REWARD_SCALE
    log, sqrt = math.log, math.sqrt
    uniform = rng.random
    done = 0
    while done < limit:
        deal = true_deal(obs, hands, rng) if hands is not None else determinize(obs, rng)
        node = root
        # Selection and expansion: down the tree along moves legal in this deal.
        while deal.to_move is not None:
            legal = deal.legal_moves()
            children = node.children
            untried = []
            best, best_score = None, -math.inf
            for move in legal:
                child = children.get(move)
                if child is None:
                    untried.append(move)
                    continue
                child.available += 1
                if not untried:
                    score = child.total / child.visits + exploration * sqrt(
                        log(child.available) / child.visits
                    )
                    if score > best_score:
                        best, best_score = move, score
            mover = deal.to_move & 1
            if untried:
                move = untried[int(uniform() * len(untried))]
                child = children[move] = Node(node, mover)
                deal.play_unchecked(move)
                node = child
                break
            assert best is not None
            deal.play_unchecked(best)
            node = children[best]
        # Simulation: the rest of the deal at random, on the fast path.
        points = deal.random_playout(uniform)
        margin = points[0] - points[1]
        diff = margin * scale if by_points else float((margin > 0) - (margin < 0))
        # Backpropagation: each node credits the side that made its move.
        while node is not root:
            node.visits += 1
            node.total += diff if node.side == 0 else -diff
            parent = node.parent
            assert parent is not None
            node = parent
        root.visits += 1
        done += 1
        if (done & 15) == 0 and time.perf_counter() >= deadline:
            break
    found = [root.children.get(m) for m in moves]
    return SearchResult(
        moves=tuple(moves),
        visits=tuple(n.visits if n else 0 for n in found),
        values=tuple(n.total / n.visits * REWARD_SCALE if n and n.visits else 0.0 for n in found),
        iterations=done,
        seconds=time.perf_counter() - start,
    )
