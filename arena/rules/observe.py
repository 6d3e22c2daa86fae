"""What one seat may know, and nothing else (docs/rules.md, last section).

A seat knows its own hand, the table, every play of the deal (plays are face
up), each side's sweeps and captured cards, who captured last, the deal's
opening table, the match score, the size of the stock and of every hand, and
who deals. It never sees another
hand (a partner's included), the stock's order, or the seed.

One observer serves every viewer, in OpenSpiel's manner: ``view(state,
viewer)`` for a seat, for spectators (``Sight.PUBLIC``: no hand) or for the
referee and replays (``Sight.ALL``); ``observe(state, seat)`` is a seat's view
in the shape a bot is sent. Both are built only from the public values plus
the hands ``can_see`` allows, so a view is identical for every arrangement of
the cards its viewer cannot see: the information tests in tests/ check that.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from arena.errors import RulesError
from arena.rules.deal import Deal, Play
from arena.rules.declarations import Declared
from arena.rules.match import Match
from arena.rules.moves import Move
from arena.rules.variants import Variant


class Sight(enum.Enum):
    """Viewers that are not a seat. A seat (an int) sees its own hand only."""

    PUBLIC = "public"  # a spectator: no hand at all
    ALL = "all"  # the referee, or a replay of a finished match: every hand


Viewer = int | Sight


def can_see(viewer: Viewer, seat: int) -> bool:
    """Whether ``viewer`` may see the hand of ``seat``: the one rule of hidden information."""
    return viewer is Sight.ALL or viewer == seat


@dataclass(frozen=True)
class Public:
    """What every seat, and a spectator, may know at one point of a deal. Card sets are masks."""

    variant: Variant
    deal_number: int
    dealer: int
    to_move: int | None
    table: int
    hand_sizes: tuple[int, ...]
    stock_count: int
    plays: tuple[Play, ...]
    captured_counts: tuple[int, ...]
    scope: tuple[int, ...]
    scores: tuple[int, ...]  # match scores before this deal
    # What a player remembers of the deal, sent so that no bot has to rebuild it:
    captured_cards: tuple[int, ...]  # per side, a mask (leftovers included once given)
    last_capture_seat: int | None  # the seat (not the side) that captured last, None before
    opening_table: int  # the table as dealt, before the first play
    # Cirulla's declarations made this deal, each with the packet it showed
    # (declarations option; arena.rules.declarations): public, as shown.
    declarations: tuple[Declared, ...] = field(default=(), kw_only=True)


@dataclass(frozen=True)
class Observation(Public):
    """A seat's view of a match in progress, as a bot is sent it: the public
    values and its own hand."""

    seat: int
    hand: int


@dataclass(frozen=True)
class View(Public):
    """What one viewer may know at one point of a deal (OpenSpiel's observer):
    the public values, and the hands it may see (None for a hidden hand)."""

    viewer: Viewer
    hands: tuple[int | None, ...]

    def seen_by(self, viewer: Viewer) -> View:
        """The same moment as ``viewer`` sees it; a view can only hide more."""
        hands = []
        for seat, hand in enumerate(self.hands):
            if not can_see(viewer, seat):
                hand = None
            elif hand is None:
                raise RulesError(f"a view of {self.viewer} cannot show seat {seat}'s hand")
            hands.append(hand)
        return replace(self, viewer=viewer, hands=tuple(hands))

    def observation(self) -> Observation:
        """A seat's view in the shape a bot receives."""
        seat, hand = self.viewer, None
        if isinstance(seat, int):
            hand = self.hands[seat]
        if not isinstance(seat, int) or hand is None:
            raise RulesError(f"a view of {self.viewer} is not one seat's observation")
        public = {f.name: getattr(self, f.name) for f in fields(Public)}
        return Observation(seat=seat, hand=hand, **public)


def _last_capture_seat(deal: Deal) -> int | None:
    """The seat of the deal's last capture, looking back from the latest play
    (captures are frequent, so the look is short); the dealer's, when the
    dealer took the opening table (opening_fifteen) and nobody has since."""
    for p in reversed(deal.plays):
        if p.captures:
            return p.seat
    return deal.dealer if deal.opening_scope else None


def _public(state: Match | Deal) -> tuple[Deal, dict[str, Any]]:
    """The deal in progress and every value of it that all seats may know."""
    if isinstance(state, Match):
        if state.deal is None:
            raise RulesError("no deal in progress to observe")
        deal, scores, number = state.deal, tuple(state.scores), state.deal_number
    else:
        deal, scores, number = state, (0, 0), 0
    return deal, {
        "variant": deal.variant,
        "deal_number": number,
        "dealer": deal.dealer,
        "to_move": deal.to_move,
        "table": deal.table,
        "hand_sizes": tuple(h.bit_count() for h in deal.hands),
        "stock_count": deal.stock_count,
        "plays": tuple(deal.plays),
        "captured_counts": tuple(p.bit_count() for p in deal.piles),
        "scope": tuple(deal.scope),
        "scores": scores,
        "captured_cards": tuple(deal.piles),
        "last_capture_seat": _last_capture_seat(deal),
        "opening_table": deal.opening_table,
        "declarations": tuple(deal.declarations),
    }


def view(state: Match | Deal, viewer: Viewer = Sight.ALL) -> View:
    """What ``viewer`` may know of a match (its current deal) or a lone deal."""
    deal, public = _public(state)
    if isinstance(viewer, int) and not 0 <= viewer < deal.variant.seats:
        raise RulesError(f"no seat {viewer} in {deal.variant.game.value}")
    hands = tuple(h if can_see(viewer, s) else None for s, h in enumerate(deal.hands))
    return View(viewer=viewer, hands=hands, **public)


def observe(state: Match | Deal, seat: int) -> Observation:
    """The observation of ``seat``: its own hand and the public values, nothing else."""
    deal, public = _public(state)
    if not 0 <= seat < deal.variant.seats:
        raise RulesError(f"no seat {seat} in {deal.variant.game.value}")
    return Observation(seat=seat, hand=deal.hands[seat], **public)


Strategy = Callable[[Observation, list[Move]], tuple[int, int]]


def play_match(match: Match, strategies: Sequence[Strategy]) -> Match:
    """Play a match to the end in-process, one strategy per seat.

    Each strategy sees only its seat's observation and the legal moves, like
    a bot over the wire, and every answer is checked (IllegalMoveError).
    Where a declaration is open (Cirulla), it is made with the move chosen,
    as the built-in players make it in refereed matches.
    """
    if len(strategies) != match.variant.seats:
        raise RulesError(f"{match.variant.game.value} needs {match.variant.seats} strategies")
    while not match.is_over:
        deal = match.start_deal()
        while deal.to_move is not None:
            seat = deal.to_move
            move = strategies[seat](observe(match, seat), deal.legal_moves())
            deal.play(move, deal.declarable())
        match.end_deal()
    return match
