"""The `arena` command line: thin commands over the library, one module per group.

    match.py       arena play, arena match, arena demo
    tournament.py  arena tournament, arena ratings, arena sprt
    replay.py      arena replay
    analyse.py     arena analyse
    audit.py       arena audit
    verify.py      arena verify-seed
    web.py         arena web
    serve.py       arena serve, arena check
    remote.py      arena remote ... (the client of arena serve)
    common.py      argument types and options several commands share
    exits.py       exit statuses and how a failure is reported
    signals.py     Ctrl-C and SIGTERM: the one way every command stops

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
from arena.cli import (
    analyse,
    audit,
    exits,
    match,
    remote,
    replay,
    serve,
    signals,
    tournament,
    verify,
    web,
)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Every option's help shows its default, unless the text already says it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        shown = action.default not in (None, False, argparse.SUPPRESS, [])
        if shown and action.option_strings and "default" not in text and "%(default)" not in text:
            text += " (default: %(default)s)"
        return text


def _finish(parser: argparse.ArgumentParser) -> None:
    """Give every command and subcommand the one help formatter, and a
    description (its one-line help, where it has no longer one)."""
    parser.formatter_class = HelpFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, child in action.choices.items():
                text = helps.get(name, "")
                if child.description is None and text:
                    child.description = f"{text[0].upper()}{text[1:]}."
                _finish(child)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="Referee, tournaments and replays for Scopa and Scopone bots.",
        epilog=exits.EXIT_STATUSES,
    )
    parser.add_argument("--version", action="version", version=f"arena {__version__}")
    parser.add_argument("--debug", action="store_true", help="on an error, print its traceback too")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    match.add_parsers(sub)
    replay.add_parsers(sub)
    analyse.add_parsers(sub)
    audit.add_parsers(sub)
    serve.add_parsers(sub)
    remote.add_parsers(sub)
    tournament.add_parsers(sub)
    verify.add_parsers(sub)
    web.add_parsers(sub)
    _finish(parser)
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
    """Run one command; return its exit status (see the module docstring).
    Without ``argv``, the command is this process's own (the `arena` program):
    once it is over, a signal changes nothing until the process exits
    (signals.taken)."""
    # From the first moment: a signal during start-up is not lost (signals.py).
    with signals.taken(restore=argv is not None) as stop:
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
            try:
                stop.start()
                status = int(args.func(args))
                if stop.received is not None:  # its interrupt was dropped (signals.py)
                    raise KeyboardInterrupt
            finally:
                stop.finish()
        except (Exception, KeyboardInterrupt, BaseExceptionGroup) as e:
            status = exits.report_failure(
                e,
                debug=args.debug,
                terminated=stop.terminated,
                server=getattr(args, "server", False),
            )
    return status
