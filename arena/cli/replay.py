"""`arena replay`: verify a match log, then show it as text, JSON or HTML."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from arena.cli import exits
from arena.cli.common import Subparsers, positive


def cmd_replay(args: argparse.Namespace) -> int:
    """Verify a log (exit 1 at the first disagreement), then show it."""
    from arena.record import read_log
    from arena.render import render_text
    from arena.replay import VerifyError, replay_log

    path = Path(args.log)
    if args.json:
        from google.protobuf.json_format import MessageToDict

        contents = read_log(path)
        records = [MessageToDict(r, preserving_proto_field_name=True) for r in contents.records]
        print(json.dumps({"complete": contents.complete, "records": records}, indent=1))
        return exits.OK
    try:
        replay = replay_log(path)
    except VerifyError as e:
        print(f"arena: {path}: does not verify: {e}", file=sys.stderr)
        return exits.FAILED
    if args.html:
        from arena.viewer import render_html

        Path(args.html).write_text(
            render_html(replay, seat=args.seat, faces=args.faces), encoding="utf-8"
        )
        print(f"{replay.status()}\nwrote {args.html}")
        return exits.OK
    print(
        render_text(
            replay,
            seat=args.seat,
            faces=args.faces,
            first_deal=args.from_deal,
            last_deal=args.to_deal,
        )
    )
    return exits.OK


def add_parsers(sub: Subparsers) -> None:
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
        default="short",
        help="card names: 7d (short, the arena's notation), 7♦ (french), "
        "7 di denari (italian); see docs/rules.md",
    )
    replay.add_argument("--from-deal", type=positive, default=1, help="first deal to show")
    replay.add_argument("--to-deal", type=positive, default=None, help="last deal to show")
    replay.add_argument("--json", action="store_true", help="the log's records as JSON")
    replay.add_argument("--html", metavar="OUT.html", default=None, help="write the HTML viewer")
    replay.set_defaults(func=cmd_replay)
