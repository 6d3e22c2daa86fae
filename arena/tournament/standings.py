"""Standings and ratings, computed from the store alone."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from arena.players.strategies import sees_every_hand
from arena.results.ratings import (
    Covariance,
    Estimate,
    RatedGame,
    estimate,
    fit_with_intervals,
    update_elo,
)
from arena.results.store import Store, StoredMatch
from arena.rules import side_of
from arena.tournament.schedule import sides_of


@dataclass
class Row:
    rank: int
    engine: str
    elo: float
    elo_low: float
    elo_high: float
    live_elo: float
    played: int
    wins: int
    losses: int
    draws: int
    score: float
    faults: int
    suspended: str
    baseline: bool = False  # a built-in strategy the organiser entered as a yardstick
    sees_every_hand: bool = False  # builtin:cheating-mcts: a research bound, not a fair player


@dataclass
class HeadToHead:
    side_a: str
    side_b: str
    sets: int
    matches_per_set: int
    estimate: Estimate


@dataclass
class Standings:
    rows: list[Row]
    head_to_head: list[HeadToHead]
    dealer_advantage: float
    matches: int
    anchor: str = ""  # the player rated 0 (a ladder's), else the pool's mean is 0
    # A ladder's: the fitted ratings and their covariance, for its matchmaking.
    covariance: Covariance | None = None

    def to_json(self) -> str:
        return json.dumps(
            {
                "matches": self.matches,
                "dealer_advantage": round(self.dealer_advantage, 2),
                "anchor": self.anchor,
                "leaderboard": [asdict(r) for r in self.rows],
                "head_to_head": [
                    {
                        "side_a": h.side_a,
                        "side_b": h.side_b,
                        "sets": h.sets,
                        "matches_per_set": h.matches_per_set,
                        **asdict(h.estimate),
                    }
                    for h in self.head_to_head
                ],
            },
            indent=2,
        )

    def table(self) -> str:
        lines = [
            f"{'#':>2} {'engine':<16} {'Elo':>7} {'95% interval':>17} {'live':>6} "
            f"{'played':>6} {'W-L-D':>11} {'score':>6} {'faults':>6}",
        ]
        for r in self.rows:
            interval = f"[{r.elo_low:+.0f}, {r.elo_high:+.0f}]"
            wld = f"{r.wins}-{r.losses}-{r.draws}"
            name = f"{r.engine} *" if r.baseline else r.engine
            name = f"{name} !" if r.sees_every_hand else name
            lines.append(
                f"{r.rank:>2} {name:<16} {r.elo:>+7.0f} {interval:>17} {r.live_elo:>6.0f} "
                f"{r.played:>6} {wld:>11} {100 * r.score:>5.1f}% {r.faults:>6}"
                + (f"  suspended: {r.suspended}" if r.suspended else "")
            )
        centre = (
            f"relative to the baseline {self.anchor} (0)"
            if self.anchor
            else "centred on the pool (0)"
        )
        dealer = (
            ""  # a ladder's fit has no dealer term: its duplicate sets balance the deal
            if self.anchor
            else f"; dealer advantage {self.dealer_advantage:+.0f} Elo"
        )
        among = " among the active players" if self.anchor else ""
        lines.append(
            f"\n{self.matches} matches with a result{dealer}. Columns:\n"
            + (
                "  *             a baseline: a built-in strategy the organiser entered\n"
                if any(r.baseline for r in self.rows)
                else ""
            )
            + (
                "  !             sees every hand (builtin:cheating-mcts): a research bound, "
                "not a fair player\n"
                if any(r.sees_every_hand for r in self.rows)
                else ""
            )
            + f"  Elo           batch Bradley-Terry fit over every match{among}, {centre}\n"
            + (
                "  95% interval  bootstrap over each pairing's sets, at least Laplace's "
                f"(Laplace's alone past {BOOTSTRAP_PLAYERS} players; docs/ladder.md)\n"
                if self.anchor
                else "  95% interval  bootstrap over duplicate sets "
                "(the unit of a duplicate tournament)\n"
            )
            + (
                f"  live          incremental Elo in finishing order, {centre} "
                "(changes as it goes)\n"
                if self.anchor
                else "  live          incremental Elo from 1500 in finishing order "
                "(changes as it goes)\n"
            )
            + "  played        matches with a result (no contests and aborted matches left out)\n"
            "  W-L-D         wins, losses, draws; score = (wins + draws / 2) / played\n"
            "  faults        the engine's own faults: timeouts, crashes, illegal or malformed "
            "moves, stalls"
        )
        if self.head_to_head:
            lines.append(
                "\nhead to head (duplicate sets as units; Elo of the first-named side, "
                "positive when it is the stronger):"
            )
            for h in self.head_to_head:
                lines.append(f"  {h.side_a} vs {h.side_b}: {h.estimate.line()}")
        return "\n".join(lines)


def players_of(seats: Sequence[str], side: int) -> tuple[str, ...]:
    """Who plays for ``side`` (one bot, or partners) at these seats."""
    return tuple(name for seat, name in enumerate(seats) if side_of(seat) == side)


def side_players(match: StoredMatch, side: int) -> tuple[str, ...]:
    return players_of(match.seats, side)


def match_score(match: StoredMatch, side: int) -> float:
    return 0.5 if match.winner_side is None else float(match.winner_side == side)


DEFAULT_K = 16.0  # the live Elo's K when a run says none
# A ladder's fit with more players than this has Laplace's intervals alone
# (docs/ladder.md): each bootstrap resample is a whole fit, seconds at 200 players.
BOOTSTRAP_PLAYERS = 24


def elo_k_of(store: Store) -> float:
    """The live Elo's K the run that wrote ``store`` used (its config's elo_k)."""
    k = store.kept_json("elo_k")
    if isinstance(k, bool) or not isinstance(k, int | float) or k <= 0:
        return DEFAULT_K
    return float(k)


LIVE_START = 1500.0  # every player's live Elo before its first match


def live_elo(matches: Sequence[StoredMatch], k: float = 16.0) -> dict[str, float]:
    """Incremental Elo in finishing order (a team at its members' mean), start 1500."""
    live: dict[str, float] = {}
    for m in matches:
        if m.termination.has_result:
            update_elo(live, side_players(m, 0), side_players(m, 1), match_score(m, 0), k=k)
    return live


def compute_standings(
    store: Store,
    resamples: int = 200,
    seed: int = 0,
    k: float = 16.0,
    include: Callable[[StoredMatch], bool] | None = None,
) -> Standings:
    """The leaderboard; ``k`` is the live Elo's K (small: bot versions never change).

    The store says which players are baselines (``baselines``) and, for a
    ladder, which are active and which baseline is rated 0 (``ladder``): the
    table is then the fit over the matches among active players alone.
    ``include``: only the matches it accepts (the table as of some moment)."""
    baselines = set(_names(store.kept_json("baselines")))
    ladder = store.kept_json("ladder")
    active: set[str] | None = None
    anchor = ""
    if isinstance(ladder, dict):
        active = set(_names(ladder.get("active")))
        anchor = str(ladder.get("anchor") or "")
    matches = [
        m
        for m in store.finished()
        if m.termination.has_result
        and (active is None or active.issuperset(m.seats))
        and (include is None or include(m))
    ]
    games = [
        RatedGame(
            side_players(m, 0),
            side_players(m, 1),
            match_score(m, 0),
            a_deals_first=m.first_dealer % 2 == 0,
            group=m.set_id,
        )
        for m in matches
    ]
    live = live_elo(matches, k)
    # A ladder's every rating is relative to its anchor, the live one too.
    zero = live.get(anchor, LIVE_START) if anchor else 0.0
    tally: dict[str, list[float]] = {}
    for m in matches:
        for side in (0, 1):
            for name in set(side_players(m, side)):
                tally.setdefault(name, []).append(match_score(m, side))
    names = [n for n, *_ in store.engines() if active is None or n in active]
    seeing = {n for n, spec, *_ in store.engines() if sees_every_hand(spec)}
    faults = store.fault_counts()
    suspended = store.suspended()
    if games:
        if anchor and len(names) > BOOTSTRAP_PLAYERS:
            resamples = 0  # Laplace's intervals alone: a bootstrap would take minutes
        fit = fit_with_intervals(games, resamples=resamples, seed=seed, anchor=anchor or None)
        ratings, intervals, dealer = fit.ratings, fit.intervals, fit.dealer_advantage
        covariance = fit.covariance
    else:
        ratings, intervals, dealer, covariance = {}, {}, 0.0, None
    rows = []
    for name in names:
        scores = tally.get(name, [])
        rows.append(
            Row(
                rank=0,
                engine=name,
                elo=ratings.get(name, 0.0),
                elo_low=intervals.get(name, (0.0, 0.0))[0],
                elo_high=intervals.get(name, (0.0, 0.0))[1],
                live_elo=live.get(name, LIVE_START) - zero,
                played=len(scores),
                wins=sum(s == 1 for s in scores),
                losses=sum(s == 0 for s in scores),
                draws=sum(s == 0.5 for s in scores),
                score=sum(scores) / len(scores) if scores else 0.0,
                faults=faults.get(name, 0),
                suspended=suspended.get(name, ""),
                baseline=name in baselines,
                sees_every_hand=name in seeing,
            )
        )
    rows.sort(key=lambda r: -r.elo)
    for i, r in enumerate(rows):
        r.rank = i + 1
    return Standings(
        rows,
        head_to_head(matches, [n for n, *_ in store.engines()]),
        dealer,
        len(matches),
        anchor,
        covariance,
    )


def _names(value: object) -> list[str]:
    """A list of names kept in a store's meta data (anything else: none)."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def head_to_head(matches: Sequence[StoredMatch], order: Sequence[str] = ()) -> list[HeadToHead]:
    """Per pair of sides, the histogram of duplicate-set scores (complete sets
    only), from the point of view of the side whose engine is named first in
    ``order`` (the configuration's order; by name for engines not in it)."""

    def rank(side: str) -> tuple[int, str]:
        names = side.split("+")
        return min(order.index(n) if n in order else len(order) for n in names), side

    sets: dict[str, list[tuple[tuple[str, str], float]]] = {}
    for m in matches:
        sets.setdefault(m.set_id, []).append((sides_of(m.seats), match_score(m, 0)))
    per_pair: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for entries in sets.values():
        pair = tuple(sorted(entries[0][0], key=rank))
        if any(tuple(sorted(sides, key=rank)) != pair for sides, _ in entries):
            continue  # partnership sets mix sides: no head-to-head
        a = pair[0]
        unit = sum(score if sides[0] == a else 1 - score for sides, score in entries) / len(entries)
        per_pair.setdefault((pair[0], pair[1]), []).append((len(entries), unit))
    out = []
    for (a, b), units in sorted(
        per_pair.items(), key=lambda item: (rank(item[0][0]), rank(item[0][1]))
    ):
        k = max(size for size, _ in units)
        histogram: dict[float, int] = {}
        for size, unit in units:
            if size == k:  # a smaller set is incomplete (cut short or still running)
                histogram[unit] = histogram.get(unit, 0) + 1
        levels = sorted(histogram)
        est = estimate(levels, [histogram[x] for x in levels], k)
        out.append(HeadToHead(a, b, sum(histogram.values()), k, est))
    return out
