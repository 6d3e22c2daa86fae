"""The ladder's matchmaking (arena.tournament.matchmaking) on simulated
ladders: a new version gets its first sets at once, nobody starves or is
played far more than the rest, and the pairs it picks are close and uncertain."""

from __future__ import annotations

import random

from arena.results.ratings import Gaussian, expected_score, gaussian_update, information_gain
from arena.tournament import matchmaking
from arena.tournament.matchmaking import Standing, next_pair, scheduled

# Every player's share of sets stays within this factor of the mean (docs/ladder.md).
FAIRNESS = 1.5


def simulate(players: int, sets: int, join_every: int = 0, seed: int = 1, first_sets: int = 3):
    """A ladder of players with true strengths; who played how many sets, and
    the pairs in order. With ``join_every``, half the players join later, one
    every ``join_every`` sets."""
    rng = random.Random(seed)
    strength = {f"p{i}": rng.gauss(0, 200) for i in range(players)}
    waiting = list(strength)[players // 2 :] if join_every else []
    standing: dict[str, Standing] = {}
    since = 0
    joined_at: dict[str, int] = {}
    for name in strength:
        if name not in waiting:
            since += 1
            standing[name] = Standing(Gaussian(), owed=first_sets, since=since)
            joined_at[name] = 0
    pairs = []
    for n in range(sets):
        if waiting and join_every and n % join_every == 0:
            name = waiting.pop(0)
            since += 1
            standing[name] = Standing(Gaussian(), owed=first_sets, since=since)
            joined_at[name] = n
        pair = next_pair(standing)
        assert pair is not None
        scheduled(standing, pair)
        a, b = pair
        for _ in range(2):
            score = float(rng.random() < expected_score(strength[a] - strength[b]))
            standing[a].rating, standing[b].rating = gaussian_update(
                standing[a].rating, standing[b].rating, score
            )
        pairs.append(pair)
    return standing, pairs, strength, joined_at


def test_a_new_version_plays_its_first_sets_at_once():
    _standing, pairs, _, joined_at = simulate(20, 400, join_every=20)
    for name, at in joined_at.items():
        if at == 0:
            continue
        own = [i for i, pair in enumerate(pairs) if name in pair and i >= at]
        assert own[:3] == [at, at + 1, at + 2], name


def test_nobody_starves_and_nobody_is_played_far_more():
    standing, pairs, _, _ = simulate(40, 2000)
    counts = {n: sum(n in p for p in pairs) for n in standing}
    mean = sum(counts.values()) / len(counts)
    assert min(counts.values()) >= mean / FAIRNESS
    assert max(counts.values()) <= mean * FAIRNESS


def test_late_arrivals_play_at_the_same_rate_as_the_rest():
    _standing, pairs, _, joined_at = simulate(40, 2000, join_every=25)
    rates = {}
    for name, at in joined_at.items():
        rates[name] = sum(name in p for p in pairs[at:]) / (len(pairs) - at)
    mean = sum(rates.values()) / len(rates)
    assert all(mean / FAIRNESS <= r <= mean * FAIRNESS for r in rates.values()), rates


def test_pairs_are_closer_than_chance():
    _, pairs, strength, _ = simulate(40, 2000)
    late = pairs[1000:]
    picked = sum(abs(strength[a] - strength[b]) for a, b in late) / len(late)
    rng = random.Random(2)
    names = list(strength)
    chance = sum(abs(strength[a] - strength[b]) for a, b in (rng.sample(names, 2) for _ in late))
    assert picked < 0.7 * chance / len(late)


def test_information_gain_favours_close_and_uncertain_pairs():
    sure = Gaussian(0, 50)
    assert information_gain(sure, Gaussian(0, 50)) > information_gain(sure, Gaussian(400, 50))
    assert information_gain(sure, Gaussian(0, 300)) > information_gain(sure, Gaussian(0, 50))


def test_the_same_state_picks_the_same_pair():
    def state():
        return {
            f"p{i}": Standing(Gaussian(i * 10.0, 100 + i), sets=i % 3, due=1.0) for i in range(9)
        }

    assert next_pair(state()) == next_pair(state())
    assert next_pair({"only": Standing(Gaussian())}) is None
    assert matchmaking.AHEAD_SLACK > 0
