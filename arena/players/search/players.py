"""The thinking players, ready to sit at a table: options read like a command
line (``builtin:ismcts --think 0.1``, ``engines/ismcts/bot.py --think 0.1``),
and a think time taken from the seat's own clock.

Each player is a strategy (Observation, legal moves -> move) that also takes
the seat's clock by keyword, and, for the cheating player alone, every hand.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, overload

from arena.errors import ConfigError
from arena.players.search import flat, ismcts
from arena.rules import Move, Observation
from arena.rules.cards import DECK_SIZE

DEFAULT_THINK = 0.2  # seconds a move at most, when neither --think nor --iterations is given
# The share of a decision's deadline a player may think: the rest is for the
# wire, the referee and a busy machine, so that it never times out.
DEADLINE_SHARE = 0.5
# Later deals the bank must still last for, in this deal's worth of moves.
RESERVE_DEALS = 2
INCREMENT_SHARE = 0.8


class Clock(Protocol):
    """What a player reads of its clock (arena.match.engine.SeatClock has these)."""

    @property
    def deadline(self) -> float: ...
    @property
    def bank(self) -> float | None: ...
    @property
    def increment(self) -> float: ...


def think_time(obs: Observation, clock: Clock | None, cap: float | None) -> float | None:
    """Seconds to think at this decision: at most ``cap``, at most half the
    deadline, and with a bank at most its share over the moves the seat still
    has to make (this deal's, and ``RESERVE_DEALS`` deals more) plus most of
    the increment. None: no limit at all (no clock and no cap)."""
    limits = [] if cap is None else [cap]
    if clock is not None:
        if clock.deadline > 0:  # 0: told no limit
            limits.append(clock.deadline * DEADLINE_SHARE)
        if clock.bank is not None:
            seats = len(obs.hand_sizes)
            moves_left = obs.hand_sizes[obs.seat] + obs.stock_count // seats
            moves_left += RESERVE_DEALS * DECK_SIZE // seats
            limits.append(clock.bank / moves_left + clock.increment * INCREMENT_SHARE)
    return max(0.0, min(limits)) if limits else None


@dataclass(frozen=True)
class ThinkOptions:
    """How long a player thinks: a cap in seconds, a number of iterations, or both
    (whichever ends first; the clock can only shorten it)."""

    think: float | None
    iterations: int | None
    exploration: float = ismcts.EXPLORATION
    reward: str = "points"
    capture_bias: float = ismcts.CAPTURE_BIAS
    care: float = ismcts.CARE
    sweep: float = ismcts.SWEEP
    paired: bool = ismcts.PAIRED
    depth: int = ismcts.DEPTH
    infer: float = ismcts.INFER
    solve: bool = ismcts.SOLVE
    horizon: int = ismcts.HORIZON


def _positive(kind: type[int] | type[float], zero: bool = False):  # type: ignore[no-untyped-def]
    def read(text: str) -> int | float:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if value < 0 or (value == 0 and not zero):
            kind_of = "at least 0" if zero else "positive"
            raise argparse.ArgumentTypeError(f"must be {kind_of}, not {text}")
        return value

    return read


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ConfigError(f"{self.prog}: {message}")


def think_parser(name: str, exploration: bool = True) -> argparse.ArgumentParser:
    parser = _Parser(prog=f"builtin:{name}", add_help=False)
    parser.add_argument(
        "--think",
        type=_positive(float),
        default=None,
        help=f"seconds a move at most (default {DEFAULT_THINK}, or none with --iterations)",
    )
    parser.add_argument(
        "--iterations", type=_positive(int), default=None, help="iterations a move at most"
    )
    if exploration:
        parser.add_argument(
            "--exploration",
            type=_positive(float),
            default=ismcts.EXPLORATION,
            help=f"UCB1's constant (default {ismcts.EXPLORATION})",
        )
        parser.add_argument(
            "--reward",
            choices=ismcts.REWARDS,
            default="points",
            help="what a playout is worth: the deal's point difference (default) or its result",
        )
        parser.add_argument(
            "--capture-bias",
            type=float,
            default=ismcts.CAPTURE_BIAS,
            help="how often a playout captures when it can "
            f"(default {ismcts.CAPTURE_BIAS}; 0: uniform)",
        )
        parser.add_argument(
            "--care",
            type=float,
            default=ismcts.CARE,
            help="how often a playout avoids leaving a table one card sweeps "
            f"(default {ismcts.CARE})",
        )
        parser.add_argument(
            "--sweep",
            type=float,
            default=ismcts.SWEEP,
            help=f"how often a playout sweeps the table when it can (default {ismcts.SWEEP})",
        )
        parser.add_argument(
            "--paired",
            action=argparse.BooleanOptionalAction,
            default=ismcts.PAIRED,
            help="try every root move on each sampled deal, rather than choose by UCB1",
        )
        parser.add_argument(
            "--depth",
            type=_positive(int),
            default=ismcts.DEPTH,
            help="plies the tree may grow below the root (default: the whole deal)",
        )
        parser.add_argument(
            "--infer",
            type=_positive(float, zero=True),
            default=ismcts.INFER,
            help="how far the other seats' plays weigh the sampled deals "
            f"(default {ismcts.INFER}; 0: uniform samples)",
        )
        parser.add_argument(
            "--solve",
            action=argparse.BooleanOptionalAction,
            default=ismcts.SOLVE,
            help="solve the end of a deal exactly once every hand is known (default on)",
        )
        # The cheating player sees the hands the estimate averages over: it
        # plays to the end unless told otherwise (a bound, not a competitor).
        horizon = 0 if name == "cheating-mcts" else ismcts.HORIZON
        parser.add_argument(
            "--horizon",
            type=_positive(int, zero=True),
            default=horizon,
            help="packets a playout deals before it stops and the deal is valued by its "
            f"expected points (default {horizon}; 0: play to the end)",
        )
    return parser


@overload
def think_options(
    name: str, argv: Sequence[str], exploration: bool = ..., *, rest: Literal[False] = ...
) -> ThinkOptions: ...
@overload
def think_options(
    name: str, argv: Sequence[str], exploration: bool = ..., *, rest: Literal[True]
) -> tuple[ThinkOptions, list[str]]: ...
def think_options(
    name: str, argv: Sequence[str], exploration: bool = True, *, rest: bool = False
) -> ThinkOptions | tuple[ThinkOptions, list[str]]:
    """The options of a thinking player; ConfigError naming the bad one.
    ``rest``: also return the words that are not its own (a bot's --listen)."""
    args, others = think_parser(name, exploration).parse_known_args(list(argv))
    if others and not rest:
        raise ConfigError(f"builtin:{name}: unknown option {others[0]!r}")
    think = args.think
    if think is None and args.iterations is None:
        think = DEFAULT_THINK
    options = ThinkOptions(
        think,
        args.iterations,
        getattr(args, "exploration", ismcts.EXPLORATION),
        getattr(args, "reward", "points"),
        getattr(args, "capture_bias", ismcts.CAPTURE_BIAS),
        getattr(args, "care", ismcts.CARE),
        getattr(args, "sweep", ismcts.SWEEP),
        getattr(args, "paired", ismcts.PAIRED),
        getattr(args, "depth", ismcts.DEPTH),
        getattr(args, "infer", ismcts.INFER),
        getattr(args, "solve", ismcts.SOLVE),
        getattr(args, "horizon", ismcts.HORIZON),
    )
    return (options, others) if rest else options


class IsmctsPlayer:
    """Information-set MCTS at a seat (arena.players.search.ismcts)."""

    def __init__(self, rng: random.Random, options: ThinkOptions, cheating: bool = False) -> None:
        self.rng = rng
        self.options = options
        self.cheating = cheating
        self.last: ismcts.SearchResult | None = None  # the latest search, for tests and benches

    def __call__(
        self,
        obs: Observation,
        moves: list[Move],
        *,
        clock: Clock | None = None,
        hands: Sequence[int] | None = None,
    ) -> Move:
        if len(moves) == 1:
            return moves[0]
        if self.cheating and hands is None:
            raise ConfigError("the cheating player was not shown the hands")
        seconds = think_time(obs, clock, self.options.think)
        result = ismcts.search(
            obs,
            moves,
            self.rng,
            iterations=self.options.iterations,
            seconds=seconds,
            hands=hands if self.cheating else None,
            exploration=self.options.exploration,
            reward=self.options.reward,
            capture_bias=self.options.capture_bias,
            care=self.options.care,
            sweep=self.options.sweep,
            paired=self.options.paired,
            depth=self.options.depth,
            infer=self.options.infer,
            solve=self.options.solve,
            horizon=self.options.horizon,
        )
        self.last = result
        return result.best


class FlatPlayer:
    """Determinized flat Monte Carlo at a seat (arena.players.search.flat)."""

    def __init__(self, rng: random.Random, options: ThinkOptions) -> None:
        self.rng = rng
        self.options = options

    def __call__(self, obs: Observation, moves: list[Move], *, clock: Clock | None = None) -> Move:
        if len(moves) == 1:
            return moves[0]
        seconds = think_time(obs, clock, self.options.think)
        values = flat.evaluate(obs, moves, self.rng, seconds, self.options.iterations)
        return moves[max(range(len(moves)), key=values.__getitem__)]


def ismcts_player(rng: random.Random, argv: Sequence[str] = ()) -> IsmctsPlayer:
    return IsmctsPlayer(rng, think_options("ismcts", argv))


def cheating_player(rng: random.Random, argv: Sequence[str] = ()) -> IsmctsPlayer:
    return IsmctsPlayer(rng, think_options("cheating-mcts", argv), cheating=True)


def flat_player(rng: random.Random, argv: Sequence[str] = ()) -> FlatPlayer:
    return FlatPlayer(rng, think_options("search", argv, exploration=False))
