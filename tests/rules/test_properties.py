"""Property tests over random deals and random play (hypothesis)."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.rules import Deal, Game, Match, Move, Variant, legal_moves, seeded_deck
from arena.rules.cards import RANK, RANK_MASK, cards_of

ALL = (1 << 40) - 1
games = st.sampled_from(list(Game))
seeds = st.integers(min_value=0, max_value=2**32)


def accounted(deal: Deal) -> int:
    """Every card must be in exactly one place: a hand, the table, a pile or the stock."""
    places = [
        *deal.hands,
        deal.table,
        *deal.piles,
        sum(1 << c for c in deal.deck[deal.stock_pos :]),
    ]
    total = 0
    for p in places:
        assert total & p == 0, "a card is in two places"
        total |= p
    return total


@settings(max_examples=150, deadline=None)
@given(games, seeds, seeds, *[st.booleans()] * 5)
def test_random_deals_keep_every_rule(
    game, deck_seed, play_seed, fewest, last_player, re_bello, napola, ace
):
    variant = Variant(
        game,
        fewest_cards=fewest,
        leftovers_to_last_player=last_player,
        re_bello=re_bello,
        napola=napola,
        last_sweep=re_bello and napola,  # more options, without more draws
        ace_takes_all=ace,
        ace_sweep_scores=ace and fewest,
    )
    deal = Deal(variant, deck_seed % game.seats, seeded_deck(deck_seed, 0))
    rng = random.Random(play_seed)
    while not deal.is_over:
        assert accounted(deal) == ALL  # 40 cards conserved at every step
        table = deal.table
        moves = deal.legal_moves()
        assert moves, "a seat to move always has a move"
        for m in moves:
            if ace and RANK[m.card] == 1 and table and not table & RANK_MASK[1]:
                assert m.captures == table  # the ace takes all
                continue
            # No trail of a card that could capture.
            if not m.captures:
                assert not table & RANK_MASK[RANK[m.card]]
                assert all(
                    sum(RANK[c] for c in cards_of(s)) != RANK[m.card]
                    for s in _subsets(table)
                    if s.bit_count() >= 2
                )
            else:
                assert sum(RANK[c] for c in cards_of(m.captures)) == RANK[m.card]
        move = rng.choice(moves)
        deal.check(move)  # every move generated is legal by the checker too
        deal.play(move)
    assert accounted(deal) == ALL
    # A finished deal has empty hands, an empty stock and (someone captured) an empty table.
    assert not any(deal.hands) and deal.stock_count == 0
    if any(p.captures for p in deal.plays):
        assert deal.table == 0 and sum(p.bit_count() for p in deal.piles) == 40
    # Scores add up: the breakdown sums to the points; at most 4 non-scopa points
    # per deal, one more with the re bello, and a napola for at most one side.
    score = deal.score()
    for side in (0, 1):
        assert sum(score.breakdown(side).values()) == score.points[side]
    napolas = [t.napola for t in score.tallies]
    assert min(napolas) == 0 and (napola or max(napolas) == 0)
    assert sum(score.points) - sum(deal.scope) - sum(napolas) <= 4 + re_bello
    assert (score.re_bello is not None) == (re_bello and any(p >> 9 & 1 for p in deal.piles))
    assert list(score.points) == deal.points()
    assert sum(p.scopa for p in deal.plays) == sum(deal.scope)
    assert not deal.plays[-1].scopa or variant.last_sweep  # the last card sweeps for nothing
    if ace and not variant.ace_sweep_scores:  # nor does an ace that took all
        assert not any(
            p.scopa and RANK[p.card] == 1 and not p.captures & RANK_MASK[1] for p in deal.plays
        )


def _subsets(mask: int):
    cards = cards_of(mask)
    for bits in range(1, 1 << len(cards)):
        yield sum(1 << cards[i] for i in range(len(cards)) if bits >> i & 1)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 39), max_size=12, unique=True),
    st.lists(st.integers(0, 39), max_size=4, unique=True),
    st.booleans(),
)
def test_legal_moves_match_brute_force(table_cards, hand_cards, ace_takes_all):
    hand_cards = [c for c in hand_cards if c not in table_cards]
    table = sum(1 << c for c in table_cards)
    hand = sum(1 << c for c in hand_cards)
    expected = set()
    for c in hand_cards:
        same = [
            s for s in _subsets(table) if s.bit_count() == 1 and RANK[cards_of(s)[0]] == RANK[c]
        ]
        sums = [
            s
            for s in _subsets(table)
            if s.bit_count() >= 2 and sum(RANK[x] for x in cards_of(s)) == RANK[c]
        ]
        options = same or sums or [0]
        if ace_takes_all and RANK[c] == 1 and table and not same:
            options = [table]  # scopa d'assi: the ace takes the whole table
        expected |= {(c, s) for s in options}
    got = legal_moves(hand, table, ace_takes_all=ace_takes_all)
    assert len(got) == len(set(got)) and set(got) == expected


@settings(max_examples=80, deadline=None)
@given(games, seeds, seeds, st.booleans(), st.booleans())
def test_random_playout_equals_step_by_step_play(game, deck_seed, play_seed, regional, ace):
    variant = Variant(
        game,
        re_bello=regional,
        napola=regional,
        last_sweep=regional,
        ace_takes_all=ace,
        ace_sweep_scores=ace and regional,
    )
    a = Deal(variant, deck_seed % game.seats, seeded_deck(deck_seed, 1))
    rng = random.Random(deck_seed)
    for _ in range(rng.randrange(12)):  # start from somewhere inside the deal
        a.play(rng.choice(a.legal_moves()))
    assert_playout_equals_steps(a.copy(), play_seed)
    assert_playout_equals_steps(a.copy(), play_seed, capture_bias=0.8, care=0.7)
    assert_playout_equals_steps(a, play_seed, capture_bias=0.8, care=0.7, sweep=0.9)


def _left(table: int, move: Move) -> int:
    """The ranks left on the table after ``move``, added up."""
    after = table & ~move.captures if move.captures else table | 1 << move.card
    return sum(RANK[c] for c in cards_of(after))


def assert_playout_equals_steps(
    a: Deal,
    play_seed: int,
    where: object = None,
    capture_bias: float = 0.0,
    care: float = 0.0,
    sweep: float = 0.0,
) -> None:
    """From ``a``'s position, random_playout ends where playing each of its
    moves step by step does (the same random draws pick the same moves; with
    a capture bias, the captures alone, when drawn, as the docstring says)."""
    b = a.copy()
    r1, r2 = random.Random(play_seed).random, random.Random(play_seed).random
    # The tables one card could sweep add up to low..high (see random_playout).
    v = a.variant
    low, high = (1 if v.fifteen_ordinary else 5, 14) if v.fifteen else (1, 10)
    while not a.is_over:
        moves = a.legal_moves()
        sweeps = [m for m in moves if a.table and m.captures == a.table]
        if sweep and sweeps and len(sweeps) < len(moves) and r1() < sweep:
            moves = sweeps
        captures = [m for m in moves if m.captures]
        if capture_bias and captures and len(captures) < len(moves) and r1() < capture_bias:
            moves = captures
        if care:
            safe = [m for m in moves if not low <= _left(a.table, m) <= high]
            if safe and len(safe) < len(moves) and r1() < care:
                moves = safe
        a.play_unchecked(moves[int(r1() * len(moves))])
    points = b.random_playout(r2, capture_bias, care, sweep)
    assert (b.hands, b.table, b.piles, b.scope, b.leftover) == (
        a.hands,
        a.table,
        a.piles,
        a.scope,
        a.leftover,
    ), where
    assert (b.stock_pos, b.cards_in_hands, b.last_capturer, b.to_move) == (
        a.stock_pos,
        a.cards_in_hands,
        a.last_capturer,
        a.to_move,
    ), where
    assert points == list(a.score().points), where


@settings(max_examples=25, deadline=None)
@given(games, seeds)
def test_whole_matches_end_properly(game, seed):
    match = Match(Variant(game), seed=seed)
    rng = random.Random(seed)
    while not match.is_over:
        deal = match.start_deal()
        while not deal.is_over:
            deal.play(rng.choice(deal.legal_moves()))
        done = match.end_deal()
        assert list(done.totals) == match.scores
    top = max(match.scores)
    assert top >= 11 and match.scores.count(top) == 1 and match.scores[match.winner] == top
    # Running totals are the sums of the deal points.
    sides = range(game.sides)
    assert [sum(d.score.points[s] for d in match.finished) for s in sides] == match.scores


def test_random_playout_equals_step_by_step_play_on_many_deals():
    """The same check as above, swept over every game and rule option on many
    seeded deals, from the deal's start and from inside it."""
    for game in Game:
        for fewest in (False, True):
            for last_player in (False, True):
                variant = Variant(game, fewest_cards=fewest, leftovers_to_last_player=last_player)
                for seed in range(40):
                    a = Deal(variant, seed % game.seats, seeded_deck(seed, 3))
                    for _ in range(seed % 7):
                        a.play(a.legal_moves()[seed % len(a.legal_moves())])
                    for bias, care, sweep in (
                        (0.0, 0.0, 0.0),
                        (0.8, 0.0, 0.0),
                        (0.8, 0.7, 0.0),
                        (0.0, 0.7, 0.0),
                        (0.8, 0.0, 1.0),
                        (0.0, 0.0, 0.6),
                    ):
                        where = (game, fewest, last_player, seed, bias, care, sweep)
                        assert_playout_equals_steps(a.copy(), seed, where, bias, care, sweep)
