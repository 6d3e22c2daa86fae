"""The `arena` command line: a thin layer over the library.

Errors the user can act on (ArenaError) are printed as one line on stderr
with exit status 2; a traceback means a bug in the arena.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Iterator, Sequence

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


def _seconds(text: str) -> float:
    """``1s``, ``250ms``, ``1.5`` (seconds) or ``2m``."""
    t = text.strip().lower()
    scale = 1.0
    for suffix, factor in (("ms", 0.001), ("s", 1.0), ("m", 60.0)):
        if t.endswith(suffix):
            t, scale = t[: -len(suffix)], factor
            break
    try:
        value = float(t) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a duration like 1s or 250ms") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} cannot be negative")
    return value


def cmd_match(args: argparse.Namespace) -> int:
    from pathlib import Path

    import trio

    from arena.record import LogWriter
    from arena.referee import ClockSettings, FaultPolicy, MatchSettings, OnFault, Referee
    from arena.transport.spec import EngineSpec, open_seats

    variant = variant_from_args(args)
    specs = [EngineSpec.parse(e) for e in args.engine or []]
    if len(specs) == 2 and variant.seats == 4:
        specs = [specs[0], specs[1], specs[0], specs[1]]  # one instance per seat
    if len(specs) != variant.seats:
        raise ConfigError(
            f"{variant.game.value} needs {variant.seats} --engine options"
            + (" (or 2: each plays both seats of its side)" if variant.seats == 4 else "")
        )
    clock = ClockSettings(
        move_time=args.move_time or None, bank=args.bank, increment=args.increment, grace=args.grace
    )
    policy = FaultPolicy(OnFault(args.on_fault), strikes=args.strikes, substitute=args.substitute)
    match_id = args.match_id or f"match-{args.seed}"
    settings = MatchSettings(
        variant,
        seed=args.seed,
        clock=clock,
        policy=policy,
        match_id=match_id,
        handshake_timeout=args.startup_timeout,
    )
    log_path = Path(args.log) if args.log else None
    output_dir = (
        Path(args.bot_output) if args.bot_output else (log_path.parent if log_path else None)
    )

    async def run() -> object:
        async with open_seats(
            specs,
            match_id=match_id,
            output_dir=output_dir,
            startup_timeout=args.startup_timeout,
            allow_shared_partners=args.allow_shared_partners,
        ) as seats:
            for conn in seats:
                if isinstance(conn, ConfigError):
                    raise conn
            log = LogWriter(log_path) if log_path else None
            return await Referee(settings, seats, [s.name for s in specs], log).run()

    report = trio.run(run)
    from arena.referee import MatchReport

    assert isinstance(report, MatchReport)
    result = report.result
    extra = [f"termination: {result.termination.value} ({result.reason})"]
    extra += [f"fault: {f}" for f in result.faults]
    if log_path:
        extra.append(f"log: {log_path}")
    names = [e.name for e in report.engines]
    print(match_summary(variant, names, report.deals, result.final_scores, result.winner, extra))
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    """Two real matches over gRPC between launched bot processes (Python and
    JavaScript), with their logs, as a first look at what the arena does."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    engines = root / "engines"
    out = Path(args.out)
    python = f"{sys.executable} {engines / 'greedy' / 'bot.py'}"
    random_bot = f"{sys.executable} {engines / 'random' / 'bot.py'}"
    js = f"node {engines / 'js' / 'bot.js'}"
    matches = [
        (
            "Scopa, greedy (Python) against random (Python)",
            "scopa",
            [f"greedy={python}", f"random={random_bot}"],
        ),
        (
            "Scopone, greedy (Python) against capture-most (JavaScript), one process per seat",
            "scopone",
            [f"greedy={python}", f"js={js}"],
        ),
    ]
    parser = build_parser()
    for title, variant, engine_args in matches:
        print(f"== {title}\n")
        argv = [
            "match",
            "--variant",
            variant,
            "--seed",
            str(args.seed),
            "--move-time",
            "1s",
            "--log",
            str(out / f"{variant}-{args.seed}.log"),
        ]
        for e in engine_args:
            argv += ["--engine", e]
        cmd_match(parser.parse_args(argv))
        print()
    print(f"logs and bot output in {out}/")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Referee, tournaments and replays for Scopa and Scopone bots.",
    )
    parser.add_argument("--version", action="version", version=f"arena {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser(
        "demo", help="play two demonstration matches between launched bots over gRPC"
    )
    demo.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
    demo.add_argument("--out", default="out/demo", help="where logs go (default out/demo)")
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

    match = sub.add_parser(
        "match",
        help="referee one match between bots over gRPC",
        description=(
            "Referee one match between bots. Each --engine is NAME=SPEC, in seat order; "
            "SPEC is an address (HOST:PORT or unix:/PATH) of a running bot, a command line "
            "the arena launches (the bot prints LISTENING ADDRESS when ready), or "
            "builtin:random / builtin:greedy (in-process). For 4-seat games give 4 engines, "
            "or 2: each then plays both seats of its side, one instance per seat."
        ),
    )
    add_variant_options(match)
    match.add_argument(
        "--engine", action="append", metavar="NAME=SPEC", help="a seat's engine, in seat order"
    )
    match.add_argument("--seed", type=int, default=1, help="match seed: decks and first dealer")
    match.add_argument("--match-id", default=None, help="id sent to bots (default match-SEED)")
    match.add_argument(
        "--move-time",
        type=_seconds,
        default=1.0,
        help="limit per decision, e.g. 1s or 250ms (0: none)",
    )
    match.add_argument("--bank", type=_seconds, default=None, help="time bank per seat, e.g. 60s")
    match.add_argument(
        "--increment", type=_seconds, default=0.0, help="added to the bank per decision"
    )
    match.add_argument(
        "--grace", type=_seconds, default=0.05, help="network allowance per decision (default 50ms)"
    )
    match.add_argument(
        "--on-fault",
        choices=["lose", "substitute"],
        default="lose",
        help="lose: a faulting bot's side loses at once (default); "
        "substitute: a legal move is played for it, and it forfeits after --strikes faults",
    )
    match.add_argument(
        "--strikes", type=_positive, default=3, help="faults before forfeit (substitute)"
    )
    match.add_argument(
        "--substitute", choices=["random", "first"], default="random", help="the substitute move"
    )
    match.add_argument("--log", default=None, metavar="FILE", help="write the match log here")
    match.add_argument(
        "--bot-output",
        default=None,
        metavar="DIR",
        help="where launched bots' stdout/stderr go (capped; default: beside the log)",
    )
    match.add_argument(
        "--startup-timeout", type=_seconds, default=10.0, help="time for a bot to become ready"
    )
    match.add_argument(
        "--allow-shared-partners",
        action="store_true",
        help="let one remote address serve two partner seats (it then sees both hands)",
    )
    match.set_defaults(func=cmd_match)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except (ArenaError, KeyboardInterrupt, BaseExceptionGroup) as e:
        # trio's nurseries wrap errors in groups: look inside for what to report.
        leaves = list(_leaves(e))
        if any(isinstance(x, KeyboardInterrupt) for x in leaves):
            print("arena: interrupted", file=sys.stderr)
            return 130
        if leaves and all(isinstance(x, ArenaError) for x in leaves):
            for x in dict.fromkeys(str(x) for x in leaves):
                print(f"arena: error: {x}", file=sys.stderr)
            return 2
        raise


def _leaves(error: BaseException) -> Iterator[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


if __name__ == "__main__":
    sys.exit(main())
