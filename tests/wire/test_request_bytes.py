"""The decision request as the referee sends it, assembled from parts encoded
once (arena.wire.request_bytes), is byte for byte the message protobuf
serializes, in every game and option, at every decision of real deals,
with every kind of clock: the bytes a seat is sent did not change."""

import random

from arena.engine import Decision, SeatClock
from arena.rules import Game, Match, Variant
from arena.rules.variants import cirulla_options
from arena.wire import convert
from arena.wire.request_bytes import decision_bytes, observation_bytes
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
