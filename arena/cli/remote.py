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

from arena.archive import Limits
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
            elif cmd == "submit":
                return _submit(arena, Path(args.path))
            elif cmd == "submissions":
                _print_submissions(arena.submissions(args.name))
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
            elif cmd == "close":
                _print_comp(arena.close_competition(args.id))
            elif cmd == "enter":
                _print_versions([arena.enter_ladder(args.id, args.bot)])
            elif cmd == "versions":
                _print_versions(arena.versions(args.id))
            elif cmd == "list":
                _print_comps(arena.competitions())
            elif cmd == "audit":
                report = arena.audit(args.id, 0 if args.probes_only else args.samples)
                print(report.json if args.json else report.text)
            elif cmd == "standings":
                print(arena.standings(args.id).text)
            elif cmd == "matches" and args.bot:
                _print_bot_matches(arena.bot_matches(args.id, args.bot, args.version or 0))
            elif cmd == "matches":
                if args.version:
                    raise ConfigError("--version chooses among a bot's versions: give --bot NAME")
                _print_matches(arena.matches(args.id))
            elif cmd == "output":
                _write_output(arena.bot_output(args.match, args.bot), args.output)
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
            if e.code() is grpc.StatusCode.UNAVAILABLE:
                print(
                    f"arena: no arena server at {args.server} (is `arena serve` running?)",
                    file=sys.stderr,
                )
            else:
                print(f"arena: server: {e.code().name}: {e.details()}", file=sys.stderr)
            return exits.USAGE
    return exits.OK


def _submit(arena: ArenaClient, path: Path) -> int:
    """Upload a bot (a directory, packed here, or an archive) and print its check."""
    import grpc

    from arena.archive import pack
    from arena.wire.protocol import MAX_SUBMISSION_BYTES

    if path.is_dir():
        data = pack(path)
    else:
        try:
            if path.stat().st_size > MAX_SUBMISSION_BYTES:
                raise ConfigError(f"{path}: larger than {MAX_SUBMISSION_BYTES >> 20} MiB")
            data = path.read_bytes()
        except OSError as e:
            raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    print(f"uploading {path} ({len(data):,} bytes); the server checks it in its sandbox")
    try:
        s = arena.submit_bot(data)
    except grpc.RpcError as e:
        if e.code() is not grpc.StatusCode.FAILED_PRECONDITION:
            raise
        print(f"arena: server: {e.details()}", file=sys.stderr)
        return exits.FAILED
    print(
        f"bot {s.bot} version {s.version} (sha256 {s.sha256}): check passed; "
        "competitions created from now on play this version"
    )
    for item in s.check.items:
        print(f"  {'PASS' if item.passed else 'FAIL'}  {item.name}: {item.detail}")
    return exits.OK


def _print_submissions(history: spb.SubmissionHistory) -> None:
    """A bot's uploads, newest first, then the faults it made in competitions."""
    rows = [
        (
            s.version,
            s.sha256[:16],
            s.submitted_at,
            "passed" if s.check.passed else "FAILED",
            "yes" if s.current else "",
            f"{s.files} files, {s.archive_bytes:,} bytes",
            next((f"{i.name}: {i.detail}" for i in s.check.items if not i.passed), "-"),
        )
        for s in history.submissions
    ]
    headers = ("VERSION", "SHA256", "SUBMITTED", "CHECK", "CURRENT", "SIZE", "FIRST FAILURE")
    print(table(headers, rows))
    failed = next((s for s in history.submissions if not s.check.passed), None)
    if failed is not None and failed.check_output.strip():
        print(f"\nwhat version {failed.version} printed during its check (the end):")
        print(failed.check_output.rstrip())
    print()
    if not history.faults:
        print("no faults in any competition")
        return
    faults = [(f.match, f.kind, _shown_address(f.version), f.message) for f in history.faults]
    print(table(("MATCH", "FAULT", "PLAYED AS", "MESSAGE"), faults))


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
            _shown_address(b.address),
            b.engine_name or "-",
            b.seen_version or b.engine_version or "-",
            "withdrawn" if b.withdrawn else b.status or _unprobed(b.address),
            b.last_seen or "never",
            b.status_detail or "-",
        )
        for b in bots
    ]
    headers = ("BOT", "OWNER", "ADDRESS", "ENGINE", "VERSION", "STATUS", "LAST SEEN", "DETAIL")
    print(table(headers, rows))


def _shown_address(address: str) -> str:
    """An address, or an uploaded bot's submission by the start of its digest."""
    kind, _, digest = address.partition(":")
    return f"submission:{digest[:16]}" if kind == "submission" else address


def _unprobed(address: str) -> str:
    """The status of a bot no liveness probe has seen: uploaded bots are not probed."""
    return "uploaded" if address.startswith("submission:") else "unchecked"


def _print_matches(matches: Iterable[spb.MatchSummary]) -> None:
    rows = [
        (
            m.id,
            " ".join(m.seats),
            m.status,
            "-".join(map(str, m.final_scores)) if m.final_scores else "-",
            _winner(m),
            m.termination or "-",
            m.reason or "-",
            m.log_chain or "-",
        )
        for m in matches
    ]
    headers = ("MATCH", "SEATS", "STATUS", "SCORE", "WINNER", "TERMINATION", "REASON", "CHAIN")
    print(table(headers, rows))


def _winner(m: spb.MatchSummary) -> str:
    """The winning side by its players' names; "draw", or "-" without a result."""
    if m.HasField("winner_side"):
        return "+".join(sorted(set(m.seats[m.winner_side :: 2])))
    if m.termination in ("completed", "forfeit"):
        return "draw"
    return "-"


def _print_bot_matches(reply: spb.BotMatchesReply) -> None:
    """One line per match, the result named from the bot's side."""
    if not reply.matches:
        print(f"bot {reply.bot} has no match in competition {reply.competition}")
        return
    width = max(len(m.match) for m in reply.matches)
    for m in reply.matches:
        who = f"{m.player}  " if m.player != reply.bot else ""
        print(f"{m.match.ljust(width)}  {who}{bot_match_text(m)}")


OUTCOME_WORDS = {"won": "won", "lost": "lost", "drawn": "drew", "forfeit": "forfeited"}


def bot_match_text(m: spb.BotMatch) -> str:
    """ "won 11-9 against greedy", "forfeited 4-11 against search (timeout: ...)"."""
    opponents = " and ".join(m.opponents) or "nobody"
    partners = f" with {' and '.join(m.partners)}" if m.partners else ""
    word = OUTCOME_WORDS.get(m.outcome, m.outcome.replace("_", " "))
    score = f" {m.score}-{m.opponent_score}" if m.HasField("score") else ""
    if m.outcome not in OUTCOME_WORDS:
        score = ""  # no result: the scores say nothing
    text = f"{word}{score}{partners} against {opponents}"
    if m.faults:
        faults = "; ".join(f"{f.kind}: {_one_line(f.message)}" for f in m.faults)
        return f"{text} ({faults})"
    if m.termination not in ("", "completed") and m.reason:
        return f"{text} ({_one_line(m.reason)})"
    return text


def _one_line(text: str) -> str:
    """A message that may quote a bot's last lines, on one line."""
    return " ".join(text.split())


def _write_output(output: spb.BotOutput, path: str | None) -> None:
    """What the bot printed, to a file or standard output; one part per seat
    it sat in, each under a heading when there are several."""
    parts = []
    for s in output.seats:
        heading = f"== seat {s.seat} ({s.player}) ==\n".encode() if len(output.seats) > 1 else b""
        parts.append(heading + s.data)
    data = b"".join(parts)
    for s in output.seats:
        if s.truncated:
            print(
                f"arena: seat {s.seat}: only the first {len(s.data):,} of the "
                f"{s.kept_bytes:,} bytes kept were sent",
                file=sys.stderr,
            )
    if path is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        Path(path).write_bytes(data)
    except OSError as e:
        raise ConfigError(f"{path}: cannot write: {e.strerror}") from None
    print(f"wrote {path} ({len(data):,} bytes of {output.bot}'s output in {output.match})")


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
    from arena.logs.record import read_log

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
    phases = {"ladder": "ladder, open", "final": "ladder, closed: its final"}
    kind = phases.get(c.phase, "ladder") if c.format == "ladder" else c.format or "competition"
    what = "baselines" if c.format == "ladder" else "bots"
    print(
        f"competition {c.id} ({c.name}): {kind}, {c.status}, "
        f"{c.matches_done}/{c.matches_total} matches, {what} {', '.join(c.bots)}"
    )
    if c.reason:
        print(f"  reason: {c.reason}")
    if c.seed_commitment:
        print(f"  seed commitment: sha256 {c.seed_commitment}")
    if c.seed:
        print(f"  seed revealed: {c.seed}  (check logs with `arena verify-seed`)")
    if c.final_seed_commitment:
        print(f"  final's seed commitment: sha256 {c.final_seed_commitment}")
    if c.final_seed:
        print(f"  final's seed revealed: {c.final_seed}  (final matches: `arena verify-seed`)")
    if c.probed:
        print("  collusion audit: partner seats' decisions are probed (docs/audit.md)")


def _print_versions(versions: Iterable[spb.LadderVersion]) -> None:
    rows = [
        (
            v.player,
            v.owner,
            v.state,
            f"{v.live_rating:+.0f} +/- {2 * v.live_sigma:.0f}" if v.state == "active" else "-",
            str(v.sets),
            v.entered_at,
            _shown_address(v.address),
            v.reason or "-",
        )
        for v in versions
    ]
    headers = ("VERSION", "OWNER", "STATE", "LIVE", "SETS", "ENTERED", "ADDRESS", "REASON")
    print(table(headers, rows))


def _watch(arena: ArenaClient, match: str, delay: int, faces: str = "short") -> None:
    """Print a match's public events as they come, in the notation of `arena replay`."""
    from arena.logs.render import event_text

    for event in arena.watch(match, delay):
        print(event_text(event, faces), flush=True)


def _version_number(text: str) -> int:
    """A ladder version's N: 1, 2, ..."""
    if not text.isdigit() or int(text) < 1 or int(text) >= 1 << 32:
        raise argparse.ArgumentTypeError(f"a version is a number from 1, not {text!r}")
    return int(text)


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
    c.add_argument("name", help="letters, digits and . _ + - (anyone may register: no token)")
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
    c = cmds.add_parser(
        "submit",
        help="upload a bot the server runs itself (a directory or a tar.gz/zip with bot.toml)",
        description="Upload a bot for the server to run in its sandbox, a fresh one per "
        "match. PATH is a directory (packed here into a tar.gz, without .git and "
        f"__pycache__) or a tar.gz or zip archive, at most {Limits().archive_bytes >> 20} MiB and "
        f"{Limits().files:,} entries, with "
        "a bot.toml at its top: name, version, command and optionally games (see "
        "docs/submissions.md). The server checks it in the sandbox before it accepts it; "
        "a new version of a bot of yours replaces it in competitions created from then on.",
    )
    c.add_argument("path", help="the bot's directory, or its .tar.gz or .zip")
    c = cmds.add_parser(
        "submissions", help="a bot's uploads with their checks, and its faults (owner)"
    )
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
    c = cmds.add_parser(
        "close",
        help="close a ladder: no more entries; its final, then its final standings (organiser)",
    )
    c.add_argument("id", help="the ladder's id")
    c = cmds.add_parser(
        "enter",
        help="enter a bot of yours in a ladder (its current version; later updates enter too)",
    )
    c.add_argument("id", help="the ladder's id")
    c.add_argument("bot", help="a bot of yours")
    c = cmds.add_parser(
        "versions", help="a ladder's versions: state, live rating, sets, why rejected"
    )
    c.add_argument("id", help="the ladder's id")
    cmds.add_parser("list", help="list the competitions: state, progress, created, seed commitment")
    c = cmds.add_parser(
        "audit",
        help="organiser: the collusion audit of a competition's finished matches",
        description="The organiser's collusion audit of a competition's finished matches, "
        "computed on the server from their logs (docs/audit.md): per partnership, the "
        "probes' disagreements and the log audit's p-value. Evidence, never a verdict: "
        "nobody is disqualified by it.",
    )
    c.add_argument("id", help="the competition's id")
    c.add_argument(
        "--samples",
        type=int,
        default=32,
        metavar="K",
        help="the log audit's sampled deals per move and hand (default 32; at most 256)",
    )
    c.add_argument("--probes-only", action="store_true", help="the probes' test only (fast)")
    c.add_argument("--json", action="store_true", help="print the report as JSON")
    c = cmds.add_parser("standings", help="a competition's leaderboard")
    c.add_argument("id", help="the competition's id")
    c = cmds.add_parser(
        "matches",
        help="a competition's matches, or one bot's with results from its side (--bot)",
    )
    c.add_argument("id", help="the competition's id")
    c.add_argument("--bot", help="only this bot's matches, each result named from its side")
    c.add_argument(
        "--version",
        type=_version_number,
        help="with --bot, in a ladder: only its version N (BOT@N)",
    )
    c = cmds.add_parser(
        "output",
        help="what a bot of yours printed in a finished match (owner or organiser)",
        description="Download the standard output and error a bot the arena launched "
        "(an uploaded bot, in its sandbox) wrote during a finished match. Only the bot's "
        "owner and the organiser may; a bot at an address ran on its owner's machine.",
    )
    c.add_argument("match", help="COMPETITION/MATCH, as `matches` lists them")
    c.add_argument("--bot", required=True, help="a bot of yours that played in it")
    c.add_argument("-o", "--output", help="the file to write it to (default: standard output)")
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
