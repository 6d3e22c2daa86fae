"""Information-set Monte Carlo tree search (ISMCTS), single observer.

One tree over the searching seat's information set (Cowling, Powley and
Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012; the
form Di Palma and Lanzi play Scopone with). Each iteration deals the cards
the seat has not seen at random, consistent with everything it has seen
(arena.rules.determinize), and walks the one tree with that deal: a node's
children are moves, a child is eligible only when its move is legal in this
deal, and it is chosen by UCB1 with availability counts (a move that was
seldom possible is not penalised for being seldom tried). One new node per
iteration, its move drawn as the playouts draw theirs; below it the deal is
played out on the rules engine's fast path (Deal.random_playout, taking
something when it can four times in five); the deal's outcome is backed up,
each node crediting the side whose move led to it.

At the root, by default, every move is tried on each sampled deal
(``paired``): the seat's own moves are legal in every deal, so the root
needs no UCB, and comparing its moves on the same deals takes the luck of
the deal out of their difference, as flat Monte Carlo search does. The best
move is then the one with the best mean.

The sampled deals are weighted by what the other seats' plays say about
their hands (``infer``; arena.players.search.belief): a seat that left the
settebello on the table probably held no seven. The deals are drawn from
batches of uniform samples in proportion to that likelihood, so the tree
itself is unchanged.

The reward is the deal's point difference for that side, divided by
``REWARD_SCALE``. Every deal is searched on its own: the match score is not
modelled. engines/ismcts/README.md gives what each choice was measured at.

A cheating variant sees every hand (``hands``): then the only unknown is the
stock's order, and the same tree is plain UCT over that one deal. It is a
research upper bound, never a competitor (arena.players.strategies keeps it out of
competitions).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from arena.players.search import endgame
from arena.players.search.belief import Belief
from arena.players.search.estimate import expected_margin
from arena.rules import Move, Observation
from arena.rules.cards import DECK_SIZE
from arena.rules.deal import Deal
from arena.rules.determinize import determinize
from arena.rules.scoring import margin

# Deal points a side can make beyond the other's, on a typical spread: the
# reward's unit, so that UCB's exploration constant reads in the same terms.
REWARD_SCALE = 4.0
REWARDS = ("points", "win")
CAPTURE_BIAS = 0.8  # playouts take something when they can, this often (measured: README)
DEPTH = 64  # plies the tree may grow below the root (more than any deal has)
PAIRED = True  # every root move tried on each sampled deal (measured: README)
CARE = 0.0  # and leave no table one card sweeps, this often (measured: README)
SWEEP = 0.0  # and sweep the table when they can, this often (measured: README)
EXPLORATION = 0.7  # UCB1's c, over rewards in units of REWARD_SCALE (measured: README)
INFER = 1.0  # how far the other seats' plays weigh the sampled deals (arena.players.search.belief)
HORIZON = 1  # packets a playout deals before it is cut off and estimated; 0: to the end (README)
SOLVE = (
    True  # the end of a deal solved exactly once nothing is hidden (arena.players.search.endgame)
)


class Node:
    """One move in the tree, reached from its parent; ``side`` made it."""

    __slots__ = ("available", "children", "depth", "parent", "side", "total", "visits")

    def __init__(self, parent: Node | None, side: int) -> None:
        self.parent = parent
        self.side = side
        self.depth: int = 0 if parent is None else parent.depth + 1
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
    solved: bool = False  # the values are exact (arena.players.search.endgame): nothing was sampled

    @property
    def best(self) -> Move:
        """The most visited move (the robust child), its value breaking ties:
        searched ``paired``, every root move has the same visits, so the value decides."""
        order = max(range(len(self.moves)), key=lambda i: (self.visits[i], self.values[i]))
        return self.moves[order]


def true_deal(obs: Observation, hands: Sequence[int], rng: random.Random) -> Deal:
    """The deal as a seat that sees every hand knows it: the hands as they
    are, only the stock's order drawn (nobody may know it)."""
    deal = determinize(obs, rng)
    deal.hands = list(hands)
    known = _known(deal)
    stock = sorted(set(range(DECK_SIZE)) - known)
    rng.shuffle(stock)
    deal.deck = sorted(known) + stock  # the dealt part as these hands make it
    return deal


def _known(deal: Deal) -> set[int]:
    """Cards out of the stock: in a hand, on the table, or captured (every
    played card is on the table or in a pile, and so is the opening table,
    which the dealer may have taken without a play)."""
    out = deal.table
    for h in (*deal.hands, *deal.piles):
        out |= h
    return {c for c in range(DECK_SIZE) if out >> c & 1}


def _nothing_hidden(obs: Observation, hands: Sequence[int] | None) -> bool:
    """Whether the seat knows the rest of the deal's cards and it is small
    enough to solve: the stock is empty and the unseen cards are one seat's
    (or the seat is shown every hand)."""
    if hands is not None:
        return obs.stock_count == 0 and sum(obs.hand_sizes) <= endgame.MAX_CARDS
    return endgame.is_known(obs)


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
    capture_bias: float = CAPTURE_BIAS,
    care: float = CARE,
    sweep: float = SWEEP,
    paired: bool = PAIRED,
    depth: int = DEPTH,
    infer: float = INFER,
    solve: bool = SOLVE,
    horizon: int = HORIZON,
) -> SearchResult:
    """Search the seat's position for at most ``iterations`` iterations and at
    most ``seconds`` (at least one of them; at least one iteration; ``paired``,
    iterations come a sampled deal at a time, one per root move, so the count
    is rounded up to a whole number of deals).

    ``hands`` (every seat's hand) makes it the cheating variant. ``reward``:
    "points", the deal's point difference over REWARD_SCALE, or "win", the
    deal won (1), tied (0) or lost (-1). ``solve``: once the seat knows
    every hand (or sees them, cheating) and the rest is small, the exact
    values instead (arena.players.search.endgame). ``horizon``: playouts stop once
    that many more packets are dealt and the deal is valued by its expected
    points (arena.players.search.estimate; two sides, the points reward and no
    extra points of a variant only, else played to the end)."""
    if iterations is None and seconds is None:
        raise ValueError("search needs iterations, seconds or both")
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
    by_points = reward == "points"
    v = obs.variant
    if horizon and (
        not by_points or v.sides != 2 or v.re_bello or v.napola or v.piccola or v.grande
    ):
        horizon = 0  # the estimate is of two sides' points, without the variants' extras
    start = time.perf_counter()
    if solve and by_points and _nothing_hidden(obs, hands):
        world = determinize(obs, rng) if hands is None else true_deal(obs, hands, rng)
        return SearchResult(
            moves=tuple(moves),
            visits=(1,) * len(moves),
            values=tuple(float(v) for v in endgame.solve(world, moves)),
            iterations=0,
            seconds=time.perf_counter() - start,
            solved=True,
        )
    deadline = start + seconds if seconds is not None else math.inf
    limit = iterations if iterations is not None else 1 << 62
    root = Node(None, -1)
    scale = 1.0 / REWARD_SCALE
    log, sqrt = math.log, math.sqrt
    uniform = rng.random
    sides = obs.variant.sides
    side = obs.variant.side_of(obs.seat)
    done = 0

    def descend(deal: Deal, node: Node) -> None:
        """One iteration from ``node`` in ``deal``: down the tree along moves
        legal in this deal, one new node, a playout, and the outcome backed up."""
        # Selection and expansion.
        while deal.to_move is not None and node.depth < depth:
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
            mover = deal.to_move % sides
            if untried:
                # The new node's move as the playouts would choose it: a reply
                # tried first is a likely one, not any one.
                if sweep and deal.table:
                    table = deal.table
                    sweeps = [m for m in untried if m[1] == table]
                    if sweeps and uniform() < sweep:
                        untried = sweeps
                if capture_bias:
                    captures = [m for m in untried if m[1]]
                    if captures and uniform() < capture_bias:
                        untried = captures
                move = untried[int(uniform() * len(untried))]
                child = children[move] = Node(node, mover)
                deal.play_unchecked(move)
                node = child
                break
            assert best is not None
            deal.play_unchecked(best)
            node = children[best]
        # Simulation: the rest of the deal, on the fast path.
        points = deal.random_playout(uniform, capture_bias, care, sweep, horizon)
        if not points:  # cut off between packets
            diff = expected_margin(deal) * scale
            credit: tuple[float, ...] = (diff, -diff)
        elif sides == 2:
            lead = points[0] - points[1]
            diff = lead * scale if by_points else float((lead > 0) - (lead < 0))
            credit = (diff, -diff)
        else:  # three players: each side's lead over the best of the others
            leads = [margin(points, s) for s in range(sides)]
            credit = tuple(m * scale if by_points else float((m > 0) - (m < 0)) for m in leads)
        # Backpropagation: each node credits the side that made its move.
        while node is not root:
            node.visits += 1
            node.total += credit[node.side]
            parent = node.parent
            assert parent is not None
            node = parent
        root.visits += 1

    belief = Belief(obs, infer) if hands is None and infer > 0 else None
    if belief is not None and not belief.informative:
        belief = None
    queue: list[Deal] = []
    firsts = [root.children.setdefault(m, Node(root, side)) for m in moves] if paired else []
    while done < limit:
        if hands is not None:
            world = true_deal(obs, hands, rng)
        elif belief is not None:
            if not queue:
                queue = belief.sample(rng)
            world = queue.pop()
        else:
            world = determinize(obs, rng)
        if paired:
            # Every root move on this same deal: their values differ by the
            # move, not by the cards dealt (common random numbers, as flat search).
            for move, first in zip(moves, firsts, strict=True):
                deal = world.copy()
                deal.play_unchecked(move)
                first.available += 1
                descend(deal, first)
            done += len(moves)
        else:
            descend(world, root)
            done += 1
        if ((done & 15) == 0 or paired) and time.perf_counter() >= deadline:
            break
    found = [root.children.get(m) for m in moves]
    return SearchResult(
        moves=tuple(moves),
        visits=tuple(n.visits if n else 0 for n in found),
        values=tuple(n.total / n.visits * REWARD_SCALE if n and n.visits else 0.0 for n in found),
        iterations=done,
        seconds=time.perf_counter() - start,
    )
