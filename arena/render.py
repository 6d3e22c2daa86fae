"""A verified replay as text for a terminal: deal by deal, play by play.

Card faces: "french" (7♦, K♣: Denari ♦, Coppe ♥, Spade ♠, Bastoni ♣; Fante
J, Cavallo Q, Re K), "italian" ("7 di denari", "Re di bastoni") or "short"
(7d, Rb: the arena's own notation).
"""

from __future__ import annotations

from collections.abc import Callable

from arena.errors import ConfigError
from arena.replay import Replay, ReplayedDeal, Step
from arena.report import deal_table, side_names
from arena.rules import card_name, cards_of

FRENCH_SUITS = "♦♥♠♣"
FRENCH_RANKS = ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"]
ITALIAN_RANKS = ["Asso", "2", "3", "4", "5", "6", "7", "Fante", "Cavallo", "Re"]
ITALIAN_SUITS = ["denari", "coppe", "spade", "bastoni"]


def face_namer(faces: str) -> Callable[[int], str]:
    if faces == "french":
        return lambda c: FRENCH_RANKS[c % 10] + FRENCH_SUITS[c // 10]
    if faces == "italian":
        return lambda c: f"{ITALIAN_RANKS[c % 10]} di {ITALIAN_SUITS[c // 10]}"
    if faces == "short":
        return card_name
    raise ConfigError(f"faces must be french, italian or short, not {faces!r}")


def render_text(
    replay: Replay,
    *,
    seat: int | None = None,
    faces: str = "french",
    first_deal: int = 1,
    last_deal: int | None = None,
) -> str:
    """The match as text; ``seat``: only what that seat saw (its own hand)."""
    if seat is not None and not 0 <= seat < replay.variant.seats:
        raise ConfigError(f"seat must be 0..{replay.variant.seats - 1}")
    name = face_namer(faces)
    sep = ", " if faces == "italian" else " "

    def cards(mask: int) -> str:
        return sep.join(name(c) for c in cards_of(mask)) or "-"

    h = replay.header
    seats = " | ".join(f"seat {i}: {n}" for i, n in enumerate(replay.names))
    lines = [
        f"match {h.match_id}: {replay.variant.describe()}",
        seats,
        f"started {h.started_at}, arena {h.arena_version}"
        + (f"; seen from seat {seat} ({replay.names[seat]})" if seat is not None else ""),
        "",
    ]
    sides = side_names(replay.variant, replay.names)
    for deal in replay.deals:
        if deal.number + 1 < first_deal or (last_deal is not None and deal.number + 1 > last_deal):
            continue
        lines += _deal_lines(replay, deal, seat, cards, sides)
    lines.append(replay.status())
    if replay.result is not None:
        r = replay.result
        outcome = "a draw" if r.winner is None else f"{sides[r.winner]} wins"
        lines.append(
            f"final score {' - '.join(map(str, r.final_scores))}: {outcome}"
            f" ({r.termination.value}: {r.reason})"
        )
    return "\n".join(lines)


def _deal_lines(
    replay: Replay,
    deal: ReplayedDeal,
    seat: int | None,
    cards: Callable[[int], str],
    sides: list[str],
) -> list[str]:
    names = replay.names
    lines = [f"== deal {deal.number + 1}, dealer seat {deal.dealer} ({names[deal.dealer]})"]
    if deal.void_decks:
        lines.append(f"   ({len(deal.void_decks)} deal(s) voided: three or more Re on the table)")
    for s, hand in enumerate(deal.hands):
        if seat is None or s == seat:
            lines.append(f"   seat {s} {names[s]:<14} {cards(hand)}")
    lines.append(f"   table             {cards(deal.table)}")
    for step in deal.steps:
        lines.append(_step_line(step, names, cards))
        if step.refilled:
            if seat is None:
                lines.append(
                    "   -- new hands: "
                    + "; ".join(
                        f"seat {s} {cards(h)}" for s, h in enumerate(_hands_after(deal, step))
                    )
                )
            else:
                lines.append(
                    f"   -- new hand for seat {seat}: {cards(_hands_after(deal, step)[seat])}"
                )
    if deal.finished is not None:
        done = deal.finished
        if done.leftover:
            side, mask = done.leftover
            lines.append(f"   the table's last cards {cards(mask)} go to {sides[side]}")
        lines += ["   " + line for line in deal_table(done, sides, leftover=False)]
        lines.append(f"   running score: {' - '.join(map(str, done.totals))}")
    lines.append("")
    return lines


def _hands_after(deal: ReplayedDeal, step: Step) -> list[int]:
    later = [s for s in deal.steps if s.index == step.index + 1]
    return later[0].hands if later else [0] * len(step.hands)


def _step_line(step: Step, names: list[str], cards: Callable[[int], str]) -> str:
    who = f"   {step.index + 1:>2}. seat {step.seat} {names[step.seat]:<14}"
    if step.move is None:
        assert step.fault is not None
        return f"{who} FAULT ({step.fault.kind.value}): {step.fault.message}: forfeit"
    card, taken = step.move
    text = (
        f"{who} {cards(1 << card)} takes {cards(taken)}"
        if taken
        else f"{who} {cards(1 << card)} is laid"
    )
    if step.scopa:
        text += "   SCOPA!"
    if step.fault is not None:
        text += f"   (substitute after {step.fault.kind.value}: {step.fault.message})"
    return text + f"   [{step.think_us / 1000:.1f} ms]"
