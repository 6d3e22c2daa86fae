"""The decision request as the referee sends it, assembled from parts encoded
once (arena.wire.convert.engine_bytes), is byte for byte the message protobuf
serializes, in every game and option, at every decision of real deals,
with every kind of clock: the bytes a seat is sent did not change."""

import dataclasses
import math
import random

import pytest

from arena.errors import FaultKind
from arena.match.engine import Decision, SeatClock
from arena.match.outcome import DecisionRecord, Fault, ProbeRecord
from arena.rules import Game, Match, Variant
from arena.rules.variants import cirulla_options
from arena.wire import convert
from arena.wire.convert.engine_bytes import decision_bytes, decision_record_bytes, observation_bytes
from arena.wire.v1 import engine_pb2 as epb

OPTION_SETS = (
    {},
    {"fewest_cards": True, "leftovers_to_last_player": True},
    {"re_bello": True, "napola": True, "napoleone": True, "last_sweep": True},
    {"ace_takes_all": True, "ace_sweep_scores": True},
    {"fifteen": True},
)
CLOCKS = (
    SeatClock(1.0, None, 0.0, 1.0),
    SeatClock(None, 123.4567, 2.5, 123.4567),  # a bank alone, fractions of a millisecond
    SeatClock(0.25, 5_000_000.0, 0.0, 0.25),  # a bank past 2**32 ms
    SeatClock(None, 0.0, 0.0, 0.0),  # nothing left: every field 0
)


def decisions(seed: int):
    rng = random.Random(seed)
    for game in Game:
        for options in (*OPTION_SETS, cirulla_options(game)):
            match = Match(Variant(game, **options), seed=rng.randrange(2**32))
            for _ in range(2):  # two deals: scores and the dealer move on
                deal = match.start_deal()
                number = 0
                while not deal.is_over:
                    clock = CLOCKS[number % len(CLOCKS)]
                    match_id = "" if number % 5 == 0 else f"m{rng.randrange(16**16):016x}"
                    yield Decision.of(match, deal.to_move, clock, match_id, number)
                    deal.play_offered(rng.choice(deal.offered_moves()))
                    number += 1
                match.end_deal()
                if match.is_over:
                    break


def test_every_request_is_the_messages_own_bytes():
    seen = 0
    declaring = 0
    for decision in decisions(5):
        expected = convert.decision_to_pb(decision)
        assert decision_bytes(decision) == expected.SerializeToString(), decision.observation
        assert observation_bytes(decision.observation) == expected.observation.SerializeToString()
        seen += 1
        declaring += len(decision.legal_moves) > len({(m[0], m[1]) for m in decision.legal_moves})
    assert seen > 2000 and declaring > 0  # declarations offered among them


def test_the_bytes_read_back_as_the_request():
    for decision in list(decisions(9))[:300]:
        request = epb.DecisionRequest.FromString(decision_bytes(decision))
        observation, moves = convert.decision_from_pb(request)
        assert observation == decision.observation and moves == list(decision.legal_moves)
        assert request.decision == decision.number and request.match_id == decision.match_id


# Values at and past the edges of each field of the log's Decision record.
THINK_TIMES = (0.0, 1e-7, 0.000_000_5, 0.0123456, 3.5, 1e9, math.inf, math.nan)
DEADLINES = (None, 0.0, 0.0004, 0.0005, 1.0, 123.4567, 4_294_967.2955)
BANKS = (None, 0.0, 0.0015, 5_000_000.0, 2e10)
COMMENTS = ("", "c", "é ♠ 🂡", "x" * 300)


def test_every_usual_decision_record_is_the_messages_own_bytes():
    """The log's chain is over a record's bytes: those built from parts must
    be the message's, for every move of real deals in every game and option,
    every clock value at and past its field's edges, scopa or not, with or
    without a comment. Records with a fault, probes or no move are left to
    the message (None)."""
    rng = random.Random(7)
    checked = refused = 0
    for n, decision in enumerate(decisions(3)):
        for move in decision.legal_moves:
            record = DecisionRecord(
                deal_number=rng.randrange(40),
                decision=decision.number,
                seat=decision.observation.seat,
                move=move,
                think_time=THINK_TIMES[n % len(THINK_TIMES)],
                scopa=n % 3 == 0,
                comment=COMMENTS[n % len(COMMENTS)],
                deadline=DEADLINES[n % len(DEADLINES)],
                bank_left=BANKS[n % len(BANKS)],
            )
            try:
                expected = convert.decision_record(record).SerializeToString()
            except ValueError:  # out of its field's range: left to the message
                assert decision_record_bytes(record) is None, record
                refused += 1
                continue
            assert decision_record_bytes(record) == expected, record
            checked += 1
    assert checked > 5_000 and refused > 0
    record = dataclasses.replace(record, deadline=1.0, bank_left=None)
    fault = Fault(0, FaultKind.TIMEOUT, 1, 0, "late")
    probe = ProbeRecord("p", (), None, "x", 0.1)
    for odd in (
        dataclasses.replace(record, fault=fault),
        dataclasses.replace(record, probes=(probe,)),
        dataclasses.replace(record, move=None),
        dataclasses.replace(record, comment="\ud800"),  # not UTF-8: the message's error
    ):
        assert decision_record_bytes(odd) is None
    with pytest.raises(ValueError):  # a negative bank: the message refuses it too
        convert.decision_record(dataclasses.replace(record, bank_left=-1.0))
    assert decision_record_bytes(dataclasses.replace(record, bank_left=-1.0)) is None
