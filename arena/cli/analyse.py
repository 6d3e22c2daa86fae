"""`arena analyse`: each decision's legal moves valued from the seat's own view."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arena.cli import exits
from arena.cli.common import Subparsers, duration, positive

ANALYSE_EXIT_STATUSES = f"""\
exit status:
  {exits.REPLAY_VERIFIED:<4} the log verified and every decision asked for was analysed
  {exits.REPLAY_REFUSED:<4} the log does not verify (changed after it was written, or it
       disagrees with the rules): nothing is analysed
  {exits.USAGE:<4} not a match log, a seat not in the game, an unwritable output, or a bad option
  {exits.REPLAY_INCOMPLETE:<4} the log verifies but stops before the match's end: its decisions
       so far are analysed
  An internal error (a bug in the arena) exits {exits.INTERNAL}, saying "internal error"."""


def cmd_analyse(args: argparse.Namespace) -> int:
    from arena.audit.analysis import (
        DEFAULT_SAMPLES,
        analyse_replay,
        analysis_path,
        dumps,
        render_text,
        summary_text,
    )
    from arena.errors import RecordError, VerifyError
    from arena.logs.replay import replay_log

    path = Path(args.log)
    try:
        replay = replay_log(path)
    except VerifyError as e:
        print(f"arena: {path}: does not verify: {e.reason}", file=sys.stderr)
        return exits.REPLAY_REFUSED
    except RecordError as e:
        print(f"arena: error: {e}", file=sys.stderr)
        return exits.USAGE
    analysis = analyse_replay(
        replay,
        None if args.seat is None else [args.seat],
        samples=DEFAULT_SAMPLES if args.samples is None else args.samples,
        think=args.think,
        seed=args.seed,
    )
    document = dumps(analysis)
    written = []
    for target in [args.output and Path(args.output), args.save and analysis_path(path)]:
        if target:
            target.write_text(document, encoding="utf-8")
            written.append(target)
    if args.json:
        sys.stdout.write(document)
    elif written:
        print("\n".join(summary_text(analysis)))
    else:
        print(render_text(analysis, moves=not args.brief))
    for target in written:
        print(f"wrote {target}", file=sys.stderr if args.json else sys.stdout)
    if args.timing:
        n = len(analysis.decisions)
        wall, cpu = analysis.seconds, analysis.cpu_seconds
        print(
            f"{n} decision(s) in {wall:.2f} s ({n / wall if wall else 0:.1f} per second), "
            f"{cpu:.2f} s of CPU ({n / cpu if cpu else 0:.1f} per CPU second)",
            file=sys.stderr,
        )
    return exits.REPLAY_VERIFIED if replay.complete else exits.REPLAY_INCOMPLETE


def add_parsers(sub: Subparsers) -> None:
    p = sub.add_parser(
        "analyse",
        help="value every legal move of every decision of a match log, from the seat's view",
        description=(
            "Verify a match log, then value each decision's legal moves as the seat that "
            "made it could: expected deal points (the seat's side minus the other side, at "
            "the deal's end), averaged over deals sampled from what that seat had seen, "
            "never from the log's hidden cards. The move played is compared with the best: "
            "its loss, and a class (inaccuracy, mistake, blunder) when the loss is large "
            "and clear of the sampling noise. Then a summary per seat. See docs/analysis.md."
        ),
        epilog=ANALYSE_EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("log", help="a match log (arena match --log, or a tournament's logs/)")
    p.add_argument(
        "--seat", type=int, default=None, help="analyse this seat's decisions only (default: all)"
    )
    effort = p.add_mutually_exclusive_group()
    effort.add_argument(
        "--samples",
        type=positive,
        default=None,
        metavar="K",
        help="sampled deals per decision; the output is reproducible (default 200)",
    )
    effort.add_argument(
        "--think",
        type=duration,
        default=None,
        metavar="S",
        help="sample for this long per decision instead (e.g. 0.5 or 500ms); the output then "
        "depends on the machine and its load",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="mixed with each decision's view to seed its sampling (default 0)",
    )
    p.add_argument("--json", action="store_true", help="print the analysis as JSON")
    p.add_argument("--output", metavar="FILE", default=None, help="write the JSON to FILE")
    p.add_argument(
        "--save",
        action="store_true",
        help="write the JSON beside the log as LOG.analysis.json, where arena replay --html "
        "and arena web look for it",
    )
    p.add_argument(
        "--brief", action="store_true", help="text: one line per decision, without every move"
    )
    p.add_argument(
        "--timing", action="store_true", help="print how long it took on stderr (varies)"
    )
    p.set_defaults(func=cmd_analyse)
