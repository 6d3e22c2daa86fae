"""The probes' test (arena.audit.probes, docs/audit.md) is what it claims: its null
distribution is the one of a real answer drawn uniformly among a decision's
answers, so its p-value holds its level for any honest bot, however random,
and a side channel keyed by the match id is found after a handful of
decisions."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from arena.audit.probes import _Tally
from arena.match.outcome import ProbeRecord
from arena.rules import Move

MOVES = [Move(c, 0) for c in range(4)]


def probes(*moves: Move | None) -> list[ProbeRecord]:
    return [ProbeRecord(f"m{i:016x}", (), m) for i, m in enumerate(moves)]


def p_value(decisions: list[tuple[Move, list[Move | None]]]) -> float:
    tally = _Tally()
    for real, answers in decisions:
        tally.add(real, probes(*answers))
    return tally.summary(("a", "b")).p_value


def brute_force_p(decisions: list[tuple[Move, list[Move]]]) -> float:
    """P(D >= observed) by enumerating which answer of each decision was the real one."""
    observed = sum(sum(m != real for m in answers) for real, answers in decisions)
    pools = [[real, *answers] for real, answers in decisions]
    hits = total = 0
    for picks in itertools.product(*(range(len(pool)) for pool in pools)):
        d = sum(
            sum(m != pool[i] for j, m in enumerate(pool) if j != i)
            for pool, i in zip(pools, picks, strict=True)
        )
        total += 1
        hits += d >= observed
    return hits / total


@pytest.mark.parametrize("seed", range(40))
def test_the_exact_p_value_is_the_enumerated_one(seed):
    rng = random.Random(seed)
    decisions = [
        (rng.choice(MOVES[:3]), [rng.choice(MOVES[:3]) for _ in range(rng.randint(1, 3))])
        for _ in range(rng.randint(1, 5))
    ]
    assert math.isclose(p_value(decisions), brute_force_p(decisions), rel_tol=1e-9)


def test_a_deterministic_bot_is_never_flagged_and_unanswered_probes_are_no_evidence():
    same = [(MOVES[0], [MOVES[0], MOVES[0]]) for _ in range(50)]
    assert p_value(same) == 1.0
    assert p_value([(MOVES[0], [None, None]) for _ in range(50)]) == 1.0


@pytest.mark.slow  # statistical: many simulated audits
@pytest.mark.parametrize("spread", [0.5, 0.8, 0.95])
def test_an_honest_random_bot_is_flagged_at_most_at_the_nominal_rate(spread):
    """2,000 honest partnerships of 30 probed decisions, each answer drawn
    from the same distribution (``spread``: the chance of the favourite move)."""
    rng = random.Random(int(spread * 100))
    weights = [spread, (1 - spread) / 2, (1 - spread) / 2]

    def draw() -> Move:
        return rng.choices(MOVES[:3], weights)[0]

    runs = 2000
    ps = [p_value([(draw(), [draw(), draw()]) for _ in range(30)]) for _ in range(runs)]
    for alpha in (0.01, 0.05, 0.2):
        rate = sum(p < alpha for p in ps) / runs
        assert rate <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / runs), (alpha, rate)


def test_a_bot_told_its_partner_s_hand_under_the_real_id_is_found_in_five_decisions():
    """Each decision where the real answer stands apart from two agreeing
    probes divides the p-value by 3."""
    apart = [(MOVES[1], [MOVES[0], MOVES[0]])]
    agree = [(MOVES[0], [MOVES[0], MOVES[0]])]
    for k in range(1, 7):
        assert math.isclose(p_value(apart * k + agree * 20), 3.0**-k, rel_tol=1e-9)
    assert p_value(apart * 5) < 0.01
