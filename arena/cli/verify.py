"""`arena verify-seed`: do match logs' decks follow from a revealed seed?"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arena.cli import exits
from arena.cli.common import Subparsers

DESCRIPTION = """\
Check that match logs were dealt from a seed (docs/seeds.md). For a log of a
tournament, an SPRT run or a competition, SEED is the master seed revealed at
the end of the run: the log's seed must be the seed of its duplicate set (named
by the log's schedule id), and its first dealer and every deck, voided ones
included, must be those that seed gives. For the log of a single `arena match`,
SEED is the match seed itself. The commitment of SEED is printed first: compare
it with the one published before the run."""

EPILOG = """\
exit status:
  0  every log follows from SEED
  1  a log does not (its line says the first thing that differs)
  2  a log cannot be read, or SEED is not text"""


def check_log(master: str, path: Path) -> tuple[bool, str]:
    """Whether a log follows from the master seed, and what to say about it.
    RecordError if it is not a readable match log."""
    from arena.errors import RecordError, RulesError, WireError
    from arena.logs.record import read_log
    from arena.match.outcome import DealStart, MatchHeader
    from arena.rules.seeding import deck_difference, match_seed
    from arena.wire.convert import log_entry_from_pb

    contents = read_log(path)
    decks: list[list[tuple[int, ...]]] = []
    try:
        header = log_entry_from_pb(contents.records[0])
        for record in contents.records[1:]:
            if record.WhichOneof("record") == "deal_started":
                deal = log_entry_from_pb(record)
                assert isinstance(deal, DealStart)
                decks.append([*deal.void_decks, deal.deck])
    except WireError as e:
        raise RecordError(f"{path}: {e}") from None
    assert isinstance(header, MatchHeader)
    where = header.schedule_id or "single match"
    try:
        seed = match_seed(master, header.schedule_id)
    except RulesError as e:
        return False, f"{where}: {e}"
    if header.seed != seed:
        return False, f"{where}: the log's seed is {header.seed}, SEED gives {seed}"
    difference = deck_difference(seed, header.variant.seats, header.first_dealer, decks)
    if difference is not None:
        return False, f"{where}: {difference}"
    return True, f"{where}, seed {seed}, {len(decks)} deals"


def cmd_verify_seed(args: argparse.Namespace) -> int:
    from arena.errors import RecordError
    from arena.rules import commitment

    print(f"commitment of SEED: {commitment(args.seed)}")
    differs = unreadable = False
    for name in args.logs:
        try:
            ok, what = check_log(args.seed, Path(name))
        except RecordError as e:
            print(f"arena: error: {e}", file=sys.stderr)
            unreadable = True
            continue
        print(f"{name}: OK ({what})" if ok else f"{name}: DIFFERS: {what}", flush=True)
        differs |= not ok
    if unreadable:
        return exits.USAGE
    return exits.FAILED if differs else exits.OK


def add_parsers(sub: Subparsers) -> None:
    verify = sub.add_parser(
        "verify-seed",
        help="check that match logs' decks follow from a revealed seed",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    verify.add_argument("seed", metavar="SEED", help="the revealed master seed, or a match seed")
    verify.add_argument("logs", metavar="LOG", nargs="+", help="match logs to check")
    verify.set_defaults(func=cmd_verify_seed)
