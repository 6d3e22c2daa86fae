"""What several commands share: argument types, the variant options, engines.

Argument types raise argparse.ArgumentTypeError, so a bad value is a usage
error that names the option; everything else raises ArenaError.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TypeAlias

from arena.errors import ConfigError
from arena.match.settings import (
    EngineSpec,
    SandboxMode,
    SandboxSettings,
    parse_duration,
    parse_engine,
)
from arena.rules import Game, Variant

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def positive(text: str) -> int:
    """A whole number of at least 1 (targets, rounds, strikes, deals)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def whole(text: str) -> int:
    """A whole number of at least 0 (a delay in plays)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} cannot be negative")
    return value


def duration(text: str) -> float:
    """Seconds: ``1s``, ``250ms``, ``2m`` or a bare number, read by the one
    duration parser so the command line and tournament files agree."""
    try:
        return parse_duration(text)
    except ConfigError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def parse_engines(texts: Sequence[str] | None) -> list[EngineSpec]:
    """Every ``--engine NAME=SPEC`` through the one engine-spec parser."""
    return [parse_engine(text) for text in texts or []]


def add_variant_options(p: argparse.ArgumentParser) -> None:
    games = ", ".join(g.value for g in Game)
    p.add_argument("--variant", default="scopa", help=f"game to play: {games} (default scopa)")
    p.add_argument("--target", type=positive, default=11, help="points to win (default 11)")
    p.add_argument(
        "--deals", type=positive, default=None, help="end after this many deals at the latest"
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
    p.add_argument(
        "--re-bello",
        action="store_true",
        help="regional option: the king of Denari scores a point, as the settebello",
    )
    p.add_argument(
        "--napola",
        action="store_true",
        help="regional option: ace, 2 and 3 of Denari captured score 3, plus 1 per further "
        "Denari in sequence",
    )
    p.add_argument(
        "--napoleone",
        action="store_true",
        help="with --napola or --piccola: taking all ten Denari in a deal wins the match",
    )
    p.add_argument(
        "--fifteen",
        action="store_true",
        help="scopa a quindici: a card takes table cards that add up to 15 with it, and only those",
    )
    p.add_argument(
        "--fifteen-ordinary",
        action="store_true",
        help="with --fifteen: the ordinary captures stand too, the player's choice (as in Cirulla)",
    )
    p.add_argument(
        "--opening-fifteen",
        action="store_true",
        help="Cirulla's deal: an opening table of 15 (30) is the dealer's, one scopa (two)",
    )
    p.add_argument(
        "--aces-void",
        action="store_true",
        help="Cirulla's deal: two or more aces among the opening table cards void the deal",
    )
    p.add_argument(
        "--piccola",
        action="store_true",
        help="Cirulla's piccola: ace, 2 and 3 of Denari score 3, +1 per further card to the 5",
    )
    p.add_argument(
        "--grande",
        action="store_true",
        help="Cirulla's grande: Fante, Cavallo, Re of Denari score 5, 6 with the 7, 7 with the 6",
    )
    p.add_argument(
        "--declarations",
        action="store_true",
        help="Cirulla's declarations: a packet adding up to 9 or less (cirulla, 3 points) or "
        "of three equal values (decino, 10) may be declared with its first card",
    )
    p.add_argument(
        "--matta",
        action="store_true",
        help="Cirulla's matta: the 7 of Coppe counts as any value in a declaration and in the "
        "opening table's 15 or 30",
    )
    p.add_argument(
        "--last-sweep",
        action="store_true",
        help="regional option: a sweep with the deal's very last card scores a scopa too",
    )
    p.add_argument(
        "--ace-takes-all",
        action="store_true",
        help="regional option (scopa d'assi): an ace takes the whole table when no ace is on it",
    )
    p.add_argument(
        "--ace-sweep-scores",
        action="store_true",
        help="with --ace-takes-all (asso piglia tutto): the ace's sweep scores a scopa",
    )


def variant_from_args(args: argparse.Namespace) -> Variant:
    return Variant(
        game=Game.parse(args.variant),
        target=args.target,
        deal_limit=args.deals,
        fewest_cards=args.fewest_cards,
        leftovers_to_last_player=args.leftovers_to_last_player,
        re_bello=args.re_bello,
        napola=args.napola,
        last_sweep=args.last_sweep,
        ace_takes_all=args.ace_takes_all,
        ace_sweep_scores=args.ace_sweep_scores,
        napoleone=args.napoleone,
        fifteen=args.fifteen,
        fifteen_ordinary=args.fifteen_ordinary,
        opening_fifteen=args.opening_fifteen,
        aces_void=args.aces_void,
        piccola=args.piccola,
        grande=args.grande,
        declarations=args.declarations,
        matta=args.matta,
    )


def add_sandbox_options(p: argparse.ArgumentParser) -> None:
    """How launched bots are confined (docs/writing-a-bot.md, "Your bot's sandbox")."""
    modes = [m.value for m in SandboxMode]
    p.add_argument(
        "--sandbox",
        choices=modes,
        default=None,
        help="run launched bots in a bubblewrap sandbox: auto (default: when it is usable "
        "here, else unconfined with a warning), on (refuse without it), off",
    )
    p.add_argument(
        "--memory-limit", type=positive, default=None, metavar="MIB", help="per bot (default 1024)"
    )
    p.add_argument(
        "--process-limit",
        type=positive,
        default=None,
        metavar="N",
        help="processes and threads per bot (default 64)",
    )
    p.add_argument(
        "--disk-limit",
        type=positive,
        default=None,
        metavar="MIB",
        help="each of a bot's private /tmp and HOME (default 64)",
    )


def sandbox_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The sandbox options given, as a tournament file's [sandbox] table."""
    given = {
        "mode": args.sandbox,
        "memory_mib": args.memory_limit,
        "processes": args.process_limit,
        "disk_mib": args.disk_limit,
    }
    return {key: value for key, value in given.items() if value is not None}


def sandbox_from_args(args: argparse.Namespace) -> SandboxSettings:
    from arena.tournament.config import sandbox_settings

    return sandbox_settings(sandbox_overrides(args), "command line", SandboxSettings())
