"""Matches as text for a terminal: a verified replay deal by deal, play by
play, and a live match's public events (`arena remote watch`), in one notation.

What a viewer sees is the observer's business (arena.rules.observe): the
replay holds every position as the whole table (Sight.ALL), and this module
shows it as the viewer sees it (``View.seen_by``): all hands, one seat's, or
none for a spectator.

Card faces (docs/rules.md, "Card notation"): "short" (7d, Rb: the arena's
own notation, the one of fault messages and the default everywhere),
"french" (7♦, K♣: Denari ♦, Coppe ♥, Spade ♠, Bastoni ♣; Fante J, Cavallo Q,
Re K) or "italian" ("7 di denari", "Re di bastoni").
"""

from __future__ import annotations

import enum
from collections.abc import Callable

from arena.errors import ConfigError
from arena.logs.replay import Replay, ReplayedDeal, Step
from arena.match.outcome import DealBegan, DealScored, MatchEvent, Termination, decision_text
from arena.match.report import deal_table, side_names
from arena.rules import RANK, SUIT, Declaring, Play, Sight, View, Viewer, card_name, cards_of

FRENCH_SUITS = "♦♥♠♣"
FRENCH_RANKS = ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"]
ITALIAN_RANKS = ["Asso", "2", "3", "4", "5", "6", "7", "Fante", "Cavallo", "Re"]
ITALIAN_SUITS = ["denari", "coppe", "spade", "bastoni"]


class Faces(enum.StrEnum):
    """How cards are named (the values are what --faces and the viewer's page say)."""

    SHORT = "short"
    FRENCH = "french"
    ITALIAN = "italian"

    @classmethod
    def parse(cls, text: str) -> Faces:
        try:
            return cls(text)
        except ValueError:
            raise ConfigError(f"faces must be french, italian or short, not {text!r}") from None


def face_namer(faces: Faces | str) -> Callable[[int], str]:
    match Faces.parse(faces):
        case Faces.FRENCH:
            return lambda c: FRENCH_RANKS[RANK[c] - 1] + FRENCH_SUITS[SUIT[c]]
        case Faces.ITALIAN:
            return lambda c: f"{ITALIAN_RANKS[RANK[c] - 1]} di {ITALIAN_SUITS[SUIT[c]]}"
        case Faces.SHORT:
            return card_name


def card_lister(faces: Faces | str) -> Callable[[int], str]:
    """Cards of a mask as text in the given faces ("-" for none)."""
    name = face_namer(faces)
    sep = ", " if Faces.parse(faces) is Faces.ITALIAN else " "
    return lambda mask: sep.join(name(c) for c in cards_of(mask)) or "-"


def render_text(
    replay: Replay,
    *,
    seat: int | None = None,
    faces: Faces | str = Faces.SHORT,
    first_deal: int = 1,
    last_deal: int | None = None,
) -> str:
    """The match as text; ``seat``: only what that seat saw (its own hand)."""
    if seat is not None and not 0 <= seat < replay.variant.seats:
        raise ConfigError(f"seat must be 0..{replay.variant.seats - 1}")
    viewer: Viewer = Sight.ALL if seat is None else seat
    cards = card_lister(faces)
    h = replay.header
    seats = " | ".join(f"seat {i}: {n}" for i, n in enumerate(replay.names))
    seeing = [e for e in h.engines if e.sees_every_hand]
    lines = [
        f"match {h.match_id}: {replay.variant.describe()}",
        seats,
        *(
            f"seat {e.seat} ({e.name}) SEES EVERY HAND: a research bound, not a fair player"
            for e in seeing
        ),
        f"started {h.started_at}, arena {h.arena_version}"
        + (f"; seen from seat {seat} ({replay.names[seat]})" if seat is not None else ""),
        "",
    ]
    sides = side_names(replay.variant, replay.names)
    for deal in replay.deals:
        if deal.number + 1 < first_deal or (last_deal is not None and deal.number + 1 > last_deal):
            continue
        lines += _deal_lines(replay, deal, viewer, cards, sides)
    lines.append(replay.status())
    if replay.result is not None:
        r = replay.result
        no_winner = {Termination.COMPLETED: "a draw", Termination.NO_CONTEST: "no contest"}
        outcome = (
            no_winner.get(r.termination, "no result")
            if r.winner is None
            else f"{sides[r.winner]} wins"
        )
        said = r.termination is Termination.NO_CONTEST  # the outcome says it already
        how = r.reason if said else f"{r.termination.value}: {r.reason}"
        lines.append(f"final score {' - '.join(map(str, r.final_scores))}: {outcome} ({how})")
    return "\n".join(lines)


def _deal_lines(
    replay: Replay,
    deal: ReplayedDeal,
    viewer: Viewer,
    cards: Callable[[int], str],
    sides: list[str],
) -> list[str]:
    names = replay.names
    lines = [f"== deal {deal.number + 1}, dealer seat {deal.dealer} ({names[deal.dealer]})"]
    if deal.void_decks:
        lines.append(f"   ({len(deal.void_decks)} deal(s) voided: three or more Re on the table)")
    dealt = deal.start.seen_by(viewer)
    for s, hand in enumerate(dealt.hands):
        if hand is not None:
            lines.append(f"   seat {s} {names[s]:<14} {cards(hand)}")
    lines.append(f"   table             {cards(dealt.table)}")
    for step in deal.steps:
        lines.append(_step_line(step, names, cards))
        if step.refilled:
            lines.append(_refill_line(step.after.seen_by(viewer), cards))
    if deal.finished is not None:
        done = deal.finished
        if done.leftover:
            side, mask = done.leftover
            lines.append(f"   the table's last cards {cards(mask)} go to {sides[side]}")
        table = deal_table(done, sides, leftover=False, cards=cards, variant=replay.variant)
        lines += ["   " + line for line in table]
        lines.append(f"   running score: {' - '.join(map(str, done.totals))}")
    lines.append("")
    return lines


def _refill_line(after: View, cards: Callable[[int], str]) -> str:
    shown = [(s, h) for s, h in enumerate(after.hands) if h is not None]
    if after.viewer is Sight.ALL:
        return "   -- new hands: " + "; ".join(f"seat {s} {cards(h)}" for s, h in shown)
    return "".join(f"   -- new hand for seat {s}: {cards(h)}" for s, h in shown)


def _step_line(step: Step, names: list[str], cards: Callable[[int], str]) -> str:
    who = f"   {step.index + 1:>2}. seat {step.seat} {names[step.seat]:<14}"
    fault = step.fault
    what = (
        f"{fault.kind.value} at {decision_text(fault.decision)}: {fault.message}" if fault else ""
    )
    if step.move is None:
        return f"{who} FAULT {what}; forfeit"
    card, taken = step.move[0], step.move[1]
    if isinstance(step.move, Declaring):
        who = f"{who} declares {step.move.declaration},"
    text = (
        f"{who} {cards(1 << card)} takes {cards(taken)}"
        if taken
        else f"{who} {cards(1 << card)} is laid"
    )
    if step.scopa:
        text += "   SCOPA!"
    if fault is not None:
        text += f"   substitute after {what}"
    return text + f"   [{step.think_us / 1000:.1f} ms]"


def event_text(event: MatchEvent, faces: Faces | str = Faces.SHORT) -> str:
    """One public event of a live match, as `arena remote watch` prints it."""
    cards = card_lister(faces)
    what, public = event.what, event.view
    table = cards(public.table) if public is not None else "-"
    if isinstance(what, DealBegan):
        return f"== deal {what.deal_number + 1}, dealer seat {what.dealer}; table {table}"
    if isinstance(what, Play):
        taken = f"takes {cards(what.captures)}" if what.captures else "is laid"
        scopa = "   SCOPA!" if what.scopa else ""
        return f"   seat {what.seat}: {cards(1 << what.card)} {taken}{scopa}   table {table}"
    if isinstance(what, DealScored):
        points = " - ".join(map(str, what.score.points))
        return f"   deal scored {points}; match {' - '.join(map(str, what.totals))}"
    return f"final score {' - '.join(map(str, what.final_scores))} ({what.reason})"
