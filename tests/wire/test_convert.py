"""rules value -> protobuf -> rules value is the identity for every message kind,
and bad messages give WireError naming the field."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import FaultKind, WireError
from arena.match.outcome import Fault, MatchResult, Termination
from arena.rules import Game, Match, Move, Sight, Variant, observe, view
from arena.wire import convert as cv
from arena.wire.v1 import engine_pb2, scopa_pb2

variants = st.builds(
    Variant,
    game=st.sampled_from(list(Game)),
    target=st.one_of(st.none(), st.integers(1, 50)),
    deal_limit=st.integers(1, 20),
    fewest_cards=st.booleans(),
    leftovers_to_last_player=st.booleans(),
    re_bello=st.booleans(),
    napola=st.booleans(),
    last_sweep=st.booleans(),
)


def reparse(msg):
    """Through real bytes, as on the wire."""
    return type(msg).FromString(msg.SerializeToString())


def test_every_card():
    for c in range(40):
        assert cv.card_from_pb(reparse(cv.card_to_pb(c))) == c


@given(variants)
def test_variant(v):
    assert cv.variant_from_pb(reparse(cv.variant_to_pb(v))) == v


@given(st.integers(0, 39), st.integers(0, 2**40 - 1))
def test_move(card, captures):
    captures &= ~(1 << card)
    m = Move(card, captures)
    assert cv.move_from_pb(reparse(cv.move_to_pb(m))) == m


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(list(Game)), st.integers(0, 2**32), st.integers(0, 30))
def test_observation_play_deal_result_and_finished_deal(game, seed, steps):
    match = Match(Variant(game), seed=seed)
    rng = random.Random(seed)
    deal = match.start_deal()
    for _ in range(steps):
        deal.play(rng.choice(deal.legal_moves()))
    for seat in range(game.seats):
        obs = observe(match, seat)
        assert cv.observation_from_pb(reparse(cv.observation_to_pb(obs))) == obs
    for p in deal.plays:
        assert cv.play_from_pb(reparse(cv.play_to_pb(p))) == p
    while not deal.is_over:
        deal.play(rng.choice(deal.legal_moves()))
    done = match.end_deal()
    started, plays, result = cv.finished_deal_to_pb(done)
    again = cv.finished_deal_from_pb(reparse(started), [reparse(p) for p in plays], reparse(result))
    assert again == done
    assert cv.side_scores_from_pb(list(reparse(result).sides)) == done.score


@pytest.mark.parametrize("game", list(Game))
def test_every_step_of_deals_converts_exactly_for_seats_and_spectators(game):
    """Plays are converted once per deal and extended play by play: at every
    step, for every seat and for a spectator, the message still reads back as
    the view it came from."""
    rng = random.Random(game.value)
    match = Match(Variant(game), seed=11)
    for _ in range(3):
        deal = match.start_deal()
        while True:
            for seat in range(game.seats):
                obs = observe(match, seat)
                assert cv.observation_from_pb(reparse(cv.observation_to_pb(obs))) == obs
            public = view(match, Sight.PUBLIC)
            assert cv.public_view_from_pb(reparse(cv.public_view_to_pb(public))) == public
            if deal.is_over:
                break
            deal.play(rng.choice(deal.legal_moves()))
        match.end_deal()


@given(
    st.lists(
        st.builds(
            Fault,
            st.integers(0, 3),
            st.sampled_from(list(FaultKind)),
            st.integers(0, 9),
            st.integers(0, 40),
            st.text(),
        ),
        max_size=3,
    ),
    st.sampled_from(list(Termination)),
    st.one_of(st.none(), st.integers(0, 1)),
)
def test_fault_and_match_result(faults, termination, winner):
    r = MatchResult((11, 7), winner, termination, "why", tuple(faults), 3)
    assert cv.match_result_from_pb(reparse(cv.match_result_to_pb(r))) == r
    for f in faults:
        assert cv.fault_from_pb(reparse(cv.fault_to_pb(f))) == f


def test_observation_is_what_a_bot_gets_in_a_decision_request():
    match = Match(Variant(Game.SCOPA), seed=1)
    match.start_deal()
    req = engine_pb2.DecisionRequest(observation=cv.observation_to_pb(observe(match, 1)))
    assert cv.observation_from_pb(reparse(req).observation).seat == 1


@pytest.mark.parametrize(
    ("msg", "why"),
    [
        (scopa_pb2.Move(), "no card"),
        (scopa_pb2.Move(card=scopa_pb2.Card(suit=0, rank=3)), "suit 0"),
        (scopa_pb2.Move(card=scopa_pb2.Card(suit=1, rank=11)), "rank 11"),
        (
            scopa_pb2.Move(
                card=scopa_pb2.Card(suit=1, rank=5), captures=[scopa_pb2.Card(suit=2, rank=2)] * 2
            ),
            "twice",
        ),
        (
            scopa_pb2.Move(
                card=scopa_pb2.Card(suit=1, rank=5), captures=[scopa_pb2.Card(suit=1, rank=5)]
            ),
            "also among the captures",
        ),
    ],
)
def test_bad_moves_are_wire_errors(msg, why):
    with pytest.raises(WireError, match=why):
        cv.move_from_pb(msg)


def test_bad_variant_and_results():
    with pytest.raises(WireError, match="unknown game"):
        cv.variant_from_pb(scopa_pb2.Variant(game=0))
    with pytest.raises(WireError, match="target score"):
        cv.variant_from_pb(scopa_pb2.Variant(game=1))
    with pytest.raises(WireError, match="expected 2"):
        cv.side_scores_from_pb([scopa_pb2.SideScore()])
    with pytest.raises(WireError, match="more than once"):
        cv.side_scores_from_pb(
            [scopa_pb2.SideScore(carte_point=1), scopa_pb2.SideScore(carte_point=1)]
        )
    with pytest.raises(WireError, match="termination"):
        cv.match_result_from_pb(scopa_pb2.MatchResult())


def test_an_answer_read_from_its_bytes_is_the_answer_of_its_message():
    """The connections' response deserializer keeps short answers by their
    bytes: what it gives must be what parsing and converting give, first time
    and every time, for moves, comments, declarations and unreadable ones."""
    plain = engine_pb2.DecisionResponse(move=cv.move_to_pb(Move(0, 0b110)))
    commented = engine_pb2.DecisionResponse(move=plain.move, comment="c")
    long = engine_pb2.DecisionResponse(move=plain.move, comment="x" * 100)
    declaring = engine_pb2.DecisionResponse(move=plain.move)
    declaring.move.declaration = scopa_pb2.DECLARATION_DECINO
    unreadable = engine_pb2.DecisionResponse(comment="no move")
    # Card 1 played and captured at once: unreadable.
    both = engine_pb2.DecisionResponse(move=cv.move_to_pb(Move(1, 0b110)))
    for message in (plain, commented, long, declaring, unreadable, both):
        data = message.SerializeToString()
        expected = cv.answer_from_pb(message)
        assert cv.answer_from_bytes(data) == expected
        assert cv.answer_from_bytes(data) == expected  # again, from the cache
    assert cv.answer_from_bytes(plain.SerializeToString()).move == Move(0, 0b110)
    assert cv.answer_from_bytes(both.SerializeToString()).unreadable
    assert long.SerializeToString() not in cv.engine._ANSWERS
    with pytest.raises(Exception, match=r"[Ee]rror parsing|[Dd]ecode"):
        cv.answer_from_bytes(b"\xff\xff\xff")


def test_a_deal_end_is_the_same_message_for_every_seat_but_its_seat():
    """DealEnd's body is built once per deal and copied for each seat: each
    copy is the message built directly, and telling one seat changes nothing
    another is told."""
    from arena.match.engine import DealEnded

    for seed in (1, 2):
        match = Match(Variant(Game.SCOPONE), seed=seed)
        deal = match.start_deal()
        while deal.to_move is not None:
            deal.play_offered(deal.offered_moves()[0])
        done = match.end_deal()
        told = [cv.notification_to_pb(DealEnded(f"m{seed}", seat, done)) for seat in range(4)]
        for seat, (method, message) in enumerate(told):
            direct = engine_pb2.DealEnd(
                match_id=f"m{seed}",
                seat=seat,
                result=cv.deal_result_to_pb(done),
                plays=[cv.play_to_pb(p) for p in done.plays],
            )
            assert method == "DealEnded" and message == direct
            assert message.SerializeToString() == direct.SerializeToString()
