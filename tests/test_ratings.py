"""Every formula against published test vectors (fastchess, OpenBench, cutechess,
fishtest, the BayesElo/Ordo three-player fit) and our own Scopa examples."""

import math

import pytest

from arena.results import ratings as r


def close(value: float, expected: float, rel: float = 0.01) -> bool:
    return math.isclose(value, expected, rel_tol=rel, abs_tol=0.01)


def test_elo_of_a_score():
    assert r.elo_diff(0.75) == pytest.approx(190.8485, abs=1e-4)
    assert r.elo_diff(0.90) == pytest.approx(381.6970, abs=1e-4)
    assert r.elo_diff(0.76) == pytest.approx(200.2409, abs=1e-4)
    assert r.expected_score(r.elo_diff(0.3)) == pytest.approx(0.3)


@pytest.mark.parametrize(
    ("wdl", "elo", "err", "nelo", "nerr", "los"),
    [
        ((136, 111, 96), 40.70, 30.43, 49.77, 36.77, 0.9960),
        ((76, 123, 89), -15.69, 30.46, -20.76, 40.13, 0.1553),
        ((550, 0, 450), 34.86, 21.67, 34.92, 21.53, 0.9993),
    ],
)
def test_trinomial_vectors(wdl, elo, err, nelo, nerr, los):
    e = r.trinomial(*wdl)
    assert close(e.elo, elo) and close(e.elo_error, err)
    assert close(e.nelo, nelo) and close(e.nelo_error, nerr)
    assert e.los == pytest.approx(los, abs=5e-4)


def test_trinomial_extreme_and_cutechess():
    e = r.trinomial(34, 0, 356)
    assert close(e.nelo, -508.44) and close(e.nelo_error, 34.48) and close(e.score, 0.087, 0.02)
    c = r.trinomial(3225, 3707, 3068)
    assert round(c.elo, 1) == 5.5 and round(c.elo_error, 1) == 5.4


@pytest.mark.parametrize(
    ("penta", "elo", "err", "nelo", "nerr"),
    [
        ((34, 54, 31 + 32, 64, 75), 55.58, 27.65, 57.94, 28.28),
        ((332, 433, 457 + 41, 333, 334), -8.64, 10.33, -9.17, 10.96),
        ((7895, 8757, 5485 + 200, 568, 9999), -21.04, 2.95, -19.01, 2.65),
    ],
)
def test_pentanomial_vectors(penta, elo, err, nelo, nerr):
    e = r.pentanomial(*penta)
    assert (
        close(e.elo, elo)
        and close(e.elo_error, err)
        and close(e.nelo, nelo)
        and close(e.nelo_error, nerr)
    )


@pytest.mark.parametrize(
    ("penta", "err"),
    [
        ((398, 4112, 7672, 4336, 430), 2.18),
        ((56, 1144, 2546, 1310, 77), 3.62),
        ((5, 295, 1145, 466, 2), 4.97),
    ],
)
def test_openbench_published_errors(penta, err):
    assert r.pentanomial(*penta).elo_error == pytest.approx(err, abs=0.011)


def test_scopa_duplicate_pairs_k2():
    e = r.duplicate_sets([650, 1954, 396], 2)
    assert e.score == pytest.approx(0.45767, abs=1e-5)
    assert close(e.elo, -29.49) and close(e.elo_error, 7.32) and close(e.nelo, -35.59)
    # k = 2 is exactly the pentanomial with empty draw cells.
    p = r.pentanomial(650, 0, 1954, 0, 396)
    assert (p.elo, p.nelo) == pytest.approx((e.elo, e.nelo))


def test_montytest_normalized_elo():
    e = r.pentanomial(13, 37, 50, 25, 3)
    assert close(e.nelo, -63.97)
    assert close(e.elo, -43.66)


@pytest.mark.parametrize(
    ("wdl", "bounds", "llr"),
    [
        ((36433, 68692, 36027), (0, 2), 0.92),
        ((10871, 20431, 10650), (-1.75, 0.25), 2.30),
        ((4250, 0, 0), (0, 10), 120.56),
        ((550, 0, 450), (0, 20), 4.0992),
    ],
)
def test_sprt_normalized_trinomial(wdl, bounds, llr):
    w, d, lost = wdl
    assert close(r.llr_normalized(*bounds, [0, 0.5, 1], [lost, d, w]), llr)


@pytest.mark.parametrize(
    ("wdl", "bounds", "llr"),
    [
        ((21404, 40708, 21184), (0.5, 2.5), -1.57),
        ((57433, 106593, 57030), (0, 2), -2.59),
        ((550, 0, 450), (0, 20), 4.1005),
    ],
)
def test_sprt_logistic_trinomial(wdl, bounds, llr):
    w, d, lost = wdl
    assert close(r.llr_logistic(*bounds, [0, 0.5, 1], [lost, d, w]), llr)


PENTA = [0, 0.25, 0.5, 0.75, 1]


@pytest.mark.parametrize(
    ("counts", "bounds", "llr"),
    [
        ((365, 16618, 36029 + 200, 16974, 390), (0, 2), 2.25),
        ((127, 4883, 10311 + 401, 5150, 104), (-1.75, 0.25), 3.01),
        ((0, 0, 0, 0, 5550), (0, 5), 111.82),
        ((398, 4112, 7672, 4336, 430), (0, 3), 2.958),
        ((56, 1144, 2546, 1310, 77), (0, 3), 2.948),
        ((5, 295, 1145, 466, 2), (0, 3), 2.979),
        ((496, 21664, 48379, 22161, 542), (0, 3), 3.075),
        ((8, 5428, 13556, 5679, 14), (0, 3), 2.929),
        ((13, 37, 50, 25, 3), (0, 4), -0.54912),
    ],
)
def test_sprt_normalized_pentanomial(counts, bounds, llr):
    assert close(r.llr_normalized(*bounds, PENTA, counts, k=2), llr)


@pytest.mark.parametrize(
    ("counts", "bounds", "llr"),
    [
        ((223, 9863, 20279 + 1000, 10037, 246), (0.5, 2.5), -3.07),
        ((871, 26175, 55003 + 980, 26678, 821), (0, 2), -4.98),
        ((13, 37, 50, 25, 3), (0, 2.716), -0.53772),
    ],
)
def test_sprt_logistic_pentanomial(counts, bounds, llr):
    assert close(r.llr_logistic(*bounds, PENTA, counts), llr)


def test_sprt_on_scopa_duplicate_pairs_and_bounds():
    state = r.sprt([650, 1954, 396], 2, -10, 0)
    assert close(state.llr, -15.048)
    # The tested side is about −35 nElo: the no-regression test [−10, 0] accepts H0 (a regression).
    assert state.llr <= state.lower and state.verdict == "H0"
    lower, upper = r.sprt_bounds(0.05, 0.05)
    assert (lower, upper) == pytest.approx((-2.944439, 2.944439), abs=1e-6)
    assert r.sprt_bounds(0.05, 0.10) == pytest.approx((-2.2513, 2.8904), abs=1e-4)
    with pytest.raises(ValueError):
        r.sprt_bounds(0.6, 0.5)


def test_batch_fit_three_player_vector():
    # A-B 75 %, B-C 75 %, A-C 90 %, 30 games per pairing, draws as half points.
    games = []
    for a, b, share in (("A", "B", 0.75), ("B", "C", 0.75), ("A", "C", 0.90)):
        wins = round(share * 30 * 2) // 2  # whole wins
        half = round(share * 30 * 2) - 2 * wins  # one draw when the share needs a half point
        games += [r.RatedGame((a,), (b,), 1.0)] * wins + [r.RatedGame((a,), (b,), 0.5)] * half
        games += [r.RatedGame((a,), (b,), 0.0)] * (30 - wins - half)
    ratings, _ = r.fit_ratings(games, prior_sd=None, with_dealer=False)
    assert ratings["A"] == pytest.approx(190.85, abs=0.05)
    assert ratings["B"] == pytest.approx(0.0, abs=0.05)
    assert ratings["C"] == pytest.approx(-190.85, abs=0.05)


def test_batch_fit_teams_dealer_and_bootstrap_intervals():
    import random

    rng = random.Random(1)
    true = {"a": 200.0, "b": 0.0, "c": -200.0, "d": 0.0}
    games = []
    for i in range(1500):
        p = rng.sample(sorted(true), 4)
        side_a, side_b = (p[0], p[1]), (p[2], p[3])
        dealer_a = i % 2 == 0
        diff = (true[p[0]] + true[p[1]] - true[p[2]] - true[p[3]]) / 2 + (30 if dealer_a else -30)
        score = 1.0 if rng.random() < r.expected_score(diff) else 0.0
        games.append(r.RatedGame(side_a, side_b, score, dealer_a, group=str(i // 2)))
    fit = r.fit_with_intervals(games, resamples=60, seed=2)
    assert fit.ratings["a"] > fit.ratings["b"] > fit.ratings["c"]
    assert fit.ratings["a"] == pytest.approx(200, abs=60) and fit.dealer_advantage == pytest.approx(
        30, abs=25
    )
    for name, (low, high) in fit.intervals.items():
        assert low <= fit.ratings[name] <= high and high - low < 250


def test_live_elo_team_average():
    ratings: dict[str, float] = {}
    r.update_elo(ratings, ["a", "b"], ["c", "d"], 1.0, k=16)
    assert ratings["a"] == ratings["b"] == 1508 and ratings["c"] == 1492
    r.update_elo(ratings, ["x"], ["y"], 0.0, k=32, start=1000)
    assert ratings["x"] == 984


def test_no_spread_means_no_error_bar_claimed():
    e = r.duplicate_sets([0, 0, 4], 2)
    assert not e.spread and "no Elo error bar" in e.line()
    assert r.duplicate_sets([1, 0, 3], 2).spread
