"""The bytes sent to a seat are identical whatever the cards it cannot see."""

import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from arena.match.engine import Decision, SeatClock
from arena.match.settings import ClockSettings, MatchSettings
from arena.rules import Game, Variant
from arena.wire.convert import decision_to_pb
from tests.support.bots import UNCONFINED, bot, recorded
from tests.support.matches import play
from tests.support.positions import random_position, shuffle_hidden


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(list(Game)), st.integers(0, 2**32), st.integers(0, 30), st.data())
def test_request_bytes_do_not_depend_on_hidden_cards(game, seed, steps, data):
    match = random_position(game, seed, steps)
    assume(match is not None)
    deal = match.deal
    assert deal is not None
    seat = deal.to_move
    other = shuffle_hidden(match, seat, random.Random(seed + 7))
    clock = SeatClock.of(ClockSettings(), None)
    a = decision_to_pb(Decision.of(match, seat, clock, "m", steps))
    b = decision_to_pb(Decision.of(other, seat, clock, "m", steps))
    assert a.SerializeToString() == b.SerializeToString()
    # The bytes compared hold what the seat remembers of the deal (protocol
    # v1 fields 14-16): each side's captured cards and the opening table.
    sent = a.observation
    assert [len(s.cards) for s in sent.captured_cards] == [p.bit_count() for p in deal.piles]
    assert len(sent.opening_table) == (0 if game is Game.SCOPONE_SCIENTIFICO else 4)
    assert sent.HasField("last_capture_seat") == any(p.captures for p in deal.plays)


def first_request(own: list[int], rest: list[int], record, tag) -> bytes:
    """The bytes of the first request seat 0 (a spy bot) receives, Scopone
    scientifico, dealer seat 3: seat 0 is dealt ``own`` and plays first."""
    deck = own + rest
    play(
        MatchSettings(
            Variant(Game.SCOPONE_SCIENTIFICO, target=None, deal_limit=1),
            seed=1,
            first_dealer=3,
            match_id="hidden",
            decks=lambda i, attempt: deck,
            sandbox=UNCONFINED,
        ),
        [
            f"spy={bot('spy', '--record', str(record), tag)}",
            "r=builtin:random",
            "g=builtin:greedy",
            "r2=builtin:random",
        ],
    )
    return recorded(record)[0]


@pytest.mark.process
def test_bytes_on_the_wire_are_identical_when_hidden_cards_move(tag, tmp_path):
    base = list(range(40))
    random.Random(5).shuffle(base)
    mine, hidden = base[:10], base[10:]
    original = first_request(mine, hidden, tmp_path / "original.bin", tag)
    permuted = list(hidden)
    random.Random(9).shuffle(permuted)  # partner's and opponents' hands change
    assert permuted != hidden
    assert first_request(mine, permuted, tmp_path / "permuted.bin", tag) == original
    # The test can fail: swapping one of seat 0's own cards changes its bytes.
    changed = first_request(
        [*mine[1:], hidden[0]], [mine[0], *hidden[1:]], tmp_path / "changed.bin", tag
    )
    assert changed != original
