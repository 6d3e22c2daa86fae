"""Collusion audit of team-game logs: are a partnership's choices better
explained by the partner's true hand than by the seat's own view?

For each decision of a seat with a choice, every legal move m is valued by
flat Monte Carlo as in ``arena.players.search.evaluate``, three ways: over
determinizations of the seat's view (``V_view``), and over the same
determinizations with one hidden hand fixed to its true hand from the log:
the partner's (``V_partner``) or one opponent's (``V_opp``, each of the two).
With ``Δ_axis(m) = V_axis(m) − V_view(m)``, a decision scores

    x_axis = Δ_axis(chosen) − mean over the legal moves of Δ_axis(m).

Why it works: if the choice depends only on the view and the true hidden
hands are distributed as the view's determinizations assume, then given the
view every ``Δ_axis(m)`` has expectation 0, hence so has ``x_axis``,
whatever the choice rule. A seat that sees its partner's hand prefers the
moves that its partner's true hand makes good: ``x_partner > 0``.

The true hands are not uniform given the view, though: plays reveal
something of a hand, and honest partners read each other's plays (and play
conventions meant to be read), which also makes ``x_partner > 0``. Hence a
control. By default, the opponents: the same score with an opponent's hand
fixed (the mean of the two), so that the test is on ``x_partner − x_opp``
per decision; what any hand's plays reveal cancels, a partner's signals do
not. Better, logs of honest runs of the same engines (``null``: the same
pair where it could not collude): then ``x_partner`` is compared with the
same pair's honest ``x_partner``.

Decisions of a match are not independent (the same deal, the same bots), so
standard errors are clustered by match: from the spread of the per-match
sums, once there are enough matches for it to mean something.

Every random number comes from the seat's view and the audit's seed
(``audit_rng``): an audit is reproducible. Each sample deals one world per
axis from the same random numbers, fixed hands swapped in where they must
be (``determinize``), and plays every move out in each world with the same
playout random numbers: the differences ``Δ`` are then far less noisy than
the values they are differences of.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from arena.errors import AnalysisError, ConfigError, RulesError
from arena.logs.replay import Replay, replay_log
from arena.players.search.evaluate import playout, view_digest
from arena.rules import Deal, Move, Observation, legal_moves, plain_move
from arena.rules.cards import BIT, DECK_SIZE, FULL_DECK, cards_of
from arena.rules.determinize import determinize as determinize_view
from arena.rules.determinize import seen_cards
from arena.rules.variants import side_of

__all__ = [
    "ALPHA",
    "DEFAULT_SAMPLES",
    "FORMAT",
    "MIN_CLUSTERS",
    "CollusionAudit",
    "DecisionScore",
    "PartnershipAudit",
    "audit_logs",
    "audit_rng",
    "determinize",
    "score_decision",
]

FORMAT = "arena-collusion-audit"
VERSION = 1
# Samples per decision. The x scores' spread between decisions (sd about
# 0.3 deal points for x_partner − x_opp) dwarfs their sampling noise from
# about 32 samples on (docs in the report of the module's measurements):
# more samples cost time linearly and narrow the test little.
DEFAULT_SAMPLES = 32
# Matches from which standard errors are clustered by match; with fewer,
# the spread of so few match sums is itself too noisy to use.
MIN_CLUSTERS = 5
# The p-value below which a partnership is shown as flagged.
ALPHA = 0.01

Control = Literal["opponents", "null"]
SeKind = Literal["match", "decision"]

Progress = Callable[[int, int], None]
"""Called after each decision scored, with the count so far and the total."""


# --- sampling -------------------------------------------------------------


def audit_rng(obs: Observation, seed: int = 0) -> random.Random:
    """The audit's random numbers for one decision: from the seat's view and
    ``seed`` only, like ``arena.players.search.evaluate.decision_rng`` (its own
    stream: an audit's samples are not the analysis's)."""
    key = hashlib.sha256(b"arena-collusion\0" + str(seed).encode() + b"\0" + view_digest(obs))
    return random.Random(int.from_bytes(key.digest(), "big"))


def _check_known(obs: Observation, known: Mapping[int, int]) -> None:
    unseen = FULL_DECK & ~seen_cards(obs)
    union = 0
    for seat, hand in known.items():
        if not 0 <= seat < len(obs.hand_sizes):
            raise RulesError(f"no seat {seat} to fix a hand of")
        if seat == obs.seat:
            if hand != obs.hand:
                raise RulesError(f"seat {seat}'s own hand cannot be fixed to another")
            continue
        if hand.bit_count() != obs.hand_sizes[seat]:
            raise RulesError(
                f"seat {seat} holds {obs.hand_sizes[seat]} card(s), "
                f"not the {hand.bit_count()} given"
            )
        if hand & ~unseen:
            raise RulesError(f"seat {seat}'s hand holds cards seat {obs.seat} has seen")
        if hand & union:
            raise RulesError(f"seat {seat}'s hand shares cards with another fixed hand")
        union |= hand


def determinize(
    obs: Observation, rng: random.Random, known: Mapping[int, int] | None = None
) -> Deal:
    """A deal in the observed position, hidden cards dealt at random, except
    the hands in ``known`` (seat: mask), which are fixed; the cards left are
    dealt at random among the other hidden hands and the stock.

    It draws exactly the random numbers of ``arena.rules.determinize`` (the
    view's sample), then swaps each fixed card into its hand with a card of
    the sample's, in a fixed pairing: a uniform deal of the other cards
    stays uniform under that relabelling, and the same random numbers give
    worlds that differ only where they must."""
    world = determinize_view(obs, rng)
    if not known:
        return world
    _check_known(obs, known)
    hands = world.hands
    stock = world.deck[world.stock_pos :]
    in_stock = False
    for seat, hand in known.items():
        if seat == obs.seat:
            continue
        sampled = hands[seat]
        coming = cards_of(hand & ~sampled)
        going = cards_of(sampled & ~hand)
        for card, other in zip(coming, going, strict=True):
            for s, h in enumerate(hands):
                if h >> card & 1:
                    hands[s] = h ^ BIT[card] ^ BIT[other]
                    break
            else:
                stock[stock.index(card)] = other
                in_stock = True
        hands[seat] = hand
    if in_stock:
        stocked = 0
        for c in stock:
            stocked |= BIT[c]
        world.deck = [c for c in range(DECK_SIZE) if not stocked >> c & 1] + stock
    return world


# --- one decision -----------------------------------------------------------


@dataclass(frozen=True)
class DecisionScore:
    """One decision's scores, in deal points: x of the partner's axis and of
    each opponent's (the seat after this one, then the seat before)."""

    log: str  # the log's path, as given
    match_id: str
    deal: int  # the log's deal number, from 0
    index: int  # the decision's index within the deal
    seat: int
    moves: int  # legal moves
    x_partner: float
    x_opponents: tuple[float, float]

    @property
    def x_opp(self) -> float:
        return (self.x_opponents[0] + self.x_opponents[1]) / 2

    @property
    def y(self) -> float:
        """The opponent-controlled score: x_partner − x_opp."""
        return self.x_partner - self.x_opp


def score_decision(
    obs: Observation,
    moves: Sequence[Move],
    chosen: Move,
    hands: Sequence[int],
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
) -> tuple[float, float, float]:
    """``x`` of the partner's axis, then of the next and the previous
    opponent's, for ``chosen`` among ``moves`` (``hands``: every seat's true
    hand, from the log)."""
    if samples < 1:
        raise ConfigError(f"the audit needs at least one sample, not {samples}")
    seats = len(obs.hand_sizes)
    if seats != 4:
        raise AnalysisError(f"a {seats}-seat game has no partners to audit")
    seat = obs.seat
    pick = moves.index(chosen)
    axes = ((seat + 2) % 4, (seat + 1) % 4, (seat + 3) % 4)
    known = [{a: hands[a]} for a in axes]
    side = side_of(seat)
    other = 1 - side
    n = len(moves)
    totals = [[0] * n for _ in range(len(axes) + 1)]  # the view's, then each axis's
    samples_rng = audit_rng(obs, seed)
    rng = random.Random()
    for _ in range(samples):
        # Each sample's own random numbers, drawn from the decision's stream
        # and not from its playouts: one sample's length never shifts another's.
        rng.seed(samples_rng.getrandbits(64))
        start = rng.getstate()
        view_world = determinize(obs, rng)
        worlds = [view_world]
        for fixed in known:
            rng.setstate(start)
            worlds.append(determinize(obs, rng, fixed))
        play = rng.getstate()  # the same after every world: they draw the same numbers
        view_row: list[int] = []
        for world, total in zip(worlds, totals, strict=True):
            if world is view_world or world.hands != view_world.hands:
                row = []
                for move in moves:
                    deal = world.copy()
                    deal.play_unchecked(move)
                    rng.setstate(play)
                    points = playout(deal, rng)
                    row.append(points[side] - points[other])
                if world is view_world:
                    view_row = row
            else:
                # The true hand is the one sampled (often, late in a deal):
                # the same world, hence the same playouts.
                row = view_row
            for i, value in enumerate(row):
                total[i] += value
    view = totals[0]
    xs = []
    for total in totals[1:]:
        delta = [(a - v) / samples for a, v in zip(total, view, strict=True)]
        xs.append(delta[pick] - math.fsum(delta) / n)
    return xs[0], xs[1], xs[2]


# --- statistics -----------------------------------------------------------


@dataclass(frozen=True)
class _Estimate:
    mean: float
    se: float
    sd: float  # decision-level standard deviation
    kind: SeKind
    n: int


def _estimate(by_match: Sequence[Sequence[float]]) -> _Estimate:
    """The mean of every value, its standard error clustered by match (CR1,
    from the per-match sums of deviations) with MIN_CLUSTERS matches or
    more, else the decision-level one."""
    values = [v for group in by_match for v in group]
    n = len(values)
    if n == 0:
        return _Estimate(0.0, 0.0, 0.0, "decision", 0)
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    groups = [g for g in by_match if g]
    if len(groups) >= MIN_CLUSTERS:
        g = len(groups)
        spread = math.fsum((math.fsum(grp) - len(grp) * mean) ** 2 for grp in groups)
        return _Estimate(mean, math.sqrt(g / (g - 1) * spread) / n, sd, "match", n)
    return _Estimate(mean, sd / math.sqrt(n), sd, "decision", n)


def _one_sided(difference: float, se: float) -> tuple[float | None, float | None]:
    """z and P(Z >= z); None for both when the standard error is 0 and the
    difference is not (too few decisions to say)."""
    if se > 0:
        z = difference / se
        return z, 0.5 * math.erfc(z / math.sqrt(2))
    if difference == 0:
        return 0.0, 0.5
    return None, None


@dataclass(frozen=True)
class PartnershipAudit:
    """One partnership (an unordered pair of engine names, pooled over every
    log and seating), its test and what it rests on."""

    names: tuple[str, str]  # sorted
    seatings: tuple[tuple[int, int], ...]  # the partner seats it sat at
    opponents: tuple[tuple[str, str], ...]  # the partnerships it played against
    decisions: int  # decisions scored (with a choice and no fault)
    matches: int
    control: Control
    se_kind: SeKind  # standard errors clustered by match, or by decision
    statistic: float | None  # z
    p_value: float | None  # one-sided: the partner's hand explains the choices better
    effect: float  # deal points per decision (x_partner − x_opp, or minus the null's)
    effect_se: float  # its standard error (``se_kind``)
    effect_sd: float  # effect over the decision-level standard deviation
    x_partner_mean: float
    x_opp_mean: float
    x_opponent_means: tuple[float, float]  # the opponent after the seat, the one before
    null_decisions: int = 0  # the null logs' decisions of the pair (control "null")
    null_matches: int = 0
    null_x_partner_mean: float | None = None
    note: str = ""  # why the control is what it is, when that was not asked for

    @property
    def flagged(self) -> bool:
        return self.p_value is not None and self.p_value < ALPHA


@dataclass(frozen=True)
class CollusionAudit:
    logs: tuple[str, ...]
    null_logs: tuple[str, ...]
    samples: int
    seed: int
    partnerships: tuple[PartnershipAudit, ...]
    decisions: tuple[DecisionScore, ...]  # the suspect logs' decisions, in log order
    null_decisions: tuple[DecisionScore, ...]
    incomplete: tuple[str, ...] = ()  # logs that stop before their match's end
    seconds: float = 0.0  # wall-clock time the audit took (not in the JSON: it varies)


# --- the logs ---------------------------------------------------------------


@dataclass(frozen=True)
class _Decision:
    log: str
    match_id: str
    deal: int
    index: int
    obs: Observation
    moves: tuple[Move, ...]
    chosen: Move
    hands: tuple[int, ...]


@dataclass(frozen=True)
class _Log:
    path: str
    replay: Replay
    decisions: tuple[_Decision, ...]


def pair_of(names: Sequence[str], seat: int) -> tuple[str, str]:
    """The partnership of ``seat``: its and its partner's names, sorted."""
    a, b = names[seat % 4], names[(seat + 2) % 4]
    return (a, b) if a <= b else (b, a)


def _read(path: Path) -> _Log:
    """A verified log's decisions with a choice (RecordError or VerifyError
    naming the file when it is none; AnalysisError for a game without teams)."""
    replay = replay_log(path)
    game = replay.variant.game
    if replay.variant.seats != 4:
        why = "is not a four-seat game" if replay.variant.game.is_team_game else "has no partners"
        raise AnalysisError(
            f"{path}: a {game.value} match {why}: the collusion audit reads the four-seat "
            "team games (scopone, scientifico, scopa4)"
        )
    out = []
    for deal in replay.deals:
        for step in deal.steps:
            if step.move is None or step.fault is not None:
                continue
            obs = step.before.seen_by(step.seat).observation()
            v = obs.variant
            moves = legal_moves(
                obs.hand, obs.table, v.fewest_cards, v.ace_takes_all, v.fifteen, v.fifteen_ordinary
            )
            if len(moves) < 2:
                continue
            out.append(
                _Decision(
                    str(path),
                    replay.header.match_id,
                    step.deal,
                    step.index,
                    obs,
                    tuple(moves),
                    plain_move(step.move),
                    tuple(step.hands),
                )
            )
    return _Log(str(path), replay, tuple(out))


def _read_all(paths: Sequence[Path], null: Sequence[Path]) -> tuple[list[_Log], list[_Log]]:
    seen: dict[object, str] = {}
    logs: tuple[list[_Log], list[_Log]] = ([], [])
    for group, given in zip(logs, (paths, null), strict=True):
        for path in given:
            log = _read(Path(path))
            replay = log.replay
            for key in (Path(path).resolve(), (replay.header.match_id, replay.chain)):
                if key in seen and (not isinstance(key, tuple) or replay.chain is not None):
                    raise AnalysisError(f"{path}: the same log as {seen[key]}: give each log once")
                seen[key] = str(path)
            group.append(log)
    return logs


def _score_all(
    logs: Sequence[_Log],
    samples: int,
    seed: int,
    progress: Progress | None,
    done: int,
    total: int,
) -> list[DecisionScore]:
    out = []
    for log in logs:
        for d in log.decisions:
            xp, xn, xv = score_decision(d.obs, d.moves, d.chosen, d.hands, samples, seed)
            out.append(
                DecisionScore(
                    d.log, d.match_id, d.deal, d.index, d.obs.seat, len(d.moves), xp, (xn, xv)
                )
            )
            if progress is not None:
                progress(done + len(out), total)
    return out


def _by_pair(
    logs: Sequence[_Log], scores: Sequence[DecisionScore]
) -> dict[tuple[str, str], list[DecisionScore]]:
    names = {log.path: log.replay.names for log in logs}
    out: dict[tuple[str, str], list[DecisionScore]] = {}
    for s in scores:
        out.setdefault(pair_of(names[s.log], s.seat), []).append(s)
    return out


def _by_match(
    scores: Sequence[DecisionScore], value: Callable[[DecisionScore], float]
) -> list[list[float]]:
    groups: dict[str, list[float]] = {}
    for s in scores:
        groups.setdefault(s.log, []).append(value(s))
    return list(groups.values())


def _pooled(groups: Sequence[Sequence[float]]) -> list[list[float]]:
    """Every value in one group: decision-level standard errors."""
    return [[v for group in groups for v in group]]


def _partnership(
    pair: tuple[str, str],
    scores: Sequence[DecisionScore],
    names: Mapping[str, Sequence[str]],
    null_scores: Sequence[DecisionScore] | None,
) -> PartnershipAudit:
    """The test of one partnership: against ``null_scores`` (the same pair's
    decisions in the null logs) when there are some, else against the
    opponents' axis; ``null_scores`` None: no null logs were given."""
    x_next = _estimate(_by_match(scores, lambda s: s.x_opponents[0])).mean
    x_previous = _estimate(_by_match(scores, lambda s: s.x_opponents[1])).mean
    by_match = _by_match(scores, lambda s: s.x_partner)
    note = ""
    if null_scores is not None and len(null_scores) >= 2:
        null_by_match = _by_match(null_scores, lambda s: s.x_partner)
        clustered = min(len(by_match), len(null_by_match)) >= MIN_CLUSTERS
        # Welch: each sample's own variance (clustered by match, or by decision).
        suspect = _estimate(by_match if clustered else _pooled(by_match))
        honest = _estimate(null_by_match if clustered else _pooled(null_by_match))
        control: Control = "null"
        se_kind: SeKind = "match" if clustered else "decision"
        effect = suspect.mean - honest.mean
        effect_se = math.hypot(suspect.se, honest.se)
        sd = math.sqrt((suspect.sd**2 + honest.sd**2) / 2)
        null_matches, null_mean = len(null_by_match), honest.mean
    else:
        if null_scores is not None:
            note = (
                "too few decisions of the pair in the null logs"
                if null_scores
                else "the pair is not in the null logs"
            ) + ": tested against the opponents' axis instead"
        y = _estimate(_by_match(scores, lambda s: s.y))
        control, se_kind = "opponents", y.kind
        effect, effect_se, sd = y.mean, y.se, y.sd
        null_matches, null_mean = 0, None
    z, p = _one_sided(effect, effect_se)
    return PartnershipAudit(
        names=pair,
        seatings=tuple(sorted({(s.seat % 2, s.seat % 2 + 2) for s in scores})),
        opponents=tuple(sorted({pair_of(names[s.log], s.seat + 1) for s in scores})),
        decisions=len(scores),
        matches=len(by_match),
        control=control,
        se_kind=se_kind,
        statistic=z,
        p_value=p,
        effect=effect,
        effect_se=effect_se,
        effect_sd=effect / sd if sd > 0 else 0.0,
        x_partner_mean=_estimate(by_match).mean,
        x_opp_mean=(x_next + x_previous) / 2,
        x_opponent_means=(x_next, x_previous),
        null_decisions=0 if null_scores is None or control != "null" else len(null_scores),
        null_matches=null_matches,
        null_x_partner_mean=null_mean,
        note=note,
    )


def audit_logs(
    paths: Sequence[Path],
    null: Sequence[Path] = (),
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    progress: Progress | None = None,
) -> CollusionAudit:
    """Audit every partnership of the team-game logs ``paths``, pooled by the
    pair of engine names; against the same pairs in the honest logs ``null``
    when given, else against the opponents' axis. Every log is verified
    before any is scored: RecordError or VerifyError naming the file when
    one is not a log or does not verify, AnalysisError for a log of a game
    without partners or a log given twice, ConfigError for bad options."""
    if not paths:
        raise ConfigError("the collusion audit needs at least one match log")
    if samples < 2:
        raise ConfigError(f"--samples must be at least 2, not {samples}")
    start = time.perf_counter()
    logs, null_logs = _read_all(paths, null)
    total = sum(len(log.decisions) for log in [*logs, *null_logs])
    scores = _score_all(logs, samples, seed, progress, 0, total)
    null_scores = _score_all(null_logs, samples, seed, progress, len(scores), total)
    suspect_pairs = _by_pair(logs, scores)
    null_pairs = _by_pair(null_logs, null_scores)
    names = {log.path: log.replay.names for log in [*logs, *null_logs]}
    partnerships = tuple(
        _partnership(
            pair,
            suspect_pairs[pair],
            names,
            null_pairs.get(pair, []) if null_logs else None,
        )
        for pair in sorted(suspect_pairs)
    )
    return CollusionAudit(
        logs=tuple(str(p) for p in paths),
        null_logs=tuple(str(p) for p in null),
        samples=samples,
        seed=seed,
        partnerships=partnerships,
        decisions=tuple(scores),
        null_decisions=tuple(null_scores),
        incomplete=tuple(log.path for log in [*logs, *null_logs] if not log.replay.complete),
        seconds=time.perf_counter() - start,
    )
