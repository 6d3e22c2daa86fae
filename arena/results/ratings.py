"""Ratings and match statistics: Elo, error bars, LOS, normalized Elo, SPRT,
and a batch Bradley-Terry fit with bootstrap intervals.

Pure Python, standard library only. The formulas follow fastchess, fishtest,
OpenBench and BayesElo; tests/test_ratings.py checks them against their
published test vectors. The statistical unit is a *duplicate set* of k
matches played on the same deck sequence with the seats rotated (k = 1 when
duplicates are off, k = 2 is chess's pentanomial game pair). A set's score is
the mean of its matches' scores (win 1, draw 1/2, loss 0).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054
NELO_SCALE = 800 / math.log(10)  # 347.4355855...
LOG10 = math.log(10)


def expected_score(diff: float) -> float:
    """Logistic Elo: the expected score for a rating difference."""
    return 1 / (1 + 10 ** (-diff / 400))


def elo_diff(score: float) -> float:
    """The rating difference that gives an expected score (clamped away from 0 and 1)."""
    s = min(max(score, 1e-3), 1 - 1e-3)
    return -400 * math.log10(1 / s - 1)


def phi(x: float) -> float:
    return 0.5 * (1 + math.erf(x / math.sqrt(2)))


@dataclass(frozen=True)
class Estimate:
    """Elo of the tested side against its opponent, from units of k matches."""

    units: int
    score: float
    elo: float
    elo_error: float  # half-width of the 95% interval
    nelo: float
    nelo_error: float
    los: float  # likelihood of superiority, 0..1

    @property
    def spread(self) -> bool:
        """False when every unit scored the same: no variance, so no error bar."""
        return self.elo_error > 0 or self.nelo_error > 0

    def line(self) -> str:
        """The line the chess engine world reads at a glance."""
        if not self.spread:
            return (
                f"score {100 * self.score:.1f} % in all {self.units} units: "
                "no spread yet, so no Elo error bar"
            )
        return (
            f"Elo {self.elo:.2f} +/- {self.elo_error:.2f}, nElo {self.nelo:.2f} +/- "
            f"{self.nelo_error:.2f}, LOS {100 * self.los:.2f} %, score {100 * self.score:.1f} % "
            f"({self.units} units)"
        )


def estimate(levels: Sequence[float], counts: Sequence[float], k: int = 1) -> Estimate:
    """Elo, error, nElo and LOS from a histogram of unit scores.

    ``levels``: the possible scores of a unit (e.g. 0, 1/2, 1 for single
    matches; 0, 1/4, ..., 1 for pentanomial pairs); ``counts`` how many units
    scored each; ``k`` matches per unit (the per-match sigma is sqrt(k * var)).
    """
    n = sum(counts)
    if n <= 0:
        raise ValueError("no results")
    mu = sum(a * c for a, c in zip(levels, counts, strict=True)) / n
    var = sum(c * (a - mu) ** 2 for a, c in zip(levels, counts, strict=True)) / n
    se = math.sqrt(var / n)
    elo = elo_diff(mu)
    error = (elo_diff(mu + Z95 * se) - elo_diff(mu - Z95 * se)) / 2
    if var > 0:
        sigma = math.sqrt(k * var)
        nelo = (mu - 0.5) / sigma * NELO_SCALE
        nelo_error = Z95 * se / sigma * NELO_SCALE
        los = phi((mu - 0.5) / se)
    else:
        nelo = nelo_error = 0.0
        los = 1.0 if mu > 0.5 else 0.0 if mu < 0.5 else 0.5
    return Estimate(int(n), mu, elo, error, nelo, nelo_error, los)


def trinomial(wins: float, draws: float, losses: float) -> Estimate:
    return estimate([0, 0.5, 1], [losses, draws, wins], 1)


def pentanomial(ll: float, ld: float, wl_dd: float, wd: float, ww: float) -> Estimate:
    return estimate([0, 0.25, 0.5, 0.75, 1], [ll, ld, wl_dd, wd, ww], 2)


def duplicate_sets(histogram: Sequence[float], k: int) -> Estimate:
    """From ``histogram[j]`` = sets of k matches with j matches won (no draws)."""
    if len(histogram) != k + 1:
        raise ValueError(f"a histogram of sets of {k} needs {k + 1} counts")
    return estimate([j / k for j in range(k + 1)], histogram, k)


# SPRT ------------------------------------------------------------------------


def _secular(terms: Sequence[tuple[float, float]]) -> float:
    """Solve sum p*a/(1 + x*a) = 0 for x in (-1/max a, -1/min a), by bisection."""
    lo = -1 / max(a for a, _ in terms)
    hi = -1 / min(a for a, _ in terms)
    eps = 1e-12 * (hi - lo)
    lo, hi = lo + eps, hi - eps

    def f(x: float) -> float:
        return sum(p * a / (1 + x * a) for a, p in terms)

    f_lo = f(lo)
    for _ in range(200):
        mid = (lo + hi) / 2
        f_mid = f(mid)
        if (f_mid > 0) == (f_lo > 0):
            lo, f_lo = mid, f_mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    return (lo + hi) / 2


def _pdf(
    levels: Sequence[float], counts: Sequence[float]
) -> tuple[float, list[tuple[float, float]]]:
    """Regularised empirical distribution (zero counts become 1e-3), and the unit count."""
    regular = [max(c, 1e-3) for c in counts]
    total = sum(regular)
    return sum(counts), [(a, c / total) for a, c in zip(levels, regular, strict=True)]


def _mle_mean(pdf: list[tuple[float, float]], s: float) -> list[float]:
    x = _secular([(a - s, p) for a, p in pdf])
    return [p / (1 + x * (a - s)) for a, p in pdf]


def _mle_t(pdf: list[tuple[float, float]], t: float) -> list[float]:
    """The distribution nearest to pdf whose (mu - 1/2)/sigma is t (Van den Bergh)."""
    q = [1 / len(pdf)] * len(pdf)
    for _ in range(50):
        mu = sum(a * p for (a, _), p in zip(pdf, q, strict=True))
        var = sum(p * (a - mu) ** 2 for (a, _), p in zip(pdf, q, strict=True))
        sigma = math.sqrt(var)
        shifted = [a - 0.5 - t * sigma * (1 + ((mu - a) / sigma) ** 2) / 2 for a, _ in pdf]
        x = _secular([(b, p) for b, (_, p) in zip(shifted, pdf, strict=True)])
        new = [p / (1 + x * b) for b, (_, p) in zip(shifted, pdf, strict=True)]
        if max(abs(u - v) for u, v in zip(new, q, strict=True)) < 1e-12:
            return new
        q = new
    return q


def llr_logistic(
    elo0: float, elo1: float, levels: Sequence[float], counts: Sequence[float]
) -> float:
    """Generalised SPRT log-likelihood ratio, logistic Elo bounds (fishtest LLR_logistic)."""
    n, pdf = _pdf(levels, counts)
    p0 = _mle_mean(pdf, expected_score(elo0))
    p1 = _mle_mean(pdf, expected_score(elo1))
    return n * sum(p * math.log(b / a) for (_, p), a, b in zip(pdf, p0, p1, strict=True))


def llr_normalized(
    nelo0: float, nelo1: float, levels: Sequence[float], counts: Sequence[float], k: int = 1
) -> float:
    """Generalised SPRT log-likelihood ratio, normalized Elo bounds (fishtest
    LLR_normalized; fastchess's default model), units of k matches."""
    n, pdf = _pdf(levels, counts)
    scale = math.sqrt(k) / NELO_SCALE
    p0 = _mle_t(pdf, nelo0 * scale)
    p1 = _mle_t(pdf, nelo1 * scale)
    return n * sum(p * math.log(b / a) for (_, p), a, b in zip(pdf, p0, p1, strict=True))


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError("alpha and beta must be in (0, 1) with alpha + beta < 1")
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


@dataclass(frozen=True)
class SprtState:
    llr: float
    lower: float
    upper: float

    @property
    def verdict(self) -> str | None:
        """ "H1" (stronger: passed), "H0" (not: failed), or None (go on)."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None


def sprt(
    histogram: Sequence[float],
    k: int,
    nelo0: float,
    nelo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
) -> SprtState:
    """Normalized GSPRT on duplicate sets: ``histogram[j]`` sets with j of k matches won."""
    lower, upper = sprt_bounds(alpha, beta)
    levels = [j / k for j in range(k + 1)]
    if sum(histogram) == 0:
        return SprtState(0.0, lower, upper)
    return SprtState(llr_normalized(nelo0, nelo1, levels, histogram, k), lower, upper)


# Live Elo ----------------------------------------------------------------------


def update_elo(
    ratings: dict[str, float],
    side_a: Sequence[str],
    side_b: Sequence[str],
    score_a: float,
    k: float = 16,
    start: float = 1500,
) -> None:
    """Incremental Elo after one match; a team plays at its members' mean rating."""
    for name in (*side_a, *side_b):
        ratings.setdefault(name, start)
    mean_a = sum(ratings[n] for n in side_a) / len(side_a)
    mean_b = sum(ratings[n] for n in side_b) / len(side_b)
    delta = k * (score_a - expected_score(mean_a - mean_b))
    for name in set(side_a):
        ratings[name] += delta
    for name in set(side_b):
        ratings[name] -= delta


# Live Gaussian rating ---------------------------------------------------------------
#
# A ladder's matchmaking and progress view need a rating after every match,
# with its uncertainty: Glicko's update (Glickman 1999) without rating
# periods, since a bot version never changes. Ten lines, deterministic, no
# dependency; the published table is the batch fit, never this.

GLICKO_Q = LOG10 / 400
START_SIGMA = 350.0  # Glicko's rating deviation of an unknown player, on the Elo scale


@dataclass(frozen=True)
class Gaussian:
    """A rating as a normal distribution on the Elo scale."""

    mu: float = 0.0
    sigma: float = START_SIGMA


def _glicko_g(sigma: float) -> float:
    return 1 / math.sqrt(1 + 3 * (GLICKO_Q * sigma) ** 2 / math.pi**2)


def gaussian_update(a: Gaussian, b: Gaussian, score_a: float) -> tuple[Gaussian, Gaussian]:
    """Both players after one match that ``a`` scored ``score_a`` in (1, 1/2, 0)."""

    def one(me: Gaussian, other: Gaussian, score: float) -> Gaussian:
        g = _glicko_g(other.sigma)
        expected = 1 / (1 + 10 ** (-g * (me.mu - other.mu) / 400))
        d2 = 1 / (GLICKO_Q**2 * g**2 * expected * (1 - expected))
        precision = 1 / me.sigma**2 + 1 / d2
        mu = me.mu + GLICKO_Q / precision * g * (score - expected)
        return Gaussian(mu, math.sqrt(1 / precision))

    return one(a, b, score_a), one(b, a, 1 - score_a)


def information_gain(a: Gaussian, b: Gaussian, matches: int = 2) -> float:
    """Expected information (nats) a set of ``matches`` between ``a`` and ``b``
    gives on their rating difference: large for uncertain pairs (wide
    distributions) and close ones (an outcome near a coin toss says most)."""
    return difference_gain(a.mu - b.mu, a.sigma**2 + b.sigma**2, matches)


def difference_gain(difference: float, variance: float, matches: int = 2) -> float:
    """information_gain for a rating difference known as a mean and a variance."""
    p = 1 / (1 + 10 ** (-_glicko_g(math.sqrt(variance)) * difference / 400))
    fisher = matches * GLICKO_Q**2 * p * (1 - p)
    return 0.5 * math.log1p(variance * fisher)


# Batch Bradley-Terry fit ----------------------------------------------------------


@dataclass(frozen=True)
class RatedGame:
    """One match for the batch fit: the players of each side (a team plays at
    its members' mean rating), side A's score, and whether side A dealt first."""

    side_a: tuple[str, ...]
    side_b: tuple[str, ...]
    score_a: float
    a_deals_first: bool = False
    group: str = ""  # the duplicate set it belongs to (bootstrap unit)


@dataclass(frozen=True)
class Fit:
    ratings: dict[str, float]  # Elo, centred on the pool mean
    dealer_advantage: float  # Elo added to the side that deals first
    intervals: dict[str, tuple[float, float]]  # 95% bootstrap intervals
    covariance: Covariance | None = None  # with an anchor: the ratings' (Laplace)


def fit_ratings(
    games: Sequence[RatedGame],
    prior_sd: float | None = 400.0,
    with_dealer: bool = True,
    iterations: int = 50,
    anchor: str | None = None,
) -> tuple[dict[str, float], float]:
    """MAP ratings (Elo scale) and the dealer advantage, by Newton's method on
    the logistic likelihood (draws count as half points) with a Gaussian prior.
    Centred on the pool's mean; with an ``anchor``, that player is 0 and not
    fitted, so a player's rating moves only with games that reach it (a pool
    mean moves whenever anyone joins)."""
    everyone = sorted({n for g in games for n in (*g.side_a, *g.side_b)})
    names = [n for n in everyone if n != anchor]
    index = {n: i for i, n in enumerate(names)}
    size = len(names) + (1 if with_dealer else 0)
    rows = _rows(games, index, anchor, with_dealer)
    theta = [0.0] * size
    ridge = 1 / prior_sd**2 if prior_sd else 1e-9
    for _ in range(iterations):
        grad, hess = _gradient_and_hessian(rows, theta, ridge)
        step = _solve(hess, grad)
        theta = [t + d for t, d in zip(theta, step, strict=True)]
        if max(abs(d) for d in step) < 1e-9:
            break
    ratings = theta[: len(names)]
    dealer = theta[-1] if with_dealer else 0.0
    if anchor is not None:
        fitted = {n: ratings[i] for n, i in index.items()}
        if anchor in everyone:
            fitted[anchor] = 0.0
        return fitted, dealer
    mean = sum(ratings) / len(ratings) if ratings else 0.0
    return {n: ratings[i] - mean for n, i in index.items()}, dealer


_Row = tuple[tuple[tuple[int, float], ...], float, float]  # (index, weight)s, count, score
_C = LOG10 / 400


def _rows(
    games: Sequence[RatedGame], index: dict[str, int], anchor: str | None, with_dealer: bool
) -> list[_Row]:
    """The likelihood's rows. Games with the same sides and dealer share a
    row: the likelihood needs only how many there were and their total
    score. Rows are sparse (the players of two sides, and the dealer), which
    makes a fit over a thousand matches of 16 engines tens of times faster
    than dense rows. The anchor is a constant 0, in no row."""
    dealer = len(index)
    merged: dict[tuple[tuple[int, float], ...], list[float]] = {}
    for g in games:
        x: dict[int, float] = {}
        for n in g.side_a:
            if n != anchor:
                x[index[n]] = x.get(index[n], 0.0) + 1 / len(g.side_a)
        for n in g.side_b:
            if n != anchor:
                x[index[n]] = x.get(index[n], 0.0) - 1 / len(g.side_b)
        if with_dealer:
            x[dealer] = 1.0 if g.a_deals_first else -1.0
        key = tuple(sorted((i, v) for i, v in x.items() if v))
        total = merged.setdefault(key, [0.0, 0.0])
        total[0] += 1
        total[1] += g.score_a
    return [(key, count, score) for key, (count, score) in merged.items()]


def _gradient_and_hessian(
    rows: Sequence[_Row], theta: Sequence[float], ridge: float
) -> tuple[list[float], list[list[float]]]:
    """The log posterior's gradient and its negated Hessian (the precision) at ``theta``."""
    size = len(theta)
    grad = [-ridge * t for t in theta]
    hess = [[0.0] * size for _ in range(size)]
    for i in range(size):
        hess[i][i] = ridge
    for key, count, score in rows:
        z = _C * sum(a * theta[i] for i, a in key)
        p = 1 / (1 + math.exp(-z))
        w = count * _C * _C * p * (1 - p)
        r = _C * (score - count * p)
        for i, xi in key:
            grad[i] += r * xi
            row = hess[i]
            for j, xj in key:
                row[j] += w * xi * xj
    return grad, hess


@dataclass(frozen=True)
class Covariance:
    """The posterior covariance of ratings relative to an anchor (Laplace's
    approximation), kept as the Cholesky factor of the precision: what
    matchmaking asks is how uncertain a *difference* is, and two players who
    met often are sure of theirs even when both are unsure of the anchor."""

    anchor: str
    index: dict[str, int]
    low: tuple[tuple[float, ...], ...]  # L, with L L^T the precision
    diagonal: tuple[float, ...]  # each player's variance

    def variance(self, name: str) -> float | None:
        if name == self.anchor:
            return 0.0
        i = self.index.get(name)
        return None if i is None else self.diagonal[i]

    def column(self, name: str) -> list[float]:
        """The covariances of ``name`` with every player (one solve, O(n^2))."""
        n = len(self.low)
        e = [0.0] * n
        e[self.index[name]] = 1.0
        y = [0.0] * n
        for i in range(n):
            row = self.low[i]
            y[i] = (e[i] - sum(row[k] * y[k] for k in range(i))) / row[i]
        x = [0.0] * n
        for i in range(n - 1, -1, -1):
            x[i] = (y[i] - sum(self.low[k][i] * x[k] for k in range(i + 1, n))) / self.low[i][i]
        return x


def laplace_covariance(
    games: Sequence[RatedGame],
    ratings: dict[str, float],
    anchor: str,
    prior_sd: float | None = 400.0,
) -> Covariance:
    """The covariance of the anchored ratings ``ratings`` fitted from ``games``."""
    names = sorted(n for n in ratings if n != anchor)
    index = {n: i for i, n in enumerate(names)}
    rows = _rows(games, index, anchor, with_dealer=False)
    ridge = 1 / prior_sd**2 if prior_sd else 1e-9
    _, hess = _gradient_and_hessian(rows, [ratings[n] for n in names], ridge)
    low = _cholesky(hess)
    return Covariance(
        anchor, index, tuple(tuple(row) for row in low), tuple(_inverse_diagonal(low))
    )


def laplace_sd(
    games: Sequence[RatedGame],
    ratings: dict[str, float],
    anchor: str,
    prior_sd: float | None = 400.0,
) -> dict[str, float]:
    """Each player's posterior standard deviation (Elo) relative to the
    anchor. The bootstrap of a player with one or two sets has nothing to
    resample and gives an interval of no width; this one is wide."""
    covariance = laplace_covariance(games, ratings, anchor, prior_sd)
    out = {n: math.sqrt(max(covariance.diagonal[i], 0.0)) for n, i in covariance.index.items()}
    out[anchor] = 0.0
    return out


def _cholesky(a: list[list[float]]) -> list[list[float]]:
    """L with L L^T = a, for a symmetric positive definite matrix."""
    n = len(a)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        row = low[i]
        for j in range(i + 1):
            other = low[j]
            total = a[i][j] - sum(row[k] * other[k] for k in range(j))
            if i == j:
                row[i] = math.sqrt(max(total, 1e-300))
            else:
                row[j] = total / other[j]
    return low


def _inverse_diagonal(low: list[list[float]]) -> list[float]:
    """The diagonal of (L L^T)^-1: entry i is the squared norm of column i
    of L^-1, found by solving L x = e_i."""
    n = len(low)
    out = [0.0] * n
    for col in range(n):
        x = [0.0] * n
        for i in range(col, n):
            row = low[i]
            total = (1.0 if i == col else 0.0) - sum(row[k] * x[k] for k in range(col, i))
            x[i] = total / row[i]
        out[col] = sum(v * v for v in x[col:])
    return out


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (small dense systems)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        if abs(m[col][col]) < 1e-300:
            continue
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            if f:
                for cc in range(col, n + 1):
                    m[r][cc] -= f * m[col][cc]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        if abs(m[r][r]) < 1e-300:
            continue
        x[r] = (m[r][n] - sum(m[r][cc] * x[cc] for cc in range(r + 1, n))) / m[r][r]
    return x


def fit_with_intervals(
    games: Sequence[RatedGame],
    resamples: int = 200,
    seed: int = 0,
    prior_sd: float | None = 400.0,
    progress: Callable[[int], None] | None = None,
    anchor: str | None = None,
) -> Fit:
    """The fit, and 95% intervals from a bootstrap that resamples whole
    duplicate sets (``RatedGame.group``), so luck shared within a set stays together.

    With an ``anchor`` (ladder.md): ratings are relative to it, there is no
    dealer term (duplicate sets balance the deal), and the bootstrap
    resamples each pairing's sets on their own, from a generator keyed by
    the pairing: the games of players who never meet a player then change
    neither its rating nor its interval. Each interval is then at least the
    Laplace interval (laplace_sd), which a bootstrap over few sets is not."""
    with_dealer = anchor is None
    ratings, dealer = fit_ratings(games, prior_sd, with_dealer=with_dealer, anchor=anchor)
    groups: dict[str, list[RatedGame]] = {}
    for g in games:
        groups.setdefault(g.group or str(id(g)), []).append(g)
    strata: dict[str, list[str]] = {}
    for key, members in groups.items():
        pairing = "|".join(
            sorted("+".join(sorted(s)) for s in (members[0].side_a, members[0].side_b))
        )
        strata.setdefault(pairing if anchor is not None else "", []).append(key)
    rng = random.Random(seed)
    samples: dict[str, list[float]] = {n: [] for n in ratings}
    for r in range(resamples):
        chosen = []
        for stratum, keys in strata.items():
            draw = random.Random(f"{seed}/{r}/{stratum}") if anchor is not None else rng
            chosen += [g for _ in keys for g in groups[keys[int(draw.random() * len(keys))]]]
        fitted, _ = fit_ratings(
            chosen, prior_sd, with_dealer=with_dealer, iterations=20, anchor=anchor
        )
        for n in ratings:
            if n in fitted:
                samples[n].append(fitted[n])
        if progress:
            progress(r)
    intervals = {}
    for n, values in samples.items():
        values.sort()
        if values:
            intervals[n] = (
                values[int(0.025 * (len(values) - 1))],
                values[int(0.975 * (len(values) - 1))],
            )
        else:
            intervals[n] = (ratings[n], ratings[n])
    covariance = None
    if anchor is not None and ratings:
        # The wider of the bootstrap's interval and Laplace's: a player with
        # few sets has little to resample, and would look sure of itself.
        covariance = laplace_covariance(games, ratings, anchor, prior_sd)
        for n, (low, high) in intervals.items():
            sd = math.sqrt(max(covariance.variance(n) or 0.0, 0.0))
            intervals[n] = (min(low, ratings[n] - Z95 * sd), max(high, ratings[n] + Z95 * sd))
    return Fit(ratings, dealer, intervals, covariance)
