"""`arena remote ...`: the organiser's and participants' client for `arena serve`.

The token comes from --token or $ARENA_TOKEN; the server from --server or
$ARENA_SERVER (default 127.0.0.1:50051). `watch` prints a match live in the
notation of `arena replay`. A request the server refuses exits with status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from arena.cli import exits
from arena.cli.common import Subparsers
from arena.errors import ConfigError

if TYPE_CHECKING:
    from arena.wire.client import ArenaClient
    from arena.wire.v1 import server_pb2 as spb


def cmd_remote(args: argparse.Namespace) -> int:
    import grpc

    from arena.wire.client import ArenaClient

    cmd = args.remote_command
    with ArenaClient(args.server, args.token) as arena:
        try:
            if cmd == "participant":
                r = arena.register_participant(args.name)
                print(f"participant {r.name}; token (shown once, keep it): {r.token}")
            elif cmd == "rotate-token":
                r = arena.rotate_token()
                print(
                    f"new {r.role} token for {r.name} (shown once, keep it; "
                    f"the old one no longer works): {r.token}"
                )
            elif cmd == "register":
                _print_bots([arena.register_bot(args.name, args.address)])
            elif cmd == "update":
                _print_bots([arena.update_bot(args.name, args.address)])
            elif cmd == "withdraw":
                _print_bots([arena.withdraw_bot(args.name)])
            elif cmd == "bots":
                _print_bots(arena.bots())
            elif cmd == "check":
                report = arena.check_bot(args.address)
                for item in report.items:
                    print(f"  {'PASS' if item.passed else 'FAIL'}  {item.name}: {item.detail}")
                return exits.OK if report.passed else exits.FAILED
            elif cmd == "create":
                try:
                    text = Path(args.config).read_text()
                except OSError as e:
                    raise ConfigError(f"{args.config}: cannot read: {e.strerror}") from None
                _print_comp(arena.create_competition(text))
            elif cmd == "start":
                _print_comp(arena.start_competition(args.id))
            elif cmd == "pause":
                _print_comp(arena.pause_competition(args.id))
            elif cmd == "resume":
                _print_comp(arena.resume_competition(args.id))
            elif cmd == "status":
                _print_comp(arena.competition(args.id))
            elif cmd == "list":
                _print_comps(arena.competitions())
            elif cmd == "standings":
                print(arena.standings(args.id).text)
            elif cmd == "matches":
                _print_matches(arena.matches(args.id))
            elif cmd == "log":
                data = arena.match_log(args.match)
                Path(args.output).write_bytes(data)
                print(
                    f"wrote {args.output} ({len(data)} bytes); "
                    f"check it with `arena replay {args.output}`"
                )
                print(_chain_check(arena, args.match, Path(args.output)))
            elif cmd == "watch":
                _watch(arena, args.match, args.delay, args.faces)
        except grpc.RpcError as e:
            print(f"arena: server: {e.code().name}: {e.details()}", file=sys.stderr)
            return exits.USAGE
    return exits.OK


def table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """Columns aligned under their headers (the last column is not padded)."""
    lines = [list(headers), *([str(cell) for cell in row] for row in rows)]
    widths = [max(len(line[i]) for line in lines) for i in range(len(headers))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


def _print_bots(bots: Iterable[spb.BotInfo]) -> None:
    """The registered bots, with what the server's last liveness probe saw."""
    rows = [
        (
            b.name,
            b.owner,
            b.address,
            b.engine_name or "-",
            b.seen_version or b.engine_version or "-",
            "withdrawn" if b.withdrawn else b.status or "unchecked",
            b.last_seen or "never",
            b.status_detail or "-",
        )
        for b in bots
    ]
    headers = ("BOT", "OWNER", "ADDRESS", "ENGINE", "VERSION", "STATUS", "LAST SEEN", "DETAIL")
    print(table(headers, rows))


def _print_matches(matches: Iterable[spb.MatchSummary]) -> None:
    rows = [
        (
            m.id,
            " ".join(m.seats),
            m.status,
            "-".join(map(str, m.final_scores)) if m.final_scores else "-",
            m.termination or "-",
            m.reason or "-",
            m.log_chain or "-",
        )
        for m in matches
    ]
    print(table(("MATCH", "SEATS", "STATUS", "SCORE", "TERMINATION", "REASON", "CHAIN"), rows))


def _print_comps(competitions: Iterable[spb.CompetitionInfo]) -> None:
    rows = [
        (
            c.id,
            c.name,
            c.status,
            f"{c.matches_done}/{c.matches_total}",
            c.created_at,
            c.seed_commitment or "-",
            c.reason or "-",
        )
        for c in competitions
    ]
    headers = ("ID", "NAME", "STATUS", "MATCHES", "CREATED", "SEED COMMITMENT", "REASON")
    print(table(headers, rows))


def _chain_check(arena: ArenaClient, match: str, log: Path) -> str:
    """Whether a downloaded log ends with the chain value the match list published."""
    from arena.errors import RecordError
    from arena.record import read_log

    comp_id = match.partition("/")[0]
    listed = next((m.log_chain for m in arena.matches(comp_id) if m.id == match), "")
    try:
        chain = read_log(log).chain
    except RecordError as e:
        return f"its chain does not verify: {e}"
    if not listed or chain is None:
        return "no published chain value to compare it with"
    if chain.hex() != listed:
        return f"it does NOT end with the published chain value {listed}"
    return f"it ends with the published chain value {listed}"


def _print_comp(c: spb.CompetitionInfo) -> None:
    print(
        f"competition {c.id} ({c.name}): {c.status}, {c.matches_done}/{c.matches_total} matches, "
        f"bots {', '.join(c.bots)}"
    )
    if c.reason:
        print(f"  reason: {c.reason}")
    if c.seed_commitment:
        print(f"  seed commitment: sha256 {c.seed_commitment}")
    if c.seed:
        print(f"  seed revealed: {c.seed}  (check logs with `arena verify-seed`)")


def _watch(arena: ArenaClient, match: str, delay: int, faces: str = "short") -> None:
    """Print a match's public events as they come, in the notation of `arena replay`."""
    from arena.render import event_text

    for event in arena.watch(match, delay):
        print(event_text(event, faces), flush=True)


def add_parsers(sub: Subparsers) -> None:
    p = sub.add_parser(
        "remote", help="talk to an arena server: register bots, run competitions, watch"
    )
    p.add_argument(
        "--server",
        default=os.environ.get("ARENA_SERVER", "127.0.0.1:50051"),
        help="the arena server, HOST:PORT (default: $ARENA_SERVER, else 127.0.0.1:50051; "
        "now %(default)s)",
    )
    p.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="or $ARENA_TOKEN")
    cmds = p.add_subparsers(dest="remote_command", metavar="COMMAND", required=True)
    c = cmds.add_parser("participant", help="register a participant name; prints its token once")
    c.add_argument("name", help="letters, digits and . _ + - (organiser's token needed)")
    cmds.add_parser(
        "rotate-token",
        help="replace your token (participant or organiser); prints the new one once",
    )
    c = cmds.add_parser("register", help="register a bot of yours (it is checked at once)")
    c.add_argument("name", help="the bot's name in competitions")
    c.add_argument("address", help="where the server reaches it, HOST:PORT")
    c = cmds.add_parser("update", help="change the address of a bot of yours")
    c.add_argument("name", help="a bot of yours")
    c.add_argument("address", help="its new address, HOST:PORT")
    c = cmds.add_parser("withdraw", help="withdraw a bot of yours")
    c.add_argument("name", help="a bot of yours")
    cmds.add_parser("bots", help="list the registered bots")
    c = cmds.add_parser("check", help="run the conformance check on an address, from the server")
    c.add_argument("address", help="HOST:PORT of a running bot")
    c = cmds.add_parser(
        "create", help="create a competition from a file (bots = [...]) (organiser)"
    )
    c.add_argument("config", help="a tournament file naming registered bots")
    for name, text in (
        ("start", "start"),
        ("pause", "pause"),
        ("resume", "resume a paused or interrupted"),
        ("status", "show"),
    ):
        c = cmds.add_parser(name, help=f"{text} a competition")
        c.add_argument("id", help="the competition's id, as `create` printed it")
    cmds.add_parser("list", help="list the competitions: state, progress, created, seed commitment")
    c = cmds.add_parser("standings", help="a competition's leaderboard")
    c.add_argument("id", help="the competition's id")
    c = cmds.add_parser("matches", help="a competition's matches")
    c.add_argument("id", help="the competition's id")
    c = cmds.add_parser("log", help="download the log of a finished match")
    c.add_argument("match", help="COMPETITION/MATCH, as `matches` lists them")
    c.add_argument("-o", "--output", required=True, help="the file to write the log to")
    c = cmds.add_parser("watch", help="follow a match live (public information only)")
    c.add_argument("match", help="COMPETITION/MATCH, as `matches` lists them")
    c.add_argument("--delay", type=int, default=0, help="decisions behind the live match")
    c.add_argument(
        "--faces",
        choices=["short", "french", "italian"],
        default="short",
        help="card names: 7d (short), 7♦ (french), 7 di denari (italian)",
    )
    p.set_defaults(func=cmd_remote)
