"""`arena play`, `arena match` and `arena demo`: one match at a time."""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import secrets
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from arena.cli import exits, signals
from arena.cli.common import (
    Subparsers,
    add_sandbox_options,
    add_variant_options,
    duration,
    parse_engines,
    positive,
    sandbox_from_args,
    sandbox_overrides,
    variant_from_args,
    whole,
)
from arena.errors import ConfigError
from arena.match.report import report_text
from arena.match.settings import (
    ClockSettings,
    EngineSpec,
    FaultPolicy,
    HumanEngine,
    MatchSettings,
    OnFault,
    ProbeSeats,
    ProbeSettings,
    SandboxSettings,
    Substitute,
)
from arena.rules import Game, Variant

if TYPE_CHECKING:
    from arena.match.outcome import MatchReport, Termination

ROOT = Path(__file__).resolve().parents[2]  # the checkout: engines/ and examples/


def cmd_play(args: argparse.Namespace) -> int:
    from arena.match.report import match_summary
    from arena.players.strategies import BUILT_IN
    from arena.rules import Match, play_match

    variant = variant_from_args(args)
    names = args.seat or ["greedy", "random", "greedy"][: max(2, variant.sides)]
    if len(names) == 2 and variant.game.is_team_game:
        names = names * (variant.seats // 2)  # each strategy plays every seat of its side
    if len(names) != variant.seats:
        raise ConfigError(f"{variant.game.value} needs {variant.seats} --seat options")
    strategies = []
    for i, name in enumerate(names):
        if name not in BUILT_IN:
            known = ", ".join(BUILT_IN)
            raise ConfigError(f"unknown strategy {name!r} for seat {i}; known: {known}")
        if BUILT_IN[name].sees_every_hand:
            raise ConfigError(
                f"{name} sees every hand, which only a refereed match can show it: "
                f'arena match --engine "c=builtin:{name}" ...'
            )
        strategies.append(BUILT_IN[name](random.Random(f"{args.seed}/{i}")))
    match = play_match(Match(variant, seed=args.seed), strategies)
    print(match_summary(variant, names, match.finished, match.scores, match.winner))
    return 0


def probe_rate(text: str) -> float:
    try:
        rate = float(text)
    except ValueError:
        rate = math.nan
    if not 0 < rate <= 1:
        raise argparse.ArgumentTypeError(f"a share above 0 and at most 1, not {text!r}")
    return rate


def match_settings(
    variant: Variant,
    seed: int,
    *,
    clock: ClockSettings | None = None,
    policy: FaultPolicy | None = None,
    match_id: str | None = None,
    startup_timeout: float = 10.0,
    sandbox: SandboxSettings | None = None,
) -> MatchSettings:
    """Settings of a match started from the command line: a bot gets its
    start-up time again for the handshake."""
    if not match_id:
        from arena.wire.protocol import keyed_match_id

        # Not the seed itself: from the seed a bot could compute every deck (docs/seeds.md).
        # The shape of every id a bot is told, probes' included (docs/audit.md).
        match_id = keyed_match_id("scopa-arena/single-match-id", str(seed))
    return MatchSettings(
        variant,
        seed=seed,
        clock=clock or ClockSettings(),
        policy=policy or FaultPolicy(),
        match_id=match_id,
        startup_timeout=startup_timeout,
        handshake_timeout=startup_timeout,
        sandbox=sandbox or SandboxSettings(),
    )


def play_and_print(
    engines: Sequence[EngineSpec],
    settings: MatchSettings,
    *,
    log: Path | None = None,
    bot_output: Path | None = None,
    allow_shared_partners: bool = False,
) -> MatchReport:
    """Referee one match and print its summary; launched bots' output goes
    beside the log unless told otherwise."""
    import functools

    from arena.play import run_match

    report = signals.run(
        functools.partial(
            run_match,
            engines,
            settings,
            log=log,
            bot_output=bot_output or (log.parent if log else None),
            allow_shared_partners=allow_shared_partners,
        )
    )
    print(report_text(report))
    if log:
        print(f"log: {log}")
    return report


def match_status(termination: Termination) -> int:
    """The exit status of `arena match` for how its match ended (exits.EXIT_STATUSES)."""
    from arena.match.outcome import Termination

    return {
        Termination.COMPLETED: exits.OK,
        Termination.FORFEIT: exits.MATCH_FORFEIT,
        Termination.NO_CONTEST: exits.MATCH_NO_CONTEST,
        Termination.VOID: exits.INTERNAL,
        Termination.ABORTED: exits.INTERRUPTED,
    }[termination]


def cmd_match(args: argparse.Namespace) -> int:
    variant = variant_from_args(args)
    specs = parse_engines(args.engine)
    if len(specs) != variant.seats and not (variant.game.is_team_game and len(specs) == 2):
        raise ConfigError(
            f"{variant.game.value} needs {variant.seats} --engine options"
            + (" (or 2: each plays every seat of its side)" if variant.game.is_team_game else "")
        )
    clock = ClockSettings(
        move_time=args.move_time or None, bank=args.bank, increment=args.increment, grace=args.grace
    )
    policy = FaultPolicy(
        OnFault(args.on_fault), strikes=args.strikes, substitute=Substitute(args.substitute)
    )
    people = [s for s in specs if isinstance(s, HumanEngine)]
    if people and variant.game.is_team_game and len(specs) == 2:
        raise ConfigError(
            "a person takes one seat, never all of a side's (they would see their "
            f"partners' hands): give {variant.seats} engines"
        )
    if people and args.http is None:
        raise ConfigError(
            f"{people[0].name} is a person's seat: give --http HOST:PORT, where their "
            "page is served (e.g. --http 127.0.0.1:8000)"
        )
    if args.http is not None:
        from arena.web.serve import split_listen

        split_listen(args.http)  # a bad address is refused before anything starts
    seed = secrets.randbits(63) if args.seed is None else args.seed
    print(f"seed {seed}", flush=True)
    settings = match_settings(
        variant,
        seed,
        clock=clock,
        policy=policy,
        match_id=args.match_id,
        startup_timeout=args.startup_timeout,
        sandbox=sandbox_from_args(args),
    )
    if args.probes is not None:
        if variant.seats != 4:
            raise ConfigError("--probes needs a four-seat game (scopa4, scopone, scientifico)")
        from arena.wire.protocol import is_match_id

        if args.match_id and not is_match_id(args.match_id):
            raise ConfigError(
                "with --probes, --match-id takes the shape of the probes' ids, m and 16 "
                "lowercase hexadecimal digits (e.g. m0123456789abcdef): any other tells "
                "the bot which decisions are probes"
            )
        probes = ProbeSettings(rate=args.probes, seats=ProbeSeats(args.probe_seats))
        settings = dataclasses.replace(settings, probes=probes)
    if args.http is not None:
        return _host(args, specs, settings)
    report = play_and_print(
        specs,
        settings,
        log=Path(args.log) if args.log else None,
        bot_output=Path(args.bot_output) if args.bot_output else None,
        allow_shared_partners=args.allow_shared_partners,
    )
    return match_status(report.result.termination)


def _host(args: argparse.Namespace, specs: Sequence[EngineSpec], settings: MatchSettings) -> int:
    """`arena match --http`: the match with its table served in the browser."""
    import functools

    from arena.web.table import host_match

    def say(line: str) -> None:
        print(line, flush=True)

    report = signals.run(
        functools.partial(
            host_match,
            specs,
            settings,
            args.http,
            log=Path(args.log) if args.log else None,
            bot_output=Path(args.bot_output) if args.bot_output else None,
            allow_shared_partners=args.allow_shared_partners,
            spectator_delay=args.spectator_delay,
            linger=args.linger,
            announce=say,
        )
    )
    return match_status(report.result.termination)


def cmd_demo(args: argparse.Namespace) -> int:
    """Two real matches over gRPC between launched bot processes (Python and
    JavaScript), with their logs, as a first look at what the arena does."""
    from arena.cli.tournament import DEFAULT_RESAMPLES, play_tournament
    from arena.tournament.config import load_config

    if args.web is not None:
        from arena.web.serve import split_listen

        split_listen(args.web)  # a bad address is refused before the demo, not after
    engines = ROOT / "engines"
    out = Path(args.out)
    greedy = shlex.join([sys.executable, str(engines / "greedy" / "bot.py")])
    random_bot = shlex.join([sys.executable, str(engines / "random" / "bot.py")])
    js = shlex.join(["node", str(engines / "js" / "bot.js")])
    matches = [
        (
            "Scopa, greedy (Python) against random (Python)",
            Game.SCOPA,
            [f"greedy={greedy}", f"random={random_bot}"],
        ),
        (
            "Scopone, greedy (Python) against capture-most (JavaScript), one process per seat",
            Game.SCOPONE,
            [f"greedy={greedy}", f"js={js}"],
        ),
    ]
    for title, game, engine_texts in matches:
        print(f"== {title}\n")
        play_and_print(
            parse_engines(engine_texts),
            match_settings(
                Variant(game),
                args.seed,
                clock=ClockSettings(move_time=1.0),
                sandbox=sandbox_from_args(args),
            ),
            log=out / f"{game.value}-{args.seed}.log",
        )
        print()
    print("== A short round robin: random, greedy and the JavaScript bot, 4 duplicate pairs each\n")
    overrides = {"output": str(out / "tournament"), "sandbox": sandbox_overrides(args)}
    cfg = load_config(ROOT / "examples" / "demo.toml", overrides)
    play_tournament(cfg, resamples=DEFAULT_RESAMPLES)
    print(f"\nlogs and bot output in {out}/")
    if args.web is not None:
        from arena.cli.web import serve_directory

        args.server = True  # from here the demo serves a site: a stop is its ordinary end
        serve_directory(
            out / "tournament",
            args.web,
            announce="\nthe tournament's web site: {} (Ctrl-C to stop)",
        )
    else:
        print(
            "its web site: .venv/bin/arena demo --web, or "
            f".venv/bin/arena web {out / 'tournament'} --http 127.0.0.1:8080 "
            "(then open http://127.0.0.1:8080)"
        )
    return 0


def add_parsers(sub: Subparsers) -> None:
    demo = sub.add_parser(
        "demo", help="play two demonstration matches between launched bots over gRPC"
    )
    demo.add_argument(
        "--seed", type=int, default=1, help="match seed (default 1: the demo is reproducible)"
    )
    demo.add_argument("--out", default="out/demo", help="where logs go (default out/demo)")
    demo.add_argument(
        "--web",
        nargs="?",
        const="127.0.0.1:8080",
        default=None,
        metavar="HOST:PORT",
        help="then serve the tournament's web site (at 127.0.0.1:8080 unless given) until Ctrl-C",
    )
    add_sandbox_options(demo)
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
        help="strategy of the next seat, in seat order (random, greedy, search, ...); "
        "two given for a team game play every seat of their side (default: greedy "
        "against random; in scopa3 greedy, random, greedy)",
    )
    play.add_argument(
        "--seed", type=int, default=1, help="match seed (default 1: the same match every time)"
    )
    play.set_defaults(func=cmd_play)

    match = sub.add_parser(
        "match",
        help="referee one match between bots over gRPC",
        description=(
            "Referee one match between bots. Each --engine is NAME=SPEC, in seat order; "
            "SPEC is an address (HOST:PORT or unix:/PATH) of a running bot, a command line "
            "the arena launches (the bot prints LISTENING ADDRESS when ready), "
            "builtin:NAME (in-process: random, greedy, search, ismcts, ...), or human: a "
            "person, who plays in the browser (with --http; options --bank 5m "
            "--increment 10s --join 10m, the person's own clock and how long the seat "
            "waits for them). For team games give one engine a seat (4, or 6 in "
            "scopa6), or 2 bots: each then plays every seat of its side, one instance "
            "per seat."
        ),
        epilog=exits.EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_variant_options(match)
    match.add_argument(
        "--engine", action="append", metavar="NAME=SPEC", help="a seat's engine, in seat order"
    )
    match.add_argument(
        "--seed",
        type=int,
        default=None,
        help="match seed: decks and first dealer (default: a random one; printed either way)",
    )
    match.add_argument(
        "--match-id", default=None, help="id sent to bots (default: made from the seed, hiding it)"
    )
    match.add_argument(
        "--move-time",
        type=duration,
        default=1.0,
        help="limit per decision, e.g. 1s or 250ms (0: none)",
    )
    match.add_argument("--bank", type=duration, default=None, help="time bank per seat, e.g. 60s")
    match.add_argument(
        "--increment", type=duration, default=0.0, help="added to the bank per decision"
    )
    match.add_argument(
        "--grace", type=duration, default=0.05, help="network allowance per decision (default 50ms)"
    )
    match.add_argument(
        "--on-fault",
        choices=["lose", "substitute"],
        default="lose",
        help="lose: a faulting bot's side loses at once (default); "
        "substitute: a legal move is played for it, and it forfeits after --strikes faults",
    )
    match.add_argument(
        "--strikes", type=positive, default=3, help="faults before forfeit (substitute)"
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
        "--startup-timeout", type=duration, default=10.0, help="time for a bot to become ready"
    )
    match.add_argument(
        "--allow-shared-partners",
        action="store_true",
        help="let one remote address serve two partner seats (it then sees both hands)",
    )
    match.add_argument(
        "--http",
        default=None,
        metavar="HOST:PORT",
        help="serve the match's table here: a page per human seat (its secret address "
        "is printed) and one for spectators (PORT 0: any free port)",
    )
    match.add_argument(
        "--spectator-delay",
        type=whole,
        default=0,
        metavar="PLAYS",
        help="with --http: the spectators' page shows the table this many plays behind",
    )
    match.add_argument(
        "--linger",
        type=duration,
        default=30.0,
        help="with --http: how long the table stays open after the match (default 30s)",
    )
    match.add_argument(
        "--probes",
        type=probe_rate,
        default=None,
        metavar="RATE",
        help="probe this share of partner seats' decisions for collusion (docs/audit.md), "
        "e.g. 0.25",
    )
    match.add_argument(
        "--probe-seats",
        choices=[s.value for s in ProbeSeats],
        default=ProbeSeats.REMOTE.value,
        help="with --probes: the seats whose partner is remote (default), or all",
    )
    add_sandbox_options(match)
    match.set_defaults(func=cmd_match)
