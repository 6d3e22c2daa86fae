"""`arena remote ...`: the organiser's and participants' client for `arena serve`.

The token comes from --token or $ARENA_TOKEN; the server from --server or
$ARENA_SERVER (default 127.0.0.1:50051). `watch` prints a match live in the
notation of `arena replay`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc

from arena.errors import ConfigError
from arena.render import face_namer
from arena.wire import convert
from arena.wire.v1 import server_pb2 as spb
from arena.wire.v1 import server_pb2_grpc


def add_remote_parser(sub: Any, func: Callable[[argparse.Namespace], int]) -> None:
    p = sub.add_parser(
        "remote", help="talk to an arena server: register bots, run competitions, watch"
    )
    p.add_argument("--server", default=os.environ.get("ARENA_SERVER", "127.0.0.1:50051"))
    p.add_argument("--token", default=os.environ.get("ARENA_TOKEN"), help="or $ARENA_TOKEN")
    cmds = p.add_subparsers(dest="remote_command", metavar="COMMAND", required=True)
    c = cmds.add_parser("participant", help="register a participant name; prints its token once")
    c.add_argument("name")
    c = cmds.add_parser("register", help="register a bot of yours (it is checked at once)")
    c.add_argument("name")
    c.add_argument("address")
    c = cmds.add_parser("update", help="change the address of a bot of yours")
    c.add_argument("name")
    c.add_argument("address")
    c = cmds.add_parser("withdraw", help="withdraw a bot of yours")
    c.add_argument("name")
    cmds.add_parser("bots", help="list the registered bots")
    c = cmds.add_parser("check", help="run the conformance check on an address, from the server")
    c.add_argument("address")
    c = cmds.add_parser(
        "create", help="create a competition from a file (bots = [...]) (organiser)"
    )
    c.add_argument("config")
    for name, text in (
        ("start", "start"),
        ("pause", "pause"),
        ("resume", "resume a paused"),
        ("status", "show"),
    ):
        c = cmds.add_parser(name, help=f"{text} a competition")
        c.add_argument("id")
    c = cmds.add_parser("standings", help="a competition's leaderboard")
    c.add_argument("id")
    c = cmds.add_parser("matches", help="a competition's matches")
    c.add_argument("id")
    c = cmds.add_parser("log", help="download the log of a finished match")
    c.add_argument("match", help="COMPETITION/MATCH, as `matches` lists them")
    c.add_argument("-o", "--output", required=True)
    c = cmds.add_parser("watch", help="follow a match live (public information only)")
    c.add_argument("match")
    c.add_argument("--delay", type=int, default=0, help="decisions behind the live match")
    p.set_defaults(func=func)


def run_remote(args: argparse.Namespace) -> int:
    channel = grpc.insecure_channel(args.server, options=[("grpc.enable_http_proxy", 0)])
    stub = server_pb2_grpc.ArenaStub(channel)
    meta = [("authorization", f"Bearer {args.token}")] if args.token else []
    cmd = args.remote_command
    try:
        if cmd == "participant":
            r = stub.RegisterParticipant(spb.RegisterParticipantRequest(name=args.name), timeout=10)
            print(f"participant {r.name}; token (shown once, keep it): {r.token}")
        elif cmd in ("register", "update"):
            call = stub.RegisterBot if cmd == "register" else stub.UpdateBot
            req = (spb.RegisterBotRequest if cmd == "register" else spb.UpdateBotRequest)(
                name=args.name, address=args.address
            )
            _print_bot(call(req, metadata=meta, timeout=60))
        elif cmd == "withdraw":
            _print_bot(stub.WithdrawBot(spb.BotRef(name=args.name), metadata=meta, timeout=10))
        elif cmd == "bots":
            for bot in stub.ListBots(spb.ListBotsRequest(), timeout=10).bots:
                _print_bot(bot)
        elif cmd == "check":
            report = stub.CheckBot(spb.CheckBotRequest(address=args.address), timeout=60)
            for item in report.items:
                print(f"  {'PASS' if item.passed else 'FAIL'}  {item.name}: {item.detail}")
            return 0 if report.passed else 1
        elif cmd == "create":
            try:
                text = Path(args.config).read_text()
            except OSError as e:
                raise ConfigError(f"{args.config}: cannot read: {e.strerror}") from None
            _print_comp(
                stub.CreateCompetition(
                    spb.CreateCompetitionRequest(config=text), metadata=meta, timeout=30
                )
            )
        elif cmd in ("start", "pause", "resume"):
            call = {
                "start": stub.StartCompetition,
                "pause": stub.PauseCompetition,
                "resume": stub.ResumeCompetition,
            }[cmd]
            _print_comp(call(spb.CompetitionRef(id=args.id), metadata=meta, timeout=30))
        elif cmd == "status":
            _print_comp(stub.GetCompetition(spb.CompetitionRef(id=args.id), timeout=10))
        elif cmd == "standings":
            print(stub.GetStandings(spb.CompetitionRef(id=args.id), timeout=60).text)
        elif cmd == "matches":
            for m in stub.ListMatches(spb.CompetitionRef(id=args.id), timeout=30).matches:
                score = "-".join(map(str, m.final_scores)) if m.final_scores else ""
                print(f"{m.id:<40} {' '.join(m.seats):<40} {m.status:<8} {score} {m.termination}")
        elif cmd == "log":
            data = stub.GetMatchLog(spb.MatchRef(id=args.match), timeout=60).data
            Path(args.output).write_bytes(data)
            print(
                f"wrote {args.output} ({len(data)} bytes); "
                f"check it with `arena replay {args.output}`"
            )
        elif cmd == "watch":
            _watch(stub, args.match, args.delay)
    except grpc.RpcError as e:
        print(f"arena: server: {e.code().name}: {e.details()}", file=sys.stderr)
        return 2
    finally:
        channel.close()
    return 0


def _print_bot(bot: spb.BotInfo) -> None:
    state = " (withdrawn)" if bot.withdrawn else ""
    print(
        f"{bot.name:<20} {bot.owner:<14} {bot.address:<24} "
        f"{bot.engine_name} {bot.engine_version}{state}"
    )


def _print_comp(c: spb.CompetitionInfo) -> None:
    print(
        f"competition {c.id} ({c.name}): {c.status}, {c.matches_done}/{c.matches_total} matches, "
        f"bots {', '.join(c.bots)}"
    )


def _watch(stub: Any, match: str, delay: int) -> None:
    name = face_namer("french")

    def cards(msgs: Any) -> str:
        return " ".join(name(c) for c in convert.cards_from_pb(msgs)) or "-"

    for event in stub.WatchMatch(spb.WatchRequest(id=match, delay=delay)):
        kind = event.WhichOneof("event")
        if kind == "deal_start":
            print(
                f"== deal {event.deal_start.deal_number + 1}, "
                f"dealer seat {event.deal_start.dealer}; "
                f"table {cards(event.table)}"
            )
        elif kind == "play":
            p = event.play
            taken = f"takes {cards(p.move.captures)}" if p.move.captures else "is laid"
            scopa = "   SCOPA!" if p.scopa else ""
            print(
                f"   seat {p.seat}: {cards([p.move.card])} {taken}{scopa}"
                f"   table {cards(event.table)}"
            )
        elif kind == "deal_end":
            points = [s.total for s in event.deal_end.sides]
            print(
                f"   deal scored {points[0]} - {points[1]}; "
                f"match {' - '.join(map(str, event.deal_end.match_scores))}"
            )
        elif kind == "match_end":
            r = event.match_end
            print(f"final score {' - '.join(map(str, r.final_scores))} ({r.reason})")
        sys.stdout.flush()
