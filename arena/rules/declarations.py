"""Cirulla's declarations ("accusi") and its matta (docs/rules.md, "Cirulla").

A player whose freshly dealt packet of three cards qualifies may declare it
with the first card it plays from that packet, showing the three cards:

- **cirulla** (also "busso"): the three cards' values add up to 9 or less;
  worth 3 points;
- **decino**: three cards of one value; worth 10 points.

A hand that is both (three aces, twos or threes) declares the decino, the
larger. With the **matta** the 7 of Coppe in a hand counts as any value
from 1 to 10 for a declaration, and on the opening table as any value for
the dealer's 15 or 30 (the larger scopa count the table can make).

The declaration is optional: a player who never declares plays legally.
The declarer's side scores its points at once, in a column of their own in
the deal's scoring (``declared``): not scope, so that scope counts sweeps.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from arena.rules.cards import BIT, COPPE, DECK_SIZE, RANK, card, cards_text

if TYPE_CHECKING:
    from arena.rules.deal import Play
    from arena.rules.variants import Variant

CIRULLA = "cirulla"
DECINO = "decino"
DECLARATIONS = (CIRULLA, DECINO)
DECLARATION_POINTS = {CIRULLA: 3, DECINO: 10}
CIRULLA_LIMIT = 9  # a cirulla's three values add up to this at most
PACKET = 3  # a declaration is made on a packet of three cards
MATTA = card(7, COPPE)


class Declared(NamedTuple):
    """A declaration made: who, what, and the packet shown (a mask), before
    the play that went with it (``play``: that play's index in the deal)."""

    seat: int
    kind: str
    hand: int
    play: int


def declaration_of(hand: int, matta: bool = False) -> str | None:
    """The declaration a packet of three cards allows, the larger when it
    allows both; None for any other hand."""
    if hand.bit_count() != PACKET or hand >> DECK_SIZE:
        return None
    cards = [c for c in range(DECK_SIZE) if hand & BIT[c]]
    if matta and hand & BIT[MATTA]:
        a, b = (RANK[c] for c in cards if c != MATTA)
        if a == b:
            return DECINO
        return CIRULLA if a + b + 1 <= CIRULLA_LIMIT else None
    values = [RANK[c] for c in cards]
    if values[0] == values[1] == values[2]:
        return DECINO
    return CIRULLA if sum(values) <= CIRULLA_LIMIT else None


def opening_scope(table: int, matta: bool = False) -> int:
    """The scope an opening table is worth to the dealer (opening_fifteen):
    1 when its values add up to 15, 2 for 30, else 0; with the matta among
    them, it counts as the value that makes 30, else 15, when one does."""
    if matta and table & BIT[MATTA]:
        rest = sum(RANK[c] for c in range(DECK_SIZE) if table & BIT[c] and c != MATTA)
        for total, scope in ((30, 2), (15, 1)):
            if 1 <= total - rest <= 10:
                return scope
        return 0
    total = sum(RANK[c] for c in range(DECK_SIZE) if table & BIT[c])
    return total // 15 if total in (15, 30) else 0


def shown_in_hands(declarations: Sequence[Declared], plays: Sequence[Play]) -> dict[int, int]:
    """Per seat, the shown cards it still holds: each declared packet less
    the cards its seat has played since (every seat's view knows them)."""
    shown: dict[int, int] = {}
    for d in declarations:
        held = d.hand
        for p in plays[d.play :]:
            if p.seat == d.seat:
                held &= ~BIT[p.card]
        if held:
            shown[d.seat] = shown.get(d.seat, 0) | held
    return shown


def undeclarable_reason(move: object, hand: int, variant: Variant) -> str:
    """Why a play that declares is refused when the play itself is legal."""
    said = getattr(move, "declaration", "?")
    if not variant.declarations:
        return f"{move}: this game has no declarations"
    allowed = declaration_of(hand, variant.matta)
    if allowed is None:
        return f"{move}: the hand {cards_text(hand)} allows no declaration"
    if allowed != said:
        return f"{move}: the hand {cards_text(hand)} declares {allowed}, not {said}"
    return f"{move}: the packet was declared already, or a card of it played"
