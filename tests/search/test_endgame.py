"""The exact end of a deal: when a seat knows every hand, and that the
alpha-beta values are the plain minimax values a slower search proves."""

from __future__ import annotations

import random

from arena.players.search import endgame, ismcts
from arena.players.search.players import ismcts_player
from arena.rules import Deal, Game, Variant, observe
from arena.rules.determinize import determinize
from arena.rules.variants import side_of


def positions(game: Game, decks: int, seed: int):
    """Every decision of ``decks`` deals played at random: (deal, observation)."""
    rng = random.Random(seed)
    for _ in range(decks):
        deal = Deal(Variant(game), 0, rng.sample(range(40), 40))
        while deal.to_move is not None:
            yield deal.copy(), observe(deal, deal.to_move)
            moves = deal.legal_moves()
            deal.play_unchecked(moves[int(rng.random() * len(moves))])


def minimax(deal: Deal, side: int) -> int:
    """The deal's point difference for ``side`` under perfect play, every
    line searched (no pruning): the reference the solver must agree with."""
    if deal.to_move is None:
        points = deal.points()
        return points[side] - points[1 - side]
    values = []
    for move in deal.legal_moves():
        child = deal.copy()
        child.play_unchecked(move)
        values.append(minimax(child, side))
    return max(values) if side_of(deal.to_move) == side else min(values)


def test_scopa_last_packet_is_known_and_nothing_earlier_is():
    seen = 0
    for deal, obs in positions(Game.SCOPA, 20, seed=1):
        assert endgame.is_known(obs) == (deal.stock_count == 0), obs
        if endgame.is_known(obs):
            seen += 1
            # One world only: every sample of the seat's view is the true deal.
            for k in range(3):
                assert determinize(obs, random.Random(k)).hands == deal.hands
    assert seen > 100


def test_scopone_is_known_only_when_one_other_seat_holds_cards():
    known = 0
    for deal, obs in positions(Game.SCOPONE, 10, seed=2):
        holders = [s for s, n in enumerate(obs.hand_sizes) if n and s != obs.seat]
        if len(holders) > 1:
            assert not endgame.is_known(obs)
        elif endgame.is_known(obs):
            known += 1
            assert determinize(obs, random.Random(known)).hands == deal.hands
    assert known >= 20  # the last round's last two seats, in every deal


def test_the_solver_agrees_with_full_minimax():
    checked = 0
    for deal, obs in positions(Game.SCOPA, 40, seed=3):
        if not endgame.is_known(obs):
            continue
        moves = deal.legal_moves()
        side = side_of(deal.to_move)
        expected = []
        for move in moves:
            child = deal.copy()
            child.play_unchecked(move)
            expected.append(minimax(child, side))
        assert endgame.solve(deal, moves) == expected
        checked += 1
    assert checked > 200


def test_ismcts_plays_the_solved_best_move_from_the_seats_view_alone():
    found = 0
    for deal, obs in positions(Game.SCOPA, 30, seed=4):
        moves = deal.legal_moves()
        if not endgame.is_known(obs) or len(moves) < 2:
            continue
        exact = endgame.solve(deal, moves)
        if len(set(exact)) < 2:
            continue
        result = ismcts.search(obs, moves, random.Random(0), iterations=50)
        assert result.solved and result.iterations == 0
        assert list(result.values) == exact
        assert exact[moves.index(result.best)] == max(exact)
        # Turned off, it samples and plays out as before.
        sampled = ismcts.search(obs, moves, random.Random(0), iterations=50, solve=False)
        assert not sampled.solved and sampled.iterations >= 50
        found += 1
    assert found > 20


def test_the_player_option_turns_it_off():
    player = ismcts_player(random.Random(1), ["--iterations", "30", "--no-solve"])
    assert player.options.solve is False
    assert ismcts_player(random.Random(1), []).options.solve is True
