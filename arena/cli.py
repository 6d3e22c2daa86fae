"""The `arena` command line: a thin layer over the library.

Errors the user can act on (ArenaError) are printed as one line on stderr
with exit status 2; a traceback means a bug in the arena.
"""

from __future__ import annotations

import argparse
import json
import os
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
    from arena.referee import parse_duration

    try:
        return parse_duration(float(text) if _is_number(text) else text)
    except ConfigError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


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


def cmd_tournament(args: argparse.Namespace) -> int:
    from pathlib import Path

    import trio

    from arena.tournament.config import load_config
    from arena.tournament.runner import open_tournament_store, run_tournament
    from arena.tournament.standings import compute_standings, live_elo

    overrides = {
        "concurrency": args.concurrency,
        "rounds": args.rounds,
        "seed": args.seed,
        "output": args.output,
        "store": args.store,
    }
    if args.no_duplicate:
        overrides["duplicate"] = False
    if args.launch_per_match:
        overrides["keep_warm"] = False
    cfg = load_config(Path(args.config), overrides)
    if cfg.format == "sprt":
        raise ConfigError("this configuration is an SPRT: run it with `arena sprt --config FILE`")
    store, resuming = open_tournament_store(cfg)
    done, total = store.counts()
    print(
        f"{cfg.name}: {cfg.format}, {cfg.variant.describe()}, {len(cfg.engines)} engines, "
        f"{'duplicate sets' if cfg.duplicate else 'single matches'}, {cfg.concurrency} at once"
        + (f"; resuming ({done} of {total} matches done)" if resuming else "")
    )

    def leader() -> str:
        live = live_elo(store.finished(), cfg.elo_k)
        if not live:
            return "-"
        best = max(live, key=lambda n: live[n])
        return f"{best} {live[best]:.0f}"

    trio.run(run_tournament, cfg, store, leader)
    print()
    print(compute_standings(store, resamples=args.resamples, k=cfg.elo_k).table())
    print(f"\nresults: {cfg.store_path}  logs: {cfg.output / 'logs'}")
    store.close()
    return 0


def cmd_ratings(args: argparse.Namespace) -> int:
    from pathlib import Path

    from arena.store import open_store
    from arena.tournament.standings import compute_standings

    path = Path(args.store)
    if not path.exists():
        raise ConfigError(f"{path}: no such results database")
    store = open_store(path)
    standings = compute_standings(store, resamples=args.resamples, k=args.k)
    print(standings.to_json() if args.json else standings.table())
    store.close()
    return 0


def cmd_sprt(args: argparse.Namespace) -> int:
    from pathlib import Path

    import trio

    from arena.tournament.config import config_from_dict, load_config
    from arena.tournament.runner import SprtStatus, open_tournament_store, run_sprt, sprt_status

    if args.config:
        cfg = load_config(
            Path(args.config), {"concurrency": args.concurrency, "output": args.output}
        )
        if cfg.format != "sprt":
            raise ConfigError(f"{args.config}: format must be sprt for `arena sprt`")
    else:
        specs = args.engine or []
        if len(specs) != 2:
            raise ConfigError(
                "give --config FILE, or two --engine NAME=SPEC: the test engine, then the base"
            )
        engines = []
        for text in specs:
            name, _, spec = text.partition("=")
            engines.append({"name": name, "spec": spec})
        cfg = config_from_dict(
            {
                "name": "sprt",
                "format": "sprt",
                "variant": args.variant,
                "engine": engines,
                "seed": args.seed,
                "concurrency": args.concurrency or 8,
                "output": args.output or "out/sprt",
                "clock": {"move_time": args.move_time},
                "sprt": {
                    "test": engines[0]["name"],
                    "base": engines[1]["name"],
                    "elo0": args.elo0,
                    "elo1": args.elo1,
                    "alpha": args.alpha,
                    "beta": args.beta,
                    "max_sets": args.max_sets,
                },
            },
            "sprt",
        )
    assert cfg.sprt is not None
    store, _ = open_tournament_store(cfg)
    s = cfg.sprt
    print(
        f"SPRT {s.test} vs {s.base}: normalized Elo [{s.elo0:g}, {s.elo1:g}], alpha {s.alpha:g}, "
        f"beta {s.beta:g}, duplicate pairs, at most {s.max_sets} sets"
    )

    def report(status: SprtStatus) -> None:
        print(
            f"sets {status.sets:>5}  LLR {status.llr:+.3f}"
            f"  bounds [{status.lower:.3f}, {status.upper:.3f}]",
            flush=True,
        )

    status = trio.run(run_sprt, cfg, store, report)
    status = sprt_status(cfg, store)
    from arena.tournament.standings import compute_standings

    standings = compute_standings(store, resamples=0)
    for h in standings.head_to_head:
        print(f"{h.side_a} vs {h.side_b}: {h.estimate.line()} (naive: stopped by the SPRT)")
    if status.verdict == "H1":
        print(f"H1 accepted: {s.test} is stronger (LLR {status.llr:.3f} >= {status.upper:.3f})")
    elif status.verdict == "H0":
        print(f"H0 accepted: {s.test} is not stronger by {s.elo1:g} nElo (LLR {status.llr:.3f})")
    else:
        print(f"inconclusive after {status.sets} sets (LLR {status.llr:.3f})")
    store.close()
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    """Verify a log (exit 1 at the first disagreement), then show it."""
    from pathlib import Path

    from arena.record import read_log
    from arena.render import render_text
    from arena.replay import VerifyError, replay_log

    path = Path(args.log)
    if args.json:
        from google.protobuf.json_format import MessageToDict

        contents = read_log(path)
        records = [MessageToDict(r, preserving_proto_field_name=True) for r in contents.records]
        print(json.dumps({"complete": contents.complete, "records": records}, indent=1))
        return 0
    try:
        replay = replay_log(path)
    except VerifyError as e:
        print(f"arena: {path}: does not verify: {e}", file=sys.stderr)
        return 1
    if args.html:
        from arena.viewer import render_html

        Path(args.html).write_text(render_html(replay, seat=args.seat), encoding="utf-8")
        print(f"{replay.status()}\nwrote {args.html}")
        return 0
    print(
        render_text(
            replay,
            seat=args.seat,
            faces=args.faces,
            first_deal=args.from_deal,
            last_deal=args.to_deal,
        )
    )
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    import trio

    from arena.server import serve

    token = None
    if args.organiser_token_file:
        try:
            token = Path(args.organiser_token_file).read_text().strip()
        except OSError as e:
            raise ConfigError(f"{args.organiser_token_file}: cannot read: {e.strerror}") from None
        if len(token) < 16:
            raise ConfigError("the organiser token must be at least 16 characters")
    token = token or os.environ.get("ARENA_ORGANISER_TOKEN") or None
    trio.run(serve, Path(args.data), args.listen, token)
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    import trio

    from arena.check import check_bot

    report = trio.run(check_bot, args.address)
    print(report.text())
    return 0 if report.passed else 1


def cmd_remote(args: argparse.Namespace) -> int:
    from arena.remote import run_remote

    return run_remote(args)


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
    print("== A short round robin: random, greedy and the JavaScript bot, 4 duplicate pairs each\n")
    cmd_tournament(
        parser.parse_args(
            [
                "tournament",
                str(root / "examples" / "demo.toml"),
                "--output",
                str(out / "tournament"),
            ]
        )
    )
    print(f"\nlogs and bot output in {out}/")
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

    replay = sub.add_parser(
        "replay",
        help="verify a match log and show it (text, one seat's view, JSON or HTML)",
        description=(
            "Re-play a match log with the rules engine, checking every decision and every "
            "score; stop with exit status 1 at the first disagreement. Then print the match "
            "deal by deal (or write it as JSON or as a self-contained HTML viewer)."
        ),
    )
    replay.add_argument("log", help="a match log (arena match --log, or a tournament's logs/)")
    replay.add_argument("--seat", type=int, default=None, help="show only what this seat saw")
    replay.add_argument(
        "--faces",
        choices=["french", "italian", "short"],
        default="french",
        help="card names: 7♦ (french), 7 di denari (italian), 7d (short)",
    )
    replay.add_argument("--from-deal", type=_positive, default=1, help="first deal to show")
    replay.add_argument("--to-deal", type=_positive, default=None, help="last deal to show")
    replay.add_argument("--json", action="store_true", help="the log's records as JSON")
    replay.add_argument("--html", metavar="OUT.html", default=None, help="write the HTML viewer")
    replay.set_defaults(func=cmd_replay)

    serve_p = sub.add_parser(
        "serve",
        help="run a competition server over gRPC (bots register, the organiser runs competitions)",
        description=(
            "Run the competition server (proto/arena/wire/v1/server.proto) until SIGTERM or "
            "Ctrl-C. Running competitions resume when the server starts again. The organiser "
            "token comes from --organiser-token-file, $ARENA_ORGANISER_TOKEN, or is generated "
            "on the first start and printed once."
        ),
    )
    serve_p.add_argument("--data", default="out/server", help="server data directory")
    serve_p.add_argument("--listen", default="127.0.0.1:50051", help="address to listen on")
    serve_p.add_argument(
        "--organiser-token-file", default=None, help="file holding the organiser token"
    )
    serve_p.set_defaults(func=cmd_serve)

    check_p = sub.add_parser(
        "check",
        help="check that a bot at an address conforms to the protocol (pass/fail per point)",
    )
    check_p.add_argument("address", help="HOST:PORT or unix:/PATH of a running bot")
    check_p.set_defaults(func=cmd_check)

    from arena.remote import add_remote_parser

    add_remote_parser(sub, cmd_remote)

    tour = sub.add_parser(
        "tournament",
        help="run (or resume) a tournament described in a TOML file",
        description=(
            "Run a tournament from a TOML file (see examples/tournament.toml). Results go to "
            "an SQLite store, each match committed as it finishes: run the same command again "
            "after a crash and it resumes where it stopped. Options below override the file."
        ),
    )
    tour.add_argument("config", help="the tournament file")
    tour.add_argument("--concurrency", type=_positive, default=None, help="matches at once")
    tour.add_argument("--rounds", type=_positive, default=None, help="duplicate sets per pairing")
    tour.add_argument("--seed", type=int, default=None, help="tournament seed")
    tour.add_argument("--output", default=None, help="output directory (logs, bot output, store)")
    tour.add_argument(
        "--store", default=None, help="results database (default OUTPUT/results.sqlite)"
    )
    tour.add_argument(
        "--no-duplicate", action="store_true", help="single matches, not duplicate sets"
    )
    tour.add_argument(
        "--launch-per-match", action="store_true", help="launch command engines for every match"
    )
    tour.add_argument(
        "--resamples", type=int, default=200, help="bootstrap resamples for intervals"
    )
    tour.set_defaults(func=cmd_tournament)

    ratings = sub.add_parser("ratings", help="print the leaderboard of a results database")
    ratings.add_argument("store", help="the SQLite results file of a tournament")
    ratings.add_argument("--json", action="store_true", help="JSON for machines")
    ratings.add_argument("--resamples", type=int, default=200, help="bootstrap resamples")
    ratings.add_argument("--k", type=float, default=16.0, help="K of the live Elo (default 16)")
    ratings.set_defaults(func=cmd_ratings)

    sprt_p = sub.add_parser(
        "sprt",
        help="is engine A stronger than B? a sequential test that stops by itself",
        description=(
            "Play duplicate pairs of A against B until the normalized-Elo GSPRT crosses a bound "
            "(H1: A is stronger by elo1; H0: not by more than elo0), printing the LLR as it goes."
        ),
    )
    sprt_p.add_argument("--config", default=None, help='a TOML file with format = "sprt"')
    sprt_p.add_argument(
        "--engine", action="append", metavar="NAME=SPEC", help="test engine, then base"
    )
    sprt_p.add_argument("--variant", default="scopa")
    sprt_p.add_argument(
        "--elo0", type=float, default=0.0, help="H0 bound, normalized Elo (default 0)"
    )
    sprt_p.add_argument(
        "--elo1", type=float, default=20.0, help="H1 bound, normalized Elo (default 20)"
    )
    sprt_p.add_argument("--alpha", type=float, default=0.05)
    sprt_p.add_argument("--beta", type=float, default=0.05)
    sprt_p.add_argument(
        "--max-sets", type=_positive, default=5000, help="give up after this many pairs"
    )
    sprt_p.add_argument("--seed", type=int, default=1)
    sprt_p.add_argument("--move-time", default="1s")
    sprt_p.add_argument("--concurrency", type=_positive, default=None)
    sprt_p.add_argument("--output", default=None)
    sprt_p.set_defaults(func=cmd_sprt)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except BrokenPipeError:
        # The reader went away (`arena ... | head`): stop quietly, like other tools.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
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
