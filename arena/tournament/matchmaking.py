"""Who plays the next duplicate set of a ladder (docs/ladder.md).

The rule, in three steps:
1. A version that has just entered is owed its first sets: the oldest such
   version plays next, whoever else is due.
2. Otherwise the player most behind its fair share plays: its *due* grows by
   2 / (players active) with every set scheduled while it is active, and it
   plays next when ``due - sets`` is largest. Nobody starves, and nobody is
   played much more than the rest.
3. Its opponent is the one the set tells most about: the largest expected
   information gain on their rating difference (ratings.information_gain),
   which favours close and uncertain pairs; players already far ahead of
   their share are left out while anyone else is there.

Pure and deterministic: the same ladder state picks the same pair.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from arena.ratings import Gaussian, information_gain

# How far ahead of its fair share (in sets) a player may be and still be
# picked as an opponent, as a part of its due plus a constant.
AHEAD_SLACK = 2.0
AHEAD_PART = 0.5


@dataclass
class Standing:
    """What the matchmaker knows of one active player."""

    rating: Gaussian
    sets: int = 0  # ladder sets it played or has scheduled since it became active
    due: float = 0.0  # the sets a fair share would have given it in that time
    owed: int = 0  # first sets it is still owed
    since: int = 0  # when it became active (a counter): the oldest owed plays first

    @property
    def behind(self) -> float:
        return self.due - self.sets

    @property
    def far_ahead(self) -> bool:
        return self.sets - self.due > AHEAD_SLACK + AHEAD_PART * self.due


def next_pair(players: Mapping[str, Standing], matches_per_set: int = 2) -> tuple[str, str] | None:
    """The two players of the next set (the one picked first, then its
    opponent), or None with fewer than two players."""
    if len(players) < 2:
        return None
    owed = [name for name, p in players.items() if p.owed > 0]
    if owed:
        first = min(owed, key=lambda n: (players[n].since, n))
    else:
        first = max(players, key=lambda n: (players[n].behind, players[n].rating.sigma, n))
    others = [n for n in players if n != first]
    fair = [n for n in others if not players[n].far_ahead] or others
    me = players[first].rating
    second = max(
        fair,
        key=lambda n: (information_gain(me, players[n].rating, matches_per_set), n),
    )
    return first, second


def scheduled(players: dict[str, Standing], pair: tuple[str, str]) -> None:
    """Count a set of ``pair`` as scheduled: its players' sets (and a first
    set owed), and every active player's fair share."""
    share = 2 / len(players)
    for p in players.values():
        p.due += share
    for name in pair:
        p = players[name]
        p.sets += 1
        if p.owed > 0:
            p.owed -= 1
