"""Who plays the next duplicate set of a ladder (docs/ladder.md).

The rule, in three steps:
1. A version that has just entered is owed its first sets: the oldest such
   version plays next, whoever else is due.
2. Otherwise the player most behind its fair share plays: its *due* grows by
   2 / (players active) with every set scheduled while it is active, and it
   plays next when ``due - sets`` is largest. Nobody starves, and nobody is
   played much more than the rest.
3. Its opponent is the one the set tells most about: the largest expected
   information gain on their rating difference (ratings.difference_gain),
   which favours close and uncertain pairs; the difference's uncertainty
   comes from the batch fit's covariance, so a group of players who only
   ever met each other is uncertain against the rest and gets matched
   across. Players already far ahead of their share are left out while
   anyone else is there.

Pure and deterministic: the same ladder state picks the same pair.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from arena.results.ratings import Gaussian, difference_gain

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


Difference = Callable[[str, str], tuple[float, float]]


def next_pair(
    players: Mapping[str, Standing],
    matches_per_set: int = 2,
    difference: Difference | None = None,
) -> tuple[str, str] | None:
    """The two players of the next set (the one picked first, then its
    opponent), or None with fewer than two players. ``difference(a, b)``:
    the mean and variance of a's rating minus b's, from the batch fit's
    covariance (two players who met often know their difference well even
    when both are unsure against the rest); default: from each player's
    own Gaussian, as if independent."""
    if len(players) < 2:
        return None
    owed = [name for name, p in players.items() if p.owed > 0]
    if owed:
        first = min(owed, key=lambda n: (players[n].since, n))
    else:
        first = max(players, key=lambda n: (players[n].behind, players[n].rating.sigma, n))
    others = [n for n in players if n != first]
    fair = [n for n in others if not players[n].far_ahead] or others
    if difference is None:

        def difference(a: str, b: str) -> tuple[float, float]:
            ra, rb = players[a].rating, players[b].rating
            return ra.mu - rb.mu, ra.sigma**2 + rb.sigma**2

    def gain(other: str) -> tuple[float, str]:
        mean, variance = difference(first, other)
        return difference_gain(mean, variance, matches_per_set), other

    return first, max(fair, key=gain)


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
