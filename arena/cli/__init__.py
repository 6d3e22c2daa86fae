"""The `arena` command line: thin commands over the library, one module per group.

    match.py       arena play, arena match, arena demo
    tournament.py  arena tournament, arena ratings, arena sprt
    replay.py      arena replay
    serve.py       arena serve, arena check
    remote.py      arena remote ... (the client of arena serve)
    common.py      argument types and options several commands share
    exits.py       exit statuses and how a failure is reported

A command parses its arguments, calls the library and prints. Commands import
what they run inside their function, so that `arena --help` and `arena play`
start without loading trio, grpc or protobuf.

Exit statuses are listed once, in exits.py (EXIT_STATUSES, shown by --help).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from typing import TextIO

from arena import __version__
from arena.cli import exits, match, remote, replay, serve, tournament


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Referee, tournaments and replays for Scopa and Scopone bots.",
        epilog=exits.EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"arena {__version__}")
    parser.add_argument("--debug", action="store_true", help="on an error, print its traceback too")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    match.add_parsers(sub)
    replay.add_parsers(sub)
    serve.add_parsers(sub)
    remote.add_parsers(sub)
    tournament.add_parsers(sub)
    return parser


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """The library's warnings (a sandbox that cannot be used, partners sharing a
    bot) as one line for the user, not as Python's source-line report."""
    print(f"arena: warning: {message}", file=file or sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit status (see the module docstring)."""
    warnings.showwarning = _show_warning
    # gRPC's core logs at INFO to stderr (a bot closing its connection prints
    # a "Got goaway" line); the arena reports what matters itself. Read when
    # grpc loads, which commands do only after this.
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return exits.USAGE
    try:
        return int(args.func(args))
    except (Exception, KeyboardInterrupt, BaseExceptionGroup) as e:
        return exits.report_failure(e, debug=args.debug)
