"""The `arena` command line: a thin layer over the library.

Errors the user can act on (ArenaError) are printed as one line on stderr
with exit status 2; a traceback means a bug in the arena.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence

from arena import __version__
from arena.errors import ArenaError, ConfigError
from arena.report import match_summary
from arena.rules import Game, Match, Variant, play_match
from arena.strategies import BUILT_IN


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def add_variant_options(p: argparse.ArgumentParser) -> None:
    games = ", ".join(g.value for g in Game)
    p.add_argument("--variant", default="scopa", help=f"game to play: {games} (default scopa)")
    p.add_argument("--target", type=_positive, default=11, help="points to win (default 11)")
    p.add_argument(
        "--deals", type=_positive, default=None, help="end after this many deals at the latest"
    )
    p.add_argument(
        "--fewest-cards",
        action="store_true",
        help="optional rule: a sum capture must use the fewest cards possible",
    )
    p.add_argument(
        "--leftovers-to-last-player",
        action="store_true",
        help="optional rule: leftover table cards go to the last player, not the last capturer",
    )


def variant_from_args(args: argparse.Namespace) -> Variant:
    return Variant(
        game=Game.parse(args.variant),
        target=args.target,
        deal_limit=args.deals,
        fewest_cards=args.fewest_cards,
        leftovers_to_last_player=args.leftovers_to_last_player,
    )


def cmd_play(args: argparse.Namespace) -> int:
    variant = variant_from_args(args)
    names = args.seat or ["greedy", "random"]
    if len(names) == 2 and variant.seats == 4:
        names = names * 2  # each strategy plays both seats of its side
    if len(names) != variant.seats:
        raise ConfigError(f"{variant.game.value} needs {variant.seats} --seat options")
    strategies = []
    for i, name in enumerate(names):
        if name not in BUILT_IN:
            known = ", ".join(BUILT_IN)
            raise ConfigError(f"unknown strategy {name!r} for seat {i}; known: {known}")
        strategies.append(BUILT_IN[name](random.Random(f"{args.seed}/{i}")))
    match = play_match(Match(variant, seed=args.seed), strategies)
    print(match_summary(variant, names, match.finished, match.scores, match.winner))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    print("Scopa Arena demo: greedy against random, in-process, 2-player Scopa to 11\n")
    args.variant, args.target, args.deals = "scopa", 11, None
    args.fewest_cards = args.leftovers_to_last_player = False
    args.seat = ["greedy", "random"]
    return cmd_play(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Referee, tournaments and replays for Scopa and Scopone bots.",
    )
    parser.add_argument("--version", action="version", version=f"arena {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser("demo", help="play a demonstration match")
    demo.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
    demo.set_defaults(func=cmd_demo)

    play = sub.add_parser(
        "play",
        help="play one match between built-in strategies, in-process",
        description="Play one match between built-in strategies (random, greedy) in-process.",
    )
    add_variant_options(play)
    play.add_argument(
        "--seat",
        action="append",
        metavar="STRATEGY",
        help="strategy of the next seat, in seat order (random or greedy); "
        "two given for a 4-seat game play both seats of their side",
    )
    play.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
    play.set_defaults(func=cmd_play)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except ArenaError as e:
        print(f"arena: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
