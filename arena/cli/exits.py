"""Exit statuses of the `arena` command, and how a failure reaches the user.

A failure is one line on stderr: the user can act on an ArenaError or an
OSError (a path, a permission); anything else is a bug in the arena, shown
with its type and, under ``--debug``, its traceback.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Iterator

from arena.errors import ArenaError

OK = 0  # arena match: played to its end (faults under --on-fault substitute are printed)
FAILED = 1  # a check or a verification failed (arena check, arena replay)
USAGE = 2  # a bad option, configuration or file; argparse uses it too
INTERNAL = 70  # a bug in the arena (arena match: the match is void); EX_SOFTWARE of sysexits
INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT
TERMINATED = 143  # SIGTERM, stopped as by Ctrl-C (signals.py), as shells report SIGTERM
OUTPUT_CLOSED = 141  # the reader went away (`arena ... | head`), as shells report SIGPIPE
# How a match ended, when not played to its end: a script can tell a bot's
# fault from a bot that never played, and both from the arena's own errors.
MATCH_FORFEIT = 4  # arena match: a bot's fault during play ended the match
MATCH_NO_CONTEST = 5  # arena match: a seat failed before the first deal

# `arena replay`: what the verification of a match log found.
REPLAY_VERIFIED = 0  # verified, and the log is complete
REPLAY_REFUSED = 1  # changed after it was written, or it disagrees with the rules
REPLAY_UNREADABLE = 2  # no match log (unreadable, foreign), or a format version not read here
REPLAY_INCOMPLETE = 3  # verified as far as it goes, but it stops before the match's end

REPLAY_EXIT_STATUSES = f"""\
exit status:
  {REPLAY_VERIFIED:<4} verified: every record intact and every decision and score as the rules say
  {REPLAY_REFUSED:<4} refused: the log was changed after it was written (its hash chain or
       framing is broken, bytes follow its end) or it disagrees with the rules
  {REPLAY_UNREADABLE:<4} unreadable: not a match log, or a format version this arena does not read
  {REPLAY_INCOMPLETE:<4} incomplete: verified up to where it stops, but it stops before the
       match's end (the match was interrupted, or the log was cut short)
  An internal error (a bug in the arena) exits {INTERNAL}, saying "internal error"."""

EXIT_STATUSES = f"""\
exit status:
  {OK:<4} success (arena match: the match was played to its end; with
       --on-fault substitute, any faults it had are printed)
  {FAILED:<4} a check or verification failed (arena check; arena replay, arena analyse:
       the log was tampered with or breaks the rules; arena verify-seed: a deck differs)
  {USAGE:<4} usage or configuration error: a bad option or file, a refused request,
       a bot program that does not exist, a results store in use or damaged
  {REPLAY_INCOMPLETE:<4} arena replay, arena analyse: the log verifies but stops before the
       match's end
  {MATCH_FORFEIT:<4} arena match: a bot's fault ended the match (a forfeit); the fault is printed
  {MATCH_NO_CONTEST:<4} arena match: no contest, a seat failed before the first deal (it
       exited, never listened, could not be reached or failed the handshake);
       nobody wins, the fault is printed
  {INTERNAL:<4} internal error: a bug in the arena (--debug shows the traceback;
       arena match: the match is void)
  {INTERRUPTED:<4} interrupted (Ctrl-C)
  {TERMINATED:<4} stopped by SIGTERM, as by Ctrl-C (arena serve, arena web: 0 after Ctrl-C)
  {OUTPUT_CLOSED:<4} the output was closed (arena ... | head)"""


def report_failure(
    error: BaseException, debug: bool = False, terminated: bool = False, server: bool = False
) -> int:
    """Tell the user what went wrong in one line and return the exit status.

    trio's nurseries wrap errors in exception groups: the leaves inside
    decide what is reported. ``terminated``: the interruption was SIGTERM's.
    ``server``: the command serves until it is stopped (arena serve, arena
    web), so that a stop is its ordinary end: 0 after Ctrl-C, 143 after SIGTERM.
    """
    leaves = list(_leaves(error))
    if any(isinstance(x, BrokenPipeError) for x in leaves):
        return _output_closed()
    if any(isinstance(x, KeyboardInterrupt) for x in leaves):  # a stop, not an error
        if server:
            return TERMINATED if terminated else OK
        if terminated:
            print("arena: interrupted by SIGTERM", file=sys.stderr)
            return TERMINATED
        print("arena: interrupted", file=sys.stderr)
        return INTERRUPTED
    if debug:
        traceback.print_exception(error)
    unexpected = [x for x in leaves if not isinstance(x, ArenaError | OSError)]
    if unexpected:
        bug = unexpected[0]
        hint = "" if debug else " (run with --debug for the traceback)"
        print(f"arena: internal error: {type(bug).__name__}: {bug}{hint}", file=sys.stderr)
        return INTERNAL
    for message in dict.fromkeys(_describe(x) for x in leaves):
        print(f"arena: error: {message}", file=sys.stderr)
    return USAGE


def _output_closed() -> int:
    """Stop quietly, like other tools; stdout points at /dev/null so that the
    interpreter's last flush does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    return OUTPUT_CLOSED


def _describe(error: BaseException) -> str:
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.filename}: {error.strerror or error}"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)


def _leaves(error: BaseException) -> Iterator[BaseException]:
    """The errors inside ``error``'s groups; an error Python raised because of
    an interrupt (a stop landing in a class being made: "Error calling
    __set_name__") is the interrupt."""
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
        return
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, KeyboardInterrupt):
            yield cause
            return
        cause = cause.__cause__
    yield error
