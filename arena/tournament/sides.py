"""A match as one bot sees it: the seats it sat in, its partners and
opponents, the result named from its side, the two sides' scores in its
order, and its own faults. One rule for the server's author's view
(ListBotMatches, `arena remote matches --bot`) and the bot's page on the site.

A player is a name in a match's seats. The caller says which bot each player
belongs to (``bot_of``): in a fixed competition the bot itself, in a ladder
one player per version, ``BOT@N``; so a match between two versions of one
bot is seen once from each version's side. Pure: values in, values out.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from arena.match.outcome import Termination
from arena.results.store import MatchEntry, MatchStatus
from arena.rules import side_of

# The bot a player belongs to, and its version in a ladder (None: not a version).
BotOf = Callable[[str], tuple[str, int | None]]


def same_name(player: str) -> tuple[str, int | None]:
    """Every player is a bot of its own name (a tournament's output directory)."""
    return player, None


class Outcome(enum.Enum):
    """A match's result named from one side; the values are the strings sent."""

    WON = "won"  # also when the other side forfeited
    LOST = "lost"
    DRAWN = "drawn"
    FORFEIT = "forfeit"  # lost by its own side's fault (or suspension, or absence)
    NO_CONTEST = "no_contest"  # a seat failed before the first deal: no result
    VOID = "void"  # the referee failed: no result, nobody blamed
    RUNNING = "running"
    PENDING = "pending"  # not played yet


@dataclass(frozen=True)
class SeatFault:
    """A fault of the bot's own, in one of its seats."""

    seat: int
    kind: str
    message: str


@dataclass(frozen=True)
class SideView:
    """One match from one player's side."""

    entry: MatchEntry  # the match as stored: status, termination, reason, log chain
    player: str
    version: int | None
    seats: tuple[int, ...]
    side: int
    partners: tuple[str, ...]  # the other players of its side (Scopone)
    opponents: tuple[str, ...]
    outcome: Outcome
    score: int | None  # its side's, once the match has ended
    opponent_score: int | None
    faults: tuple[SeatFault, ...]


def players_of(names: Iterable[str], bot: str, bot_of: BotOf) -> list[str]:
    """The players among ``names`` that belong to ``bot``, by version, each once."""
    found = {name: bot_of(name)[1] for name in names if bot_of(name)[0] == bot}
    return sorted(found, key=lambda name: (found[name] or 0, name))


def bot_matches(
    entries: Iterable[MatchEntry],
    faults: Iterable[tuple[str, int, str, str]],
    bot: str,
    bot_of: BotOf,
    *,
    version: int | None = None,
    running: Collection[str] = (),
) -> list[SideView]:
    """``bot``'s matches among ``entries`` (in their order), each from the side
    of each of its players in it; only version ``version``'s when given.
    ``faults``: (match id, seat, kind, message) rows, at least those of the
    bot's players; ``running``: ids of the matches being played."""
    by_match: dict[str, list[tuple[int, str, str]]] = {}
    for match_id, seat, kind, message in faults:
        by_match.setdefault(match_id, []).append((seat, kind, message))
    views = []
    for entry in entries:
        for player, side in _sides(entry.seats, bot, bot_of):
            number = bot_of(player)[1]
            if version is not None and number != version:
                continue
            views.append(_view(entry, player, number, side, by_match.get(entry.id, []), running))
    return views


def _sides(seats: tuple[str, ...], bot: str, bot_of: BotOf) -> list[tuple[str, int]]:
    """Each (player, side) of ``bot`` in a match's seats, in seat order."""
    found: list[tuple[str, int]] = []
    for seat, name in enumerate(seats):
        key = (name, side_of(seat))
        if bot_of(name)[0] == bot and key not in found:
            found.append(key)
    return found


def _view(
    entry: MatchEntry,
    player: str,
    version: int | None,
    side: int,
    faults: list[tuple[int, str, str]],
    running: Collection[str],
) -> SideView:
    seats = tuple(s for s, name in enumerate(entry.seats) if name == player and side_of(s) == side)
    partners = _distinct(
        name for s, name in enumerate(entry.seats) if side_of(s) == side and s not in seats
    )
    opponents = _distinct(name for s, name in enumerate(entry.seats) if side_of(s) != side)
    score = opponent_score = None
    if entry.scores is not None:
        score, opponent_score = entry.scores[side], entry.scores[1 - side]
    return SideView(
        entry=entry,
        player=player,
        version=version,
        seats=seats,
        side=side,
        partners=partners,
        opponents=opponents,
        outcome=_outcome(entry, side, entry.id in running),
        score=score,
        opponent_score=opponent_score,
        faults=tuple(SeatFault(s, k, m) for s, k, m in faults if s in seats),
    )


def _outcome(entry: MatchEntry, side: int, running: bool) -> Outcome:
    if entry.status is not MatchStatus.DONE or entry.termination is None:
        return Outcome.RUNNING if running else Outcome.PENDING
    if entry.termination is Termination.NO_CONTEST:
        return Outcome.NO_CONTEST
    if not entry.termination.has_result:
        return Outcome.VOID
    if entry.winner_side == side:
        return Outcome.WON
    if entry.termination is Termination.FORFEIT:
        return Outcome.FORFEIT
    return Outcome.DRAWN if entry.winner_side is None else Outcome.LOST


def _distinct(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))
