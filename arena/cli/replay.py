"""`arena replay`: verify a match log, then show it as text, JSON or HTML."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.cli import exits
from arena.cli.common import Subparsers, positive

if TYPE_CHECKING:
    from arena.logs.replay import Replay


def cmd_replay(args: argparse.Namespace) -> int:
    """Verify a log, then show it. Every output goes through the same
    verification, and the exit status says what it found (exits.REPLAY_*)."""
    from arena.errors import RecordError, VerifyError
    from arena.logs.record import read_log
    from arena.logs.render import render_text
    from arena.logs.replay import replay_contents

    path = Path(args.log)
    try:
        contents = read_log(path)
        replay = replay_contents(contents)
    except VerifyError as e:
        print(f"arena: {path}: does not verify: {e.reason}", file=sys.stderr)
        return exits.REPLAY_REFUSED
    except RecordError as e:
        print(f"arena: error: {e}", file=sys.stderr)
        return exits.REPLAY_UNREADABLE
    status = exits.REPLAY_VERIFIED if replay.complete else exits.REPLAY_INCOMPLETE
    if args.json:
        from google.protobuf.json_format import MessageToDict

        records = [MessageToDict(r, preserving_proto_field_name=True) for r in contents.records]
        document = {
            "format_version": contents.format_version,
            "complete": contents.complete,
            "truncated": contents.truncated,
            "chain": None if contents.chain is None else contents.chain.hex(),
            "status": replay.status(),
            "records": records,
        }
        print(json.dumps(document, indent=1))
        return status
    if args.html:
        from arena.logs.viewer import render_html

        analysis, shown = _analysis(args, path, replay)
        Path(args.html).write_text(
            render_html(replay, seat=args.seat, faces=args.faces, analysis=analysis),
            encoding="utf-8",
        )
        print(f"{replay.status()}\n{shown}wrote {args.html}")
        return status
    print(
        render_text(
            replay,
            seat=args.seat,
            faces=args.faces,
            first_deal=args.from_deal,
            last_deal=args.to_deal,
        )
    )
    return status


def _analysis(
    args: argparse.Namespace, log: Path, replay: Replay
) -> tuple[dict[str, Any] | None, str]:
    """The move analysis to show beside the decisions: --analysis FILE (an
    error when it cannot be used), else LOG.analysis.json when it is there
    and is this log's (a warning when it is not); and a line saying which."""
    from arena.audit.analysis import analysis_path, load_analysis
    from arena.errors import AnalysisError

    if args.no_analysis:
        return None, ""
    if args.analysis is not None:
        path = Path(args.analysis)
        return load_analysis(path, replay), f"with the analysis {path}\n"
    path = analysis_path(log)
    if not path.exists():
        return None, ""
    try:
        return load_analysis(path, replay), f"with the analysis {path}\n"
    except (AnalysisError, OSError) as e:
        print(f"arena: warning: not showing the analysis: {e}", file=sys.stderr)
        return None, ""


def add_parsers(sub: Subparsers) -> None:
    replay = sub.add_parser(
        "replay",
        help="verify a match log and show it (text, one seat's view, JSON or HTML)",
        description=(
            "Check a match log's hash chain and framing, then re-play it with the rules "
            "engine, checking every decision, every score and the result; stop at the first "
            "record that was changed or disagrees. Then print the match deal by deal (or "
            "write it as JSON or as a self-contained HTML viewer)."
        ),
        epilog=exits.REPLAY_EXIT_STATUSES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
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
    replay.add_argument(
        "--json", action="store_true", help="the log's records as JSON, once verified"
    )
    replay.add_argument("--html", metavar="OUT.html", default=None, help="write the HTML viewer")
    replay.add_argument(
        "--analysis",
        metavar="FILE",
        default=None,
        help="--html: show this move analysis (arena analyse --output) beside each decision; "
        "by default LOG.analysis.json (arena analyse --save) is shown when it is there",
    )
    replay.add_argument("--no-analysis", action="store_true", help="--html: show no move analysis")
    replay.set_defaults(func=cmd_replay)
