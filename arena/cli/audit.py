"""`arena audit`: the collusion audit of team-game logs (docs/audit.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arena.cli import exits
from arena.cli.common import Subparsers, positive

AUDIT_EXIT_STATUSES = f"""\
exit status:
  {exits.OK:<4} the logs were audited (whatever the audit found: it is evidence, not a verdict)
  {exits.REPLAY_REFUSED:<4} a log does not verify (changed after it was written, or it disagrees
       with the rules): nothing is audited
  {exits.USAGE:<4} not a match log, a game without partners, a log given twice, or a bad option
  An internal error (a bug in the arena) exits {exits.INTERNAL}, saying "internal error"."""


def cmd_audit(args: argparse.Namespace) -> int:
    from arena.audit.report import audit, dumps, render_text
    from arena.errors import VerifyError

    def progress(done: int, total: int) -> None:
        if total and (done == total or done % 200 == 0):
            print(f"\r  {done}/{total} decisions valued", end="", file=sys.stderr, flush=True)
            if done == total:
                print(file=sys.stderr)

    try:
        report = audit(
            [Path(p) for p in args.logs],
            [Path(p) for p in args.null or ()],
            samples=args.samples,
            seed=args.seed,
            values=not args.probes_only,
            progress=progress if sys.stderr.isatty() else None,
        )
    except VerifyError as e:
        print(f"arena: {e}", file=sys.stderr)
        return exits.REPLAY_REFUSED
    document = dumps(report)
    if args.output:
        Path(args.output).write_text(document, encoding="utf-8")
    if args.json:
        sys.stdout.write(document + "\n")
    else:
        print(render_text(report))
    if args.output:
        print(f"wrote {args.output}", file=sys.stderr if args.json else sys.stdout)
    return exits.OK


# The log audit's default samples, as arena.audit.collusion.DEFAULT_SAMPLES (a test
# checks): not imported, so that `arena --help` loads no search code.
DEFAULT_SAMPLES = 32


def add_parsers(sub: Subparsers) -> None:
    p = sub.add_parser(
        "audit",
        help="test team-game logs for partners who share hidden cards outside the game",
        description=(
            "Verify team-game match logs, then test each partnership (the pair of engines "
            "on a side, pooled over the logs) two ways. Probes: where the referee asked a "
            "seat the same question again under other match ids (arena match --probes, a "
            "tournament's [probes], a team competition by default), an exact test of "
            "whether its real answers stand apart from its probes'. Values: whether the "
            "side's choices are better explained by the partner's true hand than by the "
            "seat's own view, valued by playouts, against the same measure on the "
            "opponents' hands, or against honest logs of the same engines (--null). "
            "A small p-value is evidence for a person to weigh, never a verdict. "
            "See docs/audit.md."
        ),
        epilog=AUDIT_EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("logs", nargs="+", metavar="LOG", help="match logs of a 4-seat game")
    p.add_argument(
        "--null",
        nargs="+",
        metavar="LOG",
        help="honest logs of the same engines (e.g. launched, where they cannot reach each "
        "other): the log audit's control instead of the opponents' hands",
    )
    p.add_argument(
        "--samples",
        type=positive,
        default=DEFAULT_SAMPLES,
        metavar="K",
        help=f"sampled deals per move and hand; reproducible (default {DEFAULT_SAMPLES})",
    )
    p.add_argument("--seed", type=int, default=0, help="seeds the sampling (default 0)")
    p.add_argument(
        "--probes-only", action="store_true", help="only the probes' test (fast: no playouts)"
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--output", metavar="FILE", default=None, help="write the JSON to FILE")
    p.set_defaults(func=cmd_audit)
