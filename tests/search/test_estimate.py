"""Playouts cut off between packets, and the expected points that value them."""

from __future__ import annotations

import itertools
import random

import pytest

from arena.errors import ConfigError
from arena.players.search import estimate, ismcts, players
from arena.rules import Deal, Game, Variant, observe
from arena.rules.cards import DENARI_MASK, PRIMIERA, SETTEBELLO
from arena.rules.scoring import primiera


def _deck(seed: int) -> list[int]:
    return random.Random(seed).sample(range(40), 40)


@pytest.mark.parametrize("packets", [1, 2, 3])
@pytest.mark.parametrize("seed", range(12))
def test_a_cut_off_playout_stops_where_step_by_step_play_deals_that_packet(packets, seed):
    variant = Variant(Game.SCOPA)
    a = Deal(variant, seed % 2, _deck(seed))
    for _ in range(seed % 5):  # from inside the first packet too
        a.play(a.legal_moves()[0])
    b = a.copy()
    r1, r2 = random.Random(seed).random, random.Random(seed).random
    dealt = 0
    while not a.is_over:
        pos = a.stock_pos
        moves = a.legal_moves()
        a.play_unchecked(moves[int(r1() * len(moves))])
        if a.stock_pos != pos:
            dealt += 1
            if dealt == packets:
                break
    result = b.random_playout(r2, packets=packets)
    if a.is_over:  # the stock ran out first: played to the end
        assert result == list(a.score().points)
    else:
        assert result == []
    state = ("hands", "table", "piles", "scope", "stock_pos", "cards_in_hands")
    assert [getattr(b, f) for f in state] == [getattr(a, f) for f in state]
    assert (b.last_capturer, b.to_move) == (a.last_capturer, a.to_move)
    assert b.legal_moves() == a.legal_moves() or a.is_over


@pytest.mark.parametrize("seed", range(20))
def test_a_cut_off_playout_goes_on_as_if_it_had_not_stopped(seed):
    """Cut, then played on with the same random draws: the whole playout's end."""
    variant = Variant(Game.SCOPA)
    whole, cut = Deal(variant, 0, _deck(seed)), Deal(variant, 0, _deck(seed))
    r1, r2 = random.Random(seed).random, random.Random(seed).random
    points = whole.random_playout(r1, 0.8)
    while not (result := cut.random_playout(r2, 0.8, packets=1)):
        assert cut.to_move is not None and cut.hands[cut.to_move]
    assert result == points and cut.piles == whole.piles and cut.scope == whole.scope


def _split(total_left: int) -> list[tuple[int, ...]]:
    return list(itertools.product((0, 1), repeat=total_left))


@pytest.mark.parametrize("total", [10, 40])
def test_majority_is_the_chance_over_every_even_split(total):
    rng = random.Random(total)
    for _ in range(30):
        held = rng.randrange(total // 2 + 2)
        other = rng.randrange(min(total - held, total // 2 + 2) + 1)
        left = total - held - other
        if left > 14:
            continue  # enumeration too long; the closed form is the same formula
        half = total // 2
        mine = theirs = 0
        for split in _split(left):
            x = sum(split)
            mine += held + x > half
            theirs += other + left - x > half
        expected = (mine - theirs) / 2**left
        assert estimate._majority(total, held, other) == pytest.approx(expected)
        assert estimate._majority(total, other, held) == pytest.approx(-expected)


def test_a_suits_expected_best_card_is_the_mean_over_every_split():
    rng = random.Random(7)
    for _ in range(60):
        owner = [rng.choice((0, 1, None)) for _ in range(10)]  # pile 0, pile 1, still out
        mine = sum(1 << i for i, o in enumerate(owner) if o == 0)
        theirs = sum(1 << i for i, o in enumerate(owner) if o == 1)
        out = [i for i, o in enumerate(owner) if o is None]
        total = 0.0
        for split in _split(len(out)):
            m = [PRIMIERA[i] for i, o in enumerate(owner) if o == 0]
            t = [PRIMIERA[i] for i, o in enumerate(owner) if o == 1]
            for i, goes in zip(out, split, strict=True):
                (m if goes == 0 else t).append(PRIMIERA[i])
            total += max(m, default=0) - max(t, default=0)
        assert estimate._suit(mine, theirs, 0) == pytest.approx(total / 2 ** len(out))


def test_a_finished_deal_is_valued_at_its_points_up_to_the_primiera():
    """Nothing left out: carte, denari, settebello and scope exact, the
    primiera on the right side (the tanh only approaches 1)."""
    variant = Variant(Game.SCOPA)
    for seed in range(30):
        deal = Deal(variant, 0, _deck(seed))
        deal.random_playout(random.Random(seed).random, 0.8)
        p0, p1 = deal.piles
        exact = float(deal.scope[0] - deal.scope[1])
        exact += (p0.bit_count() > 20) - (p1.bit_count() > 20)
        exact += ((p0 & DENARI_MASK).bit_count() > 5) - ((p1 & DENARI_MASK).bit_count() > 5)
        exact += 1 if p0 >> SETTEBELLO & 1 else -1
        q0, q1 = primiera(p0) or 0, primiera(p1) or 0
        rest = estimate.expected_margin(deal) - exact
        assert -1 < rest < 1 and (rest > 0) == (q0 > q1) and (rest < 0) == (q0 < q1)


@pytest.mark.parametrize(
    "variant, cut",
    [
        (Variant(Game.SCOPA), True),
        (Variant(Game.SCOPA_A_QUATTRO), True),
        (Variant(Game.SCOPONE), False),  # dealt whole: no packet to cut at
        (Variant(Game.SCOPA_A_TRE), False),  # three sides: the estimate is of two
        (Variant(Game.SCOPA, re_bello=True), False),  # a point the estimate does not count
        (Variant(Game.SCOPA, napola=True), False),
    ],
)
def test_a_search_cuts_its_playouts_only_where_the_estimate_holds(variant, cut):
    """Where it does not, the search with a horizon is the search without one,
    draw for draw; where it does, it is another search."""
    deal = Deal(variant, 0, _deck(3))
    obs, moves = observe(deal, deal.to_move), deal.legal_moves()
    with_cut = ismcts.search(obs, moves, random.Random(1), iterations=300, horizon=1)
    without = ismcts.search(obs, moves, random.Random(1), iterations=300, horizon=0)
    assert with_cut.best in moves and all(-20 < v < 20 for v in with_cut.values)
    assert (with_cut.values != without.values) == cut


def test_the_reference_engine_cuts_off_and_the_cheating_bound_plays_to_the_end():
    """ismcts by default; cheating-mcts sees the hands the estimate averages
    over, so it plays to the end unless given --horizon."""
    assert players.think_options("ismcts", []).horizon == ismcts.HORIZON == 1
    assert players.think_options("cheating-mcts", []).horizon == 0
    assert players.think_options("cheating-mcts", ["--horizon", "2"]).horizon == 2
    with pytest.raises(ConfigError, match="horizon"):
        players.think_options("ismcts", ["--horizon", "-1"])
