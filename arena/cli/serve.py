"""`arena serve` and `arena check`: the competition server and the bot check."""

from __future__ import annotations

import argparse
import os
import time
from functools import partial
from pathlib import Path

from arena.cli import exits, signals
from arena.cli.common import Subparsers, add_sandbox_options, sandbox_from_args
from arena.errors import ConfigError
from arena.match.settings import CommandEngine, parse_engine


def organiser_token(token_file: str | None) -> str | None:
    """The organiser token from a file, else $ARENA_ORGANISER_TOKEN; None lets
    the server generate one on its first start."""
    if token_file:
        try:
            token = Path(token_file).read_text().strip()
        except OSError as e:
            raise ConfigError(f"{token_file}: cannot read: {e.strerror}") from None
        if len(token) < 16:
            raise ConfigError("the organiser token must be at least 16 characters")
        return token
    return os.environ.get("ARENA_ORGANISER_TOKEN") or None


def cmd_serve(args: argparse.Namespace) -> int:
    from arena.server import serve

    token = organiser_token(args.organiser_token_file)
    if args.http is not None:
        from arena.web.serve import split_listen

        split_listen(args.http)
    if args.spectator_delay < 0:
        raise ConfigError("--spectator-delay must be 0 or more plays")
    for option in ("liveness_interval", "absent_grace"):
        if getattr(args, option) < 0:
            raise ConfigError(f"--{option.replace('_', '-')} must be 0 or more seconds")
    signals.run(  # until the command is stopped: main gives the status
        partial(
            serve,
            liveness_interval=max(args.liveness_interval, 0.1),
            absent_grace=args.absent_grace,
            http=args.http,
            spectator_delay=args.spectator_delay,
            cluster=args.cluster,
            challenges=not args.no_challenges,
        ),
        Path(args.data),
        args.listen,
        token,
    )
    return exits.OK


def cmd_check(args: argparse.Namespace) -> int:
    from arena.check import check_bot, check_launched
    from arena.rules import Game

    given = [x for x in (args.address, args.launch, args.submission) if x is not None]
    if len(given) != 1:
        raise ConfigError(
            "give one of: the address of a running bot, --launch COMMAND or --submission DIR, "
            "not more than one"
        )
    if args.output is not None and args.address is not None:
        raise ConfigError("--output is for a bot the check launches, not one at an address")
    output = Path(args.output) if args.output else default_check_output()
    if args.submission is not None:
        from arena.server.submissions import read_manifest

        root = Path(args.submission).resolve()
        if not root.is_dir():
            raise ConfigError(f"{args.submission}: not a directory (unpack the archive first)")
        manifest = read_manifest(root)
        command = manifest.engine.command
        claimed = [Game(g) for g in manifest.games]
        report = signals.run(
            partial(
                check_launched,
                command,
                sandbox_from_args(args),
                workdir=root,
                output=output,
                claimed=claimed,
            )
        )
    elif args.launch is not None:
        spec = parse_engine(f"bot={args.launch}")
        if not isinstance(spec, CommandEngine):
            raise ConfigError(f"--launch takes a command line, not {spec.describe()!r}")
        report = signals.run(
            partial(check_launched, spec.command, sandbox_from_args(args), output=output)
        )
    else:
        report = signals.run(check_bot, args.address)
    if args.json:
        import json

        print(json.dumps(report.as_dict(), indent=2, ensure_ascii=False))
    else:
        print(report.text())
    return exits.OK if report.passed else exits.FAILED


def default_check_output() -> Path:
    """Where a launched bot's output goes unless --output says: one new file
    per check under out/check, so that an earlier check's file is kept."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return Path("out/check") / f"bot-{stamp}-{os.getpid()}.log"


def add_parsers(sub: Subparsers) -> None:
    serve = sub.add_parser(
        "serve",
        help="run a competition server over gRPC (bots register, the organiser runs competitions)",
        description=(
            "Run the competition server (proto/arena/wire/v1/server.proto) until SIGTERM or "
            "Ctrl-C. Running competitions resume when the server starts again. The organiser "
            "token comes from --organiser-token-file, $ARENA_ORGANISER_TOKEN, or is generated "
            "on the first start and printed once."
        ),
    )
    serve.add_argument("--data", default="out/server", help="server data directory")
    serve.add_argument("--listen", default="127.0.0.1:50051", help="address to listen on")
    serve.add_argument(
        "--organiser-token-file", default=None, help="file holding the organiser token"
    )
    serve.add_argument(
        "--liveness-interval",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how often every registered bot is probed with a handshake (default %(default)g)",
    )
    serve.add_argument(
        "--absent-grace",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="how long a competition waits for a bot that does not answer before its "
        "matches are recorded as forfeits by absence (default %(default)g)",
    )
    serve.add_argument(
        "--http",
        default=None,
        metavar="HOST:PORT",
        help="also serve the read-only web site here (prints SITE http://HOST:PORT)",
    )
    serve.add_argument(
        "--spectator-delay",
        type=int,
        default=0,
        metavar="PLAYS",
        help=(
            "live matches are shown this many plays behind, to watch streams and the web "
            "site, in competitions that set no spectator_delay (default %(default)s)"
        ),
    )
    serve.add_argument(
        "--no-challenges",
        action="store_true",
        help="do not let participants play bots themselves on the site (/challenge): "
        "challenges are on by default with --http",
    )
    serve.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="play competitions' matches in worker processes of this machine ('processes') "
        "or on a Ray cluster (HOST:PORT, or 'local'), unless "
        "a competition's own [cluster] table says otherwise",
    )
    serve.set_defaults(func=cmd_serve, server=True)

    check = sub.add_parser(
        "check",
        help="check that a bot conforms to the protocol (pass/fail per point)",
        description=(
            "Check a bot someone runs at an address, or launch a command as the arena "
            "launches bots (in its sandbox, as in a match) and check that."
        ),
    )
    check.add_argument(
        "address", nargs="?", default=None, help="HOST:PORT or unix:/PATH of a running bot"
    )
    check.add_argument(
        "--json",
        action="store_true",
        help="print the report as JSON (address, passed, engine_name, engine_version, games, "
        "checks: name, passed, detail, output: the launched bot's output file, and tail: its "
        "last 20 lines when the check failed); the exit status is 0 only if every check passed",
    )
    check.add_argument(
        "--launch",
        metavar="COMMAND",
        default=None,
        help='launch this bot and check it, e.g. --launch "python my_bot.py"',
    )
    check.add_argument(
        "--submission",
        metavar="DIR",
        default=None,
        help="check a bot directory with a bot.toml exactly as the competition server "
        "checks an upload: its command, run in DIR (shown at /bot in the sandbox), in "
        "each game its manifest lists",
    )
    check.add_argument(
        "--output",
        metavar="FILE",
        default=None,
        help="where a launched bot's stdout and stderr go (capped; default: a new file "
        "under out/check/, named in the report)",
    )
    add_sandbox_options(check)
    check.set_defaults(func=cmd_check)
