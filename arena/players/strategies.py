"""Built-in playing strategies: uniformly random, a greedy heuristic, and the
registry of every built-in player (``builtin:NAME``), thinking ones included.

A strategy sees what a bot sees, an Observation and the legal moves, and
returns one of the moves. The example engines in engines/ serve these same
strategies over gRPC.
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.errors import ConfigError
from arena.rules import Move, Observation, Strategy
from arena.rules.cards import DENARI_MASK, PRIMIERA, RANK, SETTEBELLO, cards_of


def random_strategy(rng: _random.Random) -> Strategy:
    """Each legal move with equal probability."""

    def choose(obs: Observation, moves: list[Move]) -> Move:
        return moves[int(rng.random() * len(moves))]

    return choose


# Weights of the greedy heuristic, in points of a deal: a scopa is a point
# outright; the settebello is a point; denari, cards and primiera cards are
# shares of points the side is racing for.
SCOPA_VALUE = 1.0
SETTEBELLO_VALUE = 0.9
DENARO_VALUE = 0.12
CARD_VALUE = 0.05
SWEEP_RISK = 0.6  # expected loss when the table left behind can be swept


def card_value(c: int) -> float:
    """A card's worth to the side that takes it, in points of a deal."""
    value = CARD_VALUE + (PRIMIERA[c] - 10) * 0.012
    if DENARI_MASK >> c & 1:
        value += DENARO_VALUE
    if c == SETTEBELLO:
        value += SETTEBELLO_VALUE
    return value


def move_value(obs: Observation, move: Move) -> float:
    """How good a move looks to a one-ply reader of the table."""
    card, taken = move
    last_play = obs.stock_count == 0 and sum(obs.hand_sizes) == 1
    if taken:
        value = sum(card_value(c) for c in cards_of(taken | 1 << card))
        table_after = obs.table & ~taken
        if not table_after and not last_play:
            return value + SCOPA_VALUE
    else:
        # Laying a card hands it to whoever takes it next.
        value = -0.5 * card_value(card)
        table_after = obs.table | 1 << card
    if table_after and not last_play:
        total = sum(RANK[c] for c in cards_of(table_after))
        if total <= 10:
            value -= SWEEP_RISK
        # A lone 7 or denaro on the table invites a capture.
        value -= 0.3 * sum(card_value(c) for c in cards_of(table_after))
    return value


def greedy_strategy(rng: _random.Random | None = None) -> Strategy:
    """The move with the best one-ply value; ties broken at random (or by order)."""

    def choose(obs: Observation, moves: list[Move]) -> Move:
        scored = [(move_value(obs, m), i) for i, m in enumerate(moves)]
        best = max(v for v, _ in scored)
        ties = [moves[i] for v, i in scored if v >= best - 1e-9]
        return ties[int(rng.random() * len(ties))] if rng else ties[0]

    return choose


@dataclass(frozen=True)
class BuiltIn:
    """One built-in player: how to make it for a seat (a generator seeded per
    match and seat, and its options as words of a command line), and what
    the connection must hand it beyond an observation."""

    name: str
    summary: str
    make: Callable[[_random.Random, Sequence[str]], Strategy]
    thinks: bool = False  # called with clock=the seat's clock
    sees_every_hand: bool = False  # called with hands=every hand: never a competitor

    def __call__(self, rng: _random.Random, options: Sequence[str] = ()) -> Strategy:
        return self.make(rng, options)

    def check(self, options: Sequence[str]) -> None:
        """ConfigError unless the options are the player's own."""
        self.make(_random.Random(0), options)


def _plain(factory: Callable[[_random.Random], Strategy], name: str):  # type: ignore[no-untyped-def]
    def make(rng: _random.Random, options: Sequence[str]) -> Strategy:
        if options:
            raise ConfigError(f"builtin:{name} takes no options, not {' '.join(options)!r}")
        return factory(rng)

    return make


def _traditional(rng: _random.Random) -> Strategy:
    from arena.players.traditional import traditional_strategy  # loads only when played

    return traditional_strategy(rng)


def _search(which: str):  # type: ignore[no-untyped-def]
    def make(rng: _random.Random, options: Sequence[str]) -> Strategy:
        from arena.players.search import players  # the search engines load only when used

        return getattr(players, which)(rng, options)  # type: ignore[no-any-return]

    return make


BUILT_IN: dict[str, BuiltIn] = {
    b.name: b
    for b in (
        BuiltIn(
            "random", "each legal move with equal probability", _plain(random_strategy, "random")
        ),
        BuiltIn(
            "greedy", "the best one-ply reading of the table", _plain(greedy_strategy, "greedy")
        ),
        BuiltIn(
            "traditional",
            "Chitarrella's and Saracino's rules for Scopone, in order of priority",
            _plain(_traditional, "traditional"),
        ),
        BuiltIn(
            "search",
            "determinized flat Monte Carlo (--think S, --iterations N)",
            _search("flat_player"),
            thinks=True,
        ),
        BuiltIn(
            "ismcts",
            "information-set MCTS (--think S, --iterations N, --exploration C)",
            _search("ismcts_player"),
            thinks=True,
        ),
        BuiltIn(
            "cheating-mcts",
            "MCTS that sees every hand: a research upper bound, never a competitor",
            _search("cheating_player"),
            thinks=True,
            sees_every_hand=True,
        ),
    )
}
"""Every built-in player by name (``builtin:NAME [OPTIONS]``)."""


def sees_every_hand(spec: str) -> bool:
    """Whether an engine spec (as a store or log keeps it) names a built-in
    player that sees every hand."""
    if not spec.startswith("builtin:"):
        return False
    player = BUILT_IN.get(spec.removeprefix("builtin:").split(" ", 1)[0])
    return player is not None and player.sees_every_hand
