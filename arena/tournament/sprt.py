"""The SPRT of a store: its settings as the run kept them, and the statistic
from the store's duplicate sets. One computation for the command line, `arena
web` and the server's site, so all three show the same LLR and bounds."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.results.ratings import llr_normalized, sprt, sprt_bounds
from arena.results.store import Store, StoredMatch
from arena.tournament.config import SprtSettings

# The meta key of the full settings; before it was kept, the store's config held
# only the test and base engines.
SETTINGS_KEY = "sprt"


@dataclass(frozen=True)
class SprtStatus:
    sets: int  # complete duplicate sets the test counts
    llr: float
    lower: float
    upper: float
    verdict: str | None  # "H1", "H0", or None while the test goes on
    faulted: int = 0  # sets left out: a fault or no result in one of their matches

    def line(self) -> str:
        left_out = f"  faulted sets left out {self.faulted}" if self.faulted else ""
        return (
            f"sets {self.sets:>5}  LLR {self.llr:+.3f}"
            f"  bounds [{self.lower:.3f}, {self.upper:.3f}]{left_out}"
        )


def sprt_status(
    settings: SprtSettings, finished: Sequence[StoredMatch], faulty: Mapping[str, set[str]]
) -> SprtStatus:
    """The SPRT from the complete duplicate sets among ``finished`` (the test
    engine's view); ``faulty``: per match, the engines with a fault in it.

    A set with a fault in either match (a forfeit, a substituted move, a seat
    that never started) or a match without a result says nothing about
    strength: it is left out and counted, unless ``count_faults`` is set
    (then forfeits count as played; matches without a result never do)."""
    by_set: dict[str, list[float]] = {}
    spoiled: set[str] = set()
    for m in finished:
        if not m.termination.has_result or (m.id in faulty and not settings.count_faults):
            spoiled.add(m.set_id)
            continue
        test_side = 0 if m.seats[0] == settings.test else 1
        score = 0.5 if m.winner_side is None else float(m.winner_side == test_side)
        by_set.setdefault(m.set_id, []).append(score)
    histogram = [0.0] * 5  # set scores 0, 1/4, ..., 1 (draws give quarters)
    complete = 0
    for set_id, scores in by_set.items():
        if len(scores) == 2 and set_id not in spoiled:
            complete += 1
            histogram[round(sum(scores) * 2)] += 1
    if complete == 0:
        return SprtStatus(0, 0.0, -math.inf, math.inf, None, len(spoiled))
    s = settings
    lower, upper = sprt_bounds(s.alpha, s.beta)
    if histogram[1] == histogram[3] == 0:
        trinomial = [histogram[0], histogram[2], histogram[4]]
        llr = sprt(trinomial, 2, s.elo0, s.elo1, s.alpha, s.beta).llr
    else:
        llr = llr_normalized(s.elo0, s.elo1, [0, 0.25, 0.5, 0.75, 1], histogram, k=2)
    verdict = "H1" if llr >= upper else "H0" if llr <= lower else None
    return SprtStatus(complete, llr, lower, upper, verdict, len(spoiled))


def store_status(settings: SprtSettings, store: Store) -> SprtStatus:
    """The SPRT of ``store`` under ``settings``."""
    return sprt_status(settings, store.finished(), store.faulty_engines())


def keep_settings(store: Store, settings: SprtSettings) -> None:
    """Keep the run's full SPRT settings in its store, for every reader (the
    latest run's stand: the bounds may change when a test is resumed)."""
    store.keep_json(SETTINGS_KEY, dataclasses.asdict(settings))


@dataclass(frozen=True)
class KeptSettings:
    settings: SprtSettings
    # What an older store did not keep (shown at their defaults), for readers to say so.
    missing: tuple[str, ...] = ()


def kept_settings(store: Store) -> KeptSettings | None:
    """The SPRT settings the store's run kept; None if the store is not an SPRT's."""
    kept = store.kept_json(SETTINGS_KEY)
    names = {f.name for f in dataclasses.fields(SprtSettings)}
    if isinstance(kept, dict) and {"test", "base"} <= kept.keys():
        return KeptSettings(SprtSettings(**{k: v for k, v in kept.items() if k in names}))
    config = store.kept_json("config")
    if not isinstance(config, dict) or "sprt.test" not in config:
        return None
    settings = SprtSettings(str(config["sprt.test"]), str(config.get("sprt.base", "")))
    return KeptSettings(settings, tuple(sorted(names - {"test", "base"})))
