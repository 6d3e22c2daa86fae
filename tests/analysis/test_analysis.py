"""`arena analyse` over real logs of real matches: a thrown settebello is
flagged, a decision's analysis sees only its seat's view, and the analysis
lines up with the log decision by decision."""

from __future__ import annotations

import importlib.util
import json
import random
from types import ModuleType

import pytest

from arena.audit.analysis import (
    Analysis,
    analyse_log,
    analyse_replay,
    analysis_path,
    dumps,
    load_analysis,
    move_of_json,
    to_json,
)
from arena.errors import AnalysisError, ConfigError
from arena.logs.record import read_log
from arena.logs.replay import Replay, Step, replay_log
from arena.match.outcome import DecisionRecord
from arena.match.settings import ClockSettings, FaultPolicy, MatchSettings, OnFault
from arena.play import run_match_sync
from arena.players.search.evaluate import decision_rng, evaluate, move_values
from arena.players.strategies import greedy_strategy
from arena.rules import SETTEBELLO, Game, Move, Variant, legal_moves, observe
from arena.rules.determinize import seen_cards
from arena.rules.match import seeded_deck, seeded_first_dealer
from arena.transport.in_process import InProcessConnection
from arena.wire import convert
from tests.support.bots import UNCONFINED
from tests.support.logs import write_log
from tests.support.matches import play
from tests.support.paths import ROOT

THROWER = ROOT / "tests/bots/settebello.py"
# A match in which the thrower (seat 0) lays the settebello while holding
# other cards, and greedy takes it with the very next play (deal 5, decision
# 6); the test checks that this is what the log holds.
THROWN_SEED = 10


def thrower_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("settebello_bot", THROWER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def settings(seed: int, **kwargs: object) -> MatchSettings:
    return MatchSettings(
        Variant(Game.SCOPA),
        seed=seed,
        match_id=f"analyse-{seed}",
        clock=ClockSettings(move_time=5),
        **kwargs,  # type: ignore[arg-type]
    )


def thrown_and_taken(replay: Replay) -> list[Step]:
    """Seat 0's decisions that laid the settebello when it could have played
    another card, and that the next play took."""
    found = []
    for deal in replay.deals:
        for step, following in zip(deal.steps, deal.steps[1:], strict=False):
            if step.seat != 0 or step.move != Move(SETTEBELLO, 0) or following.move is None:
                continue
            obs = step.before.seen_by(0).observation()
            others = [m for m in legal_moves(obs.hand, obs.table) if m.card != SETTEBELLO]
            if others and following.move.captures >> SETTEBELLO & 1:
                found.append(step)
    return found


def check_thrown_flagged(replay: Replay, analysis: Analysis | None = None) -> Analysis:
    """The thrown settebello of ``replay`` is flagged, in ``analysis`` (of
    every seat) or in an analysis of seat 0 made here."""
    steps = thrown_and_taken(replay)
    assert steps, "the match no longer has the thrown settebello the test is about"
    if analysis is None:
        analysis = analyse_replay(replay, [0])
    by_index = {(d.deal, d.index): d for d in analysis.decisions}
    for step in steps:
        decision = by_index[(step.deal, step.index)]
        assert decision.chosen_move == Move(SETTEBELLO, 0)
        assert decision.category in ("mistake", "blunder"), decision
        assert decision.loss >= analysis.thresholds.mistake
        assert decision.loss > analysis.thresholds.noise * decision.loss_se
        assert decision.moves[decision.best].move.card != SETTEBELLO
    return analysis


@pytest.mark.slow  # a whole match analysed at the default samples
def test_a_thrown_settebello_is_flagged(thrown):  # tests/analysis/conftest.py
    replay = thrown.replay
    analysis = check_thrown_flagged(replay, thrown.analysis)
    (step,) = thrown_and_taken(replay)
    document = json.loads(dumps(analysis))
    flagged = [
        d for d in document["decisions"] if (d["deal"], d["index"]) == (step.deal, step.index)
    ]
    assert flagged[0]["move"] == {"text": "7d", "card": "7d", "captures": []}
    assert flagged[0]["class"] in ("mistake", "blunder")
    summary = document["summary"][0]
    assert summary["seat"] == 0 and summary["mistakes"] + summary["blunders"] >= 1


@pytest.mark.process
def test_a_thrown_settebello_is_flagged_for_a_bot_over_grpc(tmp_path):
    path = tmp_path / "thrown.log"
    launched = settings(THROWN_SEED, sandbox=UNCONFINED)
    play(launched, [f"thrower=python {THROWER}", "greedy=builtin:greedy"], log=path)
    replay = replay_log(path)
    assert replay.header.engines[0].engine_name == "settebello"
    check_thrown_flagged(replay)


def scripted(moves: list[Move]):  # type: ignore[no-untyped-def]
    """A strategy that plays ``moves`` in turn, then greedy's moves."""
    queue = list(moves)
    greedy = greedy_strategy()

    def choose(obs, legal):  # type: ignore[no-untyped-def]
        return queue.pop(0) if queue else greedy(obs, legal)

    return choose


def decision_json(analysis: Analysis, deal: int, index: int) -> str:
    (found,) = [
        d for d in to_json(analysis)["decisions"] if (d["deal"], d["index"]) == (deal, index)
    ]
    return json.dumps(found, sort_keys=True)


def test_a_decisions_analysis_does_not_depend_on_the_cards_its_seat_did_not_see(tmp_path):
    """Two real matches that agree on all seat 0 saw up to one of its
    decisions but deal the cards it did not see differently (another hand
    for seat 1, another stock), under another match seed: seat 0's analysis
    of that decision is byte for byte the same."""
    seed, other_seed = 4, 99
    first = tmp_path / "first.log"
    run_match_sync(["a=builtin:greedy", "b=builtin:greedy"], settings(seed), log=first)
    replay = replay_log(first)
    deal = replay.deals[0]
    assert not deal.void_decks
    # Seat 0's decision after the first refill: the stock has been dealt from.
    step = next(s for s in deal.steps if s.seat == 0 and s.before.stock_count < 30)
    obs = step.before.seen_by(0).observation()
    seen = seen_cards(obs)
    hidden = [i for i, c in enumerate(deal.deck) if not seen >> c & 1]
    cards = [deal.deck[i] for i in hidden]
    random.Random(7).shuffle(cards)
    deck = list(deal.deck)
    for i, c in zip(hidden, cards, strict=True):
        deck[i] = c
    assert deck != list(deal.deck)

    def decks(number: int, attempt: int) -> list[int]:
        return deck if (number, attempt) == (0, 0) else seeded_deck(other_seed, number, attempt)

    seat_one = [s.move for s in deal.steps[: step.index] if s.seat == 1]
    assert all(m is not None for m in seat_one)
    second = tmp_path / "second.log"
    other = settings(other_seed, first_dealer=seeded_first_dealer(seed, 2), decks=decks)
    engines = [
        ("a", InProcessConnection(greedy_strategy(), name="a")),
        ("b", InProcessConnection(scripted(seat_one), name="b")),  # type: ignore[arg-type]
    ]
    run_match_sync(engines, other, log=second)
    again = replay_log(second)
    twin = again.deals[0].steps[step.index]
    assert twin.seat == 0 and twin.move == step.move
    assert twin.before.hands[1] != step.before.hands[1]  # seat 1 holds other cards
    assert twin.before.seen_by(0) == step.before.seen_by(0)

    a = analyse_replay(replay, [0], samples=16)
    b = analyse_replay(again, [0], samples=16)
    assert decision_json(a, 0, step.index) == decision_json(b, 0, step.index)
    # So is every earlier decision of seat 0 in that deal; the CLI's seed changes them.
    for earlier in deal.steps[: step.index]:
        if earlier.seat == 0:
            assert decision_json(a, 0, earlier.index) == decision_json(b, 0, earlier.index)
    c = analyse_replay(replay, [0], samples=16, seed=1)
    assert decision_json(c, 0, step.index) != decision_json(a, 0, step.index)


def test_the_evaluation_reads_only_the_observation():
    """The rules' observation of one position, built from two deals that
    differ in seat 1's hand and the stock: one evaluation, to the bit."""
    from arena.rules import Match

    base = Match(Variant(Game.SCOPA), 3)
    deal = base.start_deal()
    obs = observe(base, deal.to_move)  # type: ignore[arg-type]
    seat = obs.seat
    seen = seen_cards(obs)
    hidden = [i for i, c in enumerate(deal.deck) if not seen >> c & 1]
    deck = list(deal.deck)
    for i, j in zip(hidden, reversed(hidden), strict=True):
        deck[i] = deal.deck[j]
    other = Match(Variant(Game.SCOPA), 5, first_dealer=base.first_dealer, decks=lambda i, a: deck)
    twin = other.start_deal()
    assert twin.hands[1 - seat] != deal.hands[1 - seat]
    twin_obs = observe(other, seat)
    assert twin_obs == obs
    moves = deal.legal_moves()
    values = move_values(obs, moves, decision_rng(obs), 50)
    assert values == move_values(twin_obs, moves, decision_rng(twin_obs), 50)
    ev = evaluate(obs, moves, decision_rng(obs), 50)
    assert ev.samples == 50 and ev.values() == values
    assert all(v.se > 0 for v in values)


def test_the_analysis_and_the_log_agree_on_every_decision(tmp_path):
    path = tmp_path / "scopone.log"
    write_log(path, Game.SCOPONE, 3, engines=("builtin:greedy", "builtin:random"))
    logged = [
        e
        for e in map(convert.log_entry_from_pb, read_log(path).records[1:])
        if isinstance(e, DecisionRecord)
    ]
    analysis = analyse_log(path, samples=8)
    assert analysis.seats == (0, 1, 2, 3) and analysis.complete
    document = json.loads(dumps(analysis))
    assert [
        (d["deal"], d["index"], d["seat"], move_of_json(d["move"])) for d in document["decisions"]
    ] == [(e.deal_number, e.decision, e.seat, e.move) for e in logged]
    assert all(d["moves"][d["chosen"]]["text"] == d["move"]["text"] for d in document["decisions"])
    assert [s["decisions"] for s in document["summary"]] == [
        sum(e.seat == s for e in logged) for s in range(4)
    ]
    one_seat = analyse_log(path, [2], samples=8)
    assert [(d.deal, d.index) for d in one_seat.decisions] == [
        (e.deal_number, e.decision) for e in logged if e.seat == 2
    ]


class Cheat(InProcessConnection):
    """Plays a card it does not hold at its first two decisions (the referee
    substitutes a move for the first, and the second forfeits the match)."""

    def _decide(self, decision):  # type: ignore[no-untyped-def]
        from arena.match.engine import Answer

        answer, elapsed = super()._decide(decision)
        if decision.number in (0, 1):
            seen = decision.observation.hand | decision.observation.table
            foreign = next(c for c in range(40) if not seen >> c & 1)
            answer = Answer(Move(foreign, 0))
        return answer, elapsed


def test_a_substitute_is_analysed_and_a_forfeit_is_left_out(tmp_path):
    path = tmp_path / "fault.log"
    policy = FaultPolicy(on_fault=OnFault.SUBSTITUTE, strikes=2)
    engines = [
        ("cheat", Cheat(greedy_strategy(), name="cheat")),
        ("fair", InProcessConnection(greedy_strategy(), name="fair")),
    ]
    run_match_sync(engines, settings(2, policy=policy), log=path)
    replay = replay_log(path)
    steps = [s for d in replay.deals for s in d.steps]
    assert steps[-1].move is None and steps[-1].seat == 0
    analysis = analyse_replay(replay, samples=8)
    assert [(d.deal, d.index) for d in analysis.decisions] == [
        (s.deal, s.index) for s in steps[:-1]
    ]
    assert [d.substitute for d in analysis.decisions] == [s.fault is not None for s in steps[:-1]]
    assert analysis.decisions[0].substitute


def test_a_fixed_number_of_samples_is_reproducible_and_think_says_it_is_not(tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 2)
    replay = replay_log(path)
    assert dumps(analyse_replay(replay, [1], samples=16)) == dumps(
        analyse_replay(replay, [1], samples=16)
    )
    timed = to_json(analyse_replay(replay, [1], think=0.001))
    assert timed["method"]["reproducible"] is False and timed["method"]["samples"] is None
    assert all(d["samples"] >= 8 for d in timed["decisions"])


def test_bad_requests_are_clear_errors(tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 2)
    replay = replay_log(path)
    with pytest.raises(ConfigError, match="no seat 2 in this scopa match"):
        analyse_replay(replay, [2])
    with pytest.raises(ConfigError, match="--samples"):
        analyse_replay(replay, samples=1)
    saved = analysis_path(path)
    assert saved.name == "m.log.analysis.json"
    saved.write_text(dumps(analyse_replay(replay, [0], samples=4)), encoding="utf-8")
    assert load_analysis(saved, replay)["match_id"] == replay.header.match_id
    other = tmp_path / "other.log"
    write_log(other, Game.SCOPA, 3)
    with pytest.raises(AnalysisError, match="another log"):
        load_analysis(saved, replay_log(other))
    saved.write_text("{", encoding="utf-8")
    with pytest.raises(AnalysisError, match="not JSON"):
        load_analysis(saved)
    saved.write_text('{"format": "something else"}', encoding="utf-8")
    with pytest.raises(AnalysisError, match="not an analysis"):
        load_analysis(saved)
