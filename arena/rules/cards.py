"""The 40-card Italian deck as small integers.

A card is an int 0..39: ``suit * 10 + rank - 1``. A set of cards is a 40-bit
int mask (bit ``c`` set when card ``c`` is in the set). Ints hash and compare
in tens of nanoseconds, which is what a search bot's playouts need; names are
only for people (``card_name``/``parse_card``).

The three facts a bot in any language needs, as the arena computes them:

>>> from arena.rules.cards import BIT, SETTEBELLO, card, card_name, cards_of, mask_of, parse_card
>>> card(7, 0), card_name(SETTEBELLO)  # card = 10 * suit + rank - 1; denari is suit 0
(6, '7d')
>>> [parse_card(t) for t in ("Ad", "7d", "Rb")]  # A 2..7 F C R; suits d c s b
[0, 6, 39]
>>> hand = mask_of([0, 6, 39])  # a hand, a table, a capture: 40-bit masks
>>> hand == BIT[0] | BIT[6] | BIT[39], cards_of(hand)
(True, [0, 6, 39])
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.errors import RulesError

DENARI, COPPE, SPADE, BASTONI = range(4)
SUIT_NAMES = ("denari", "coppe", "spade", "bastoni")
SUIT_LETTERS = "dcsb"
# Asso, 2..7, Fante, Cavallo, Re: one letter each so a card is two characters.
RANK_LETTERS = "A234567FCR"

DECK_SIZE = 40
FULL_DECK = (1 << DECK_SIZE) - 1


def card(rank: int, suit: int) -> int:
    """The card of ``rank`` (1..10) and ``suit`` (DENARI..BASTONI)."""
    if not 1 <= rank <= 10 or not 0 <= suit <= 3:
        raise RulesError(f"no card of rank {rank} and suit {suit}")
    return suit * 10 + rank - 1


RANK: tuple[int, ...] = tuple(c % 10 + 1 for c in range(DECK_SIZE))
SUIT: tuple[int, ...] = tuple(c // 10 for c in range(DECK_SIZE))
BIT: tuple[int, ...] = tuple(1 << c for c in range(DECK_SIZE))
# RANK_MASK[r]: the four cards of rank r (index 0 unused).
RANK_MASK: tuple[int, ...] = (
    0,
    *(sum(1 << (s * 10 + r - 1) for s in range(4)) for r in range(1, 11)),
)
SUIT_MASK: tuple[int, ...] = tuple(((1 << 10) - 1) << (10 * s) for s in range(4))
DENARI_MASK = SUIT_MASK[DENARI]
SETTEBELLO = 6  # card(7, DENARI)
KING_MASK = RANK_MASK[10]
ACE_MASK = RANK_MASK[1]

# Primiera value by rank: 7=21, 6=18, Asso=16, 5=15, 4=14, 3=13, 2=12, figures 10.
PRIMIERA_BY_RANK = (0, 16, 12, 13, 14, 15, 18, 21, 10, 10, 10)
PRIMIERA: tuple[int, ...] = tuple(PRIMIERA_BY_RANK[RANK[c]] for c in range(DECK_SIZE))


def cards_of(mask: int) -> list[int]:
    """The cards of a mask, in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(cards: Iterable[int]) -> int:
    """The mask of a collection of cards; repeated cards are an error."""
    mask = 0
    for c in cards:
        if not 0 <= c < DECK_SIZE:
            raise RulesError(f"{c!r} is not a card (0..39)")
        if mask & BIT[c]:
            raise RulesError(f"card {card_name(c)} appears twice")
        mask |= BIT[c]
    return mask


def card_name(c: int) -> str:
    """Two characters: rank letter (A 2..7 F C R) and suit letter (d c s b)."""
    return RANK_LETTERS[c % 10] + SUIT_LETTERS[c // 10]


def cards_text(mask_or_cards: int | Iterable[int]) -> str:
    cards = cards_of(mask_or_cards) if isinstance(mask_or_cards, int) else mask_or_cards
    return " ".join(card_name(c) for c in cards) or "-"


def parse_card(text: str) -> int:
    """Parse ``7d``, ``Rb``, ``10b`` or ``1c``: rank letter or number, then suit letter."""
    t = text.strip()
    if len(t) < 2:
        raise RulesError(f"cannot read card {text!r}: expected rank then suit, like 7d")
    rank_part, suit_part = t[:-1], t[-1].lower()
    if suit_part not in SUIT_LETTERS:
        raise RulesError(f"cannot read card {text!r}: suit must be one of d c s b")
    if rank_part.upper() in RANK_LETTERS and len(rank_part) == 1 and not rank_part.isdigit():
        rank = RANK_LETTERS.index(rank_part.upper()) + 1
    elif rank_part.isdigit() and 1 <= int(rank_part) <= 10:
        rank = int(rank_part)
    else:
        raise RulesError(f"cannot read card {text!r}: rank must be A 2..7 F C R or 1..10")
    return card(rank, SUIT_LETTERS.index(suit_part))


def parse_cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.replace(",", " ").split()]
