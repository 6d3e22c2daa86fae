"""What the site computes from a store's rows: which matches a filter keeps,
the pace of a run, the crosstable, the rating series of the plot."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from arena.results.ratings import update_elo
from arena.results.store import MatchEntry, MatchStatus, Store, StoredMatch
from arena.rules import side_of
from arena.tournament.standings import match_score, players_of, side_players

# Points per engine on the rating-over-time plot, at most.
PLOT_LINES = 12  # lines on the rating plot at most
PLOT_POINTS = 200
ELO_START = 1500.0  # every player's live Elo before its first match


@dataclass
class MatchFilter:
    engine: str = ""
    result: str = ""  # "", pending, running, win, draw, no_result
    fault: str = ""  # "", yes, no
    page: int = 1


@dataclass
class Pace:
    """How far a competition has got, and how fast it goes."""

    done: int
    total: int
    eta_seconds: float | None  # None: not enough finished yet, or all done
    per_minute: float | None


def passes_filter(
    entry: MatchEntry, key: str, flt: MatchFilter, running: set[str], faulty: set[str]
) -> bool:
    if flt.engine and flt.engine not in entry.seats:
        return False
    if flt.fault == "yes" and key not in faulty:
        return False
    if flt.fault == "no" and key in faulty:
        return False
    if not flt.result:
        return True
    if flt.result == "running":
        return key in running
    if flt.result == "pending":
        return entry.status is MatchStatus.PENDING and key not in running
    if entry.status is not MatchStatus.DONE or entry.termination is None:
        return False
    if flt.result == "no_result":
        return not entry.termination.has_result
    if not entry.termination.has_result:
        return False
    if flt.result == "draw":
        return entry.winner_side is None
    if flt.result == "win":  # decided, or won by the filtered engine
        if entry.winner_side is None:
            return False
        if not flt.engine:
            return True
        return any(
            name == flt.engine and side_of(seat) == entry.winner_side
            for seat, name in enumerate(entry.seats)
        )
    if flt.result == "loss":
        if entry.winner_side is None or not flt.engine:
            return False
        return any(
            name == flt.engine and side_of(seat) != entry.winner_side
            for seat, name in enumerate(entry.seats)
        )
    return True


def pace(store: Store, done: int, total: int) -> Pace:
    """Done of total, and an estimate of the time left from the pace of the
    last matches recorded."""
    times = store.finish_times(100)
    if done >= total or len(times) < 2:
        return Pace(done, total, None, None)
    try:
        last = datetime.fromisoformat(times[0])
        first = datetime.fromisoformat(times[-1])
    except (TypeError, ValueError):
        return Pace(done, total, None, None)
    seconds = (last - first).total_seconds()
    if seconds <= 0:
        return Pace(done, total, None, None)
    rate = (len(times) - 1) / seconds
    return Pace(done, total, (total - done) / rate, rate * 60)


def side_label(seats: Sequence[str], side: int) -> str:
    """A side as the site names it, in its results and its crosstable alike:
    the bot, or the partners joined by + ("alice+bob")."""
    return "+".join(sorted(set(players_of(seats, side))))


def crosstable(finished: list[StoredMatch]) -> dict[str, dict[str, list[int]]]:
    """Per side (a bot, or partners joined by +) against each other: wins, draws, losses."""
    table: dict[str, dict[str, list[int]]] = {}
    for m in finished:
        if not m.termination.has_result:
            continue
        sides = [side_label(m.seats, s) for s in (0, 1)]
        for s in (0, 1):
            cell = table.setdefault(sides[s], {}).setdefault(sides[1 - s], [0, 0, 0])
            score = match_score(m, s)
            cell[0 if score == 1 else 1 if score == 0.5 else 2] += 1
    return table


def rating_series(
    finished: list[StoredMatch], k: float, anchor: str = ""
) -> dict[str, list[tuple[int, float]]]:
    """Each engine's live Elo (K ``k``, the run's) after every match it played,
    on the scale of the competition's standings: relative to ``anchor`` (a
    ladder's baseline, rated 0), else centred on the pool (every player starts
    at the same value and each match moves its sides by opposite amounts, so
    the start is the pool's mean). Thinned to PLOT_POINTS; of a field of more
    than PLOT_LINES (a ladder of hundreds), the PLOT_LINES best at the end:
    more lines are no longer read."""
    series: dict[str, list[tuple[int, float]]] = {}
    played = [m for m in finished if m.termination.has_result]
    step = max(1, len(played) // PLOT_POINTS)
    live: dict[str, float] = {}
    for i, m in enumerate(played):
        score = match_score(m, 0)
        update_elo(live, side_players(m, 0), side_players(m, 1), score, k=k, start=ELO_START)
        if i % step == 0 or i == len(played) - 1:
            zero = live.get(anchor, ELO_START) if anchor else ELO_START
            for name, value in live.items():
                series.setdefault(name, []).append((i + 1, value - zero))
    if len(series) > PLOT_LINES:
        best = sorted(series, key=lambda name: -series[name][-1][1])[:PLOT_LINES]
        series = {name: series[name] for name in best}
    return series
