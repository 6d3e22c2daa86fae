"""The thinking players: what they make of a clock, that the search stops on
time and reads a position, and what the cheating player is shown."""

from __future__ import annotations

import random

import pytest

from arena.errors import ConfigError
from arena.match.engine import SeatClock
from arena.players.search import ismcts
from arena.players.search.players import (
    DEFAULT_THINK,
    cheating_player,
    flat_player,
    ismcts_player,
    think_options,
    think_time,
)
from arena.players.strategies import BUILT_IN
from arena.rules import Deal, Game, Move, Variant, observe, parse_cards
from arena.rules.cards import FULL_DECK, cards_of, mask_of


def deal_with(hands: dict[int, str], table: str, dealer: int = 0) -> Deal:
    """A Scopa deal as dealt, with the given hands (3 cards or fewer, the
    rest filled in) and table (4 cards); the rest of the deck in a fixed order."""
    variant = Variant(Game.SCOPA)
    seats = variant.seats
    wanted = {s: parse_cards(h) for s, h in hands.items()}
    used = [c for cs in wanted.values() for c in cs] + parse_cards(table)
    spare = [c for c in cards_of(FULL_DECK) if c not in used]
    deck: list[int] = []
    for seat in [(dealer + i) % seats for i in range(1, seats + 1)]:
        own = wanted.get(seat, [])
        deck += own + [spare.pop() for _ in range(3 - len(own))]
    deck += parse_cards(table) + spare
    deal = Deal(variant, dealer, deck)
    assert deal.table == mask_of(parse_cards(table))
    return deal


def clock(deadline: float, bank: float | None = None, increment: float = 0.0) -> SeatClock:
    return SeatClock(deadline if bank is None else None, bank, increment, deadline)


def first_observation(game: Game = Game.SCOPA):
    deal = Deal(Variant(game), 0, random.Random(5).sample(range(40), 40))
    assert deal.to_move is not None and len(deal.legal_moves()) > 1
    return deal, observe(deal, deal.to_move)


@pytest.mark.parametrize(
    ("given", "cap", "expected"),
    [
        (clock(0.4), 10.0, 0.2),  # half the deadline, not its own 10 s
        (clock(0.4), 0.05, 0.05),  # its own cap when that is less
        (clock(0.0), 0.1, 0.1),  # told no limit: its own cap
        (None, None, None),  # no clock, no cap: no limit (iterations alone)
        # A bank of 10 s and 0.1 s a move: its share over 3 + 30/2 moves of this
        # deal and 2 deals more (40 moves), plus 80% of the increment.
        (clock(10.0, bank=10.0, increment=0.1), 1.0, 10.0 / 58 + 0.08),
        (clock(0.5, bank=0.5, increment=0.0), 1.0, 0.5 / 58),  # a bank nearly spent
    ],
)
def test_think_time_reads_the_clock(given, cap, expected):
    _, obs = first_observation()
    got = think_time(obs, given, cap)
    assert got == pytest.approx(expected) if expected is not None else got is None


class SteppingClock:
    """A clock that moves on 10 ms each time it is read, so a search ends
    after as many iterations as its budget allows, whatever the machine."""

    STEP = 0.01

    def __init__(self) -> None:
        self.reads = 0

    def perf_counter(self) -> float:
        self.reads += 1
        return self.reads * self.STEP


@pytest.mark.parametrize("module", ["arena.players.search.ismcts", "arena.players.search.flat"])
def test_a_search_stops_when_its_time_is_up(monkeypatch, module):
    stepping = SteppingClock()
    monkeypatch.setattr(f"{module}.time", stepping)
    _, obs = first_observation()
    make = ismcts_player if module.endswith("ismcts") else flat_player
    player = make(random.Random(1), ["--think", "0.3"])
    moves = [Move(*m) for m in observe_moves(obs)]
    player(obs, moves, clock=clock(0.4))  # half of 0.4 s: 0.2 s
    # ismcts reads the clock every 16 iterations, flat after each sample:
    # from its first read to its last, the budget, to a step past it.
    thought = (stepping.reads - 1) * stepping.STEP
    assert 0.2 - 1e-9 <= thought <= 0.2 + 2 * stepping.STEP, thought


def observe_moves(obs):
    from arena.rules import legal_moves

    return legal_moves(obs.hand, obs.table)


def test_ismcts_takes_the_sweep_and_keeps_the_settebello():
    # Seat 1 to move: 5c sweeps the table (1+1+1+2, a scopa); 7d takes
    # nothing, and laid it offers the settebello to seat 0.
    deal = deal_with({1: "5c 7d 2b"}, "Ad Ac As 2s")
    obs = observe(deal, 1)
    moves = deal.legal_moves()
    result = ismcts.search(obs, moves, random.Random(3), iterations=3000)
    assert result.best == Move(parse_cards("5c")[0], deal.table)
    values = dict(zip(result.moves, result.values, strict=True))
    laid = Move(parse_cards("7d")[0], 0)
    assert values[result.best] > values[laid] + 1.0  # the scopa and the settebello kept


def test_a_fixed_number_of_iterations_gives_the_same_move_and_counts():
    _, obs = first_observation(Game.SCOPONE)
    moves = observe_moves(obs)
    for paired in (False, True):
        a = ismcts.search(obs, moves, random.Random(7), iterations=500, paired=paired)
        b = ismcts.search(obs, moves, random.Random(7), iterations=500, paired=paired)
        assert (a.iterations, a.visits, a.values, a.best) == (
            b.iterations,
            b.visits,
            b.values,
            b.best,
        )
        assert sum(a.visits) == a.iterations  # every iteration starts at one of the root's moves
        if paired:  # a sampled deal at a time, every root move on each
            assert set(a.visits) == {a.iterations // len(moves)}
            assert 500 <= a.iterations < 500 + len(moves)
        else:
            assert a.iterations == 500


def test_the_cheating_player_plays_the_true_hands_and_only_them():
    deal, _ = first_observation(Game.SCOPONE)
    obs = observe(deal, 1)
    hands = tuple(deal.hands)
    assert obs.seat == deal.to_move
    world = ismcts.true_deal(obs, hands, random.Random(1))
    assert world.hands == list(hands) and world.table == deal.table
    player = cheating_player(random.Random(1), ["--iterations", "50"])
    with pytest.raises(ConfigError, match="not shown the hands"):
        player(obs, deal.legal_moves())
    assert player(obs, deal.legal_moves(), hands=hands) in deal.legal_moves()


def test_options_are_checked_and_explained():
    assert think_options("ismcts", []).think == DEFAULT_THINK
    only = think_options("ismcts", ["--iterations", "100"])
    assert (only.think, only.iterations) == (None, 100)
    for bad, said in [
        (["--think", "-1"], "must be positive"),
        (["--iterations", "many"], "not a number"),
        (["--width", "3"], "unknown option '--width'"),
        (["--infer", "-1"], "must be at least 0"),
    ]:
        with pytest.raises(ConfigError, match=said):
            BUILT_IN["ismcts"].check(bad)
    with pytest.raises(ConfigError, match="takes no options"):
        BUILT_IN["greedy"].check(["--think", "1"])


@pytest.mark.slow  # real thinking on a real clock: two deals of it
@pytest.mark.parametrize("game", [Game.SCOPA, Game.SCOPONE])
def test_the_engines_play_a_match_on_a_bank_without_a_timeout(game):
    """Built in, on a 3 s bank with 20 ms a move more and no move limit: they
    think within it, the bank never runs dry, and no decision is late."""
    from arena.match.settings import ClockSettings, MatchSettings
    from tests.support.matches import play

    clock = ClockSettings(move_time=None, bank=3.0, increment=0.02, grace=0.2)
    settings = MatchSettings(Variant(game, target=None, deal_limit=2), seed=9, clock=clock)
    engines = ["i=builtin:ismcts --think 5", "s=builtin:search --think 5"]
    report = play(settings, engines if game is Game.SCOPA else engines * 2)
    assert not report.result.faults, report.result.faults
    thinking = [d for d in report.decisions if d.bank_left is not None]
    assert thinking and min(d.bank_left for d in thinking) > 0.5
    # They did think: a 3 s bank over two deals is more than a few milliseconds a move.
    assert max(d.think_time for d in report.decisions) > 0.02
