"""Legal moves: which card is played and exactly which table cards it takes.

The capture rules (docs/rules.md, "A turn"):
- a card whose rank lies on the table must take exactly one such card;
- otherwise it must take one set of two or more table cards summing to its
  rank, if there is one;
- otherwise it is trailed (laid on the table, taking nothing).
A player may always choose which card to play; only the capture is forced.

With the ace-takes-all option (scopa d'assi), an ace played on a table
without an ace takes every card on it; on a table with an ace it takes one
ace, as any card takes its rank; on an empty table it is laid. Without the
option an ace on a table without an ace can only be laid (no set of two or
more cards adds up to 1), so the option turns exactly those trails into the
capture of the whole table.

With scopa a quindici (the ``fifteen`` option) a card takes a set of one or
more table cards that adds up to 15 together with it, and only such a set;
with ``fifteen_ordinary`` too, the ordinary captures above stand beside the
sets of 15 and the player chooses among them all (Cirulla's reading). As in
every game, a card that can take must take.

Generation works on masks. Capture sets come from subset sums memoised per
rank multiset of the table (see ``capture_sets``), because search bots ask
for the same kinds of tables again and again.
"""

from __future__ import annotations

from typing import NamedTuple

from arena.errors import IllegalMoveError
from arena.rules.cards import (
    ACE_MASK,
    BIT,
    KING_MASK,
    RANK,
    RANK_MASK,
    card_name,
    cards_of,
    cards_text,
)


class Move(NamedTuple):
    """A card played and the mask of table cards it takes (0: a trail)."""

    card: int
    captures: int

    def __str__(self) -> str:
        if not self.captures:
            return card_name(self.card)
        return f"{card_name(self.card)}x{'+'.join(card_name(c) for c in cards_of(self.captures))}"


class Declaring(NamedTuple):
    """A move that also declares the mover's packet (Cirulla's declarations,
    arena.rules.declarations): the card, what it takes, the declaration."""

    card: int
    captures: int
    declaration: str

    @property
    def move(self) -> Move:
        return Move(self.card, self.captures)

    def __str__(self) -> str:
        return f"{self.move} declaring {self.declaration}"


# A move as a seat is offered it: declaring only where a declaration is open.
OfferedMove = Move | Declaring


def plain_move(move: OfferedMove) -> Move:
    """The card played and what it takes, any declaration left aside."""
    return move.move if isinstance(move, Declaring) else move


_new_move = tuple.__new__  # Move(c, m) without NamedTuple's Python-level __new__.

# Capture sets depend only on the ranks on the table, not the suits. So the
# subset sums are memoised per rank multiset ("pattern": 3 bits of count per
# rank), of which a game sees a few thousand, and each pattern stores, per
# sum, the rank masks of the selections. A selection that takes every table
# card of each rank it uses is simply ``table & mask``; one that takes some of
# several equal ranks (two 3s on the table, one taken) lists them apart.
# Kings are left out of patterns: a king adds up to 10 only alone, which
# capture_sets adds back, so counting them would only halve the memo's hits.
PATTERN_BY_BITS = tuple(
    sum(1 << (3 * i) for i in range(9) if bits >> i & 1) for bits in range(1024)
)
# CARD_PATTERN[c]: what card c adds to a table's pattern.
CARD_PATTERN = tuple(PATTERN_BY_BITS[1 << (c % 10)] for c in range(40))
Selection = tuple[int, tuple[tuple[int, int], ...]]  # (whole-rank mask, ((rank mask, k), ...))
_PATTERNS: dict[int, tuple[tuple[Selection, ...], ...]] = {}


def _pattern(table: int) -> int:
    p = PATTERN_BY_BITS
    return p[table & 1023] + p[table >> 10 & 1023] + p[table >> 20 & 1023] + p[table >> 30]


def selections_of(pattern: int) -> tuple[tuple[Selection, ...], ...]:
    """Per sum 0..10, every way to pick table cards (by rank and count) adding
    to it; memoised per pattern."""
    found = _PATTERNS.get(pattern)
    if found is None:
        found = _PATTERNS[pattern] = _compute_selections(pattern)
    return found


def _compute_selections(pattern: int, limit: int = 10) -> tuple[tuple[Selection, ...], ...]:
    counts = [(r, pattern >> (3 * (r - 1)) & 7) for r in range(1, 11)]
    counts = [(r, n) for r, n in counts if n]
    by_sum: list[list[Selection]] = [[] for _ in range(limit + 1)]

    def walk(i: int, total: int, whole: int, partial: tuple[tuple[int, int], ...]) -> None:
        if i == len(counts):
            if total and (whole or partial):
                by_sum[total].append((whole, partial))
            return
        r, n = counts[i]
        for k in range(n + 1):
            if total + k * r > limit:
                break
            if k == 0:
                walk(i + 1, total, whole, partial)
            elif k == n:
                walk(i + 1, total + k * r, whole | RANK_MASK[r], partial)
            else:
                walk(i + 1, total + k * r, whole, (*partial, (RANK_MASK[r], k)))

    walk(0, 0, 0, ())
    return tuple(tuple(sels) for sels in by_sum)


# PLANS[pattern][r]: what a card of rank r with no same-rank card on such a
# table does, in one look-up: 0, no set adds up to r, so it is trailed; a
# positive mask, exactly one set does and it takes every table card of the
# ranks in the mask (``table & mask``), the common case; -1, anything else
# (several sets, or some of several equal cards): ask ``capture_sets``.
PLANS: dict[int, tuple[int, ...]] = {}


def plan_of(pattern: int) -> tuple[int, ...]:
    """The per-rank plan of a table pattern (see PLANS); memoised."""
    found = PLANS.get(pattern)
    if found is None:
        sels = _PATTERNS.get(pattern) or selections_of(pattern)
        found = PLANS[pattern] = tuple(_plan_entry(options) for options in sels)
    return found


def _plan_entry(options: tuple[Selection, ...]) -> int:
    """A plan's entry for the selections of one sum (see PLANS)."""
    return 0 if not options else options[0][0] if len(options) == 1 and not options[0][1] else -1


def _choose(cards: int, k: int) -> list[int]:
    """Every k-card sub-mask of a mask."""
    out = [0]
    for c in cards_of(cards):
        out += [m | BIT[c] for m in out if m.bit_count() < k]
    return [m for m in out if m.bit_count() == k]


def _realise(table: int, sel: Selection) -> list[int]:
    whole, partial = sel
    masks = [table & whole]
    for rank_mask, k in partial:
        masks = [m | pick for m in masks for pick in _choose(table & rank_mask, k)]
    return masks


def capture_sets(table: int, total: int) -> list[int]:
    """The masks of every set of table cards adding up to ``total`` (1..10)."""
    key = _pattern(table)
    sels = _PATTERNS.get(key) or selections_of(key)
    # A lone king is the first set adding up to 10, as if patterns held kings.
    out = _choose(table & KING_MASK, 1) if total == 10 else []
    return _masks(table, sels[total], out)


def _masks(table: int, selections: tuple[Selection, ...], out: list[int]) -> list[int]:
    """``out`` extended by the table masks of ``selections``."""
    for sel in selections:
        if sel[1]:
            out += _realise(table, sel)
        else:
            out.append(table & sel[0])
    return out


def fewest_of(masks: list[int]) -> list[int]:
    """The sets with the fewest cards, for the fewest-cards rule."""
    least = min(m.bit_count() for m in masks)
    return [m for m in masks if m.bit_count() == least]


def _ready_moves(c: int) -> dict[int, tuple[Move, ...]]:
    """The moves of card ``c`` that need no search, shared rather than built
    per call: under each set of same-rank table cards, the captures of one of
    them (in increasing card order); under 0, the trail."""
    others = RANK_MASK[RANK[c]] & ~BIT[c]
    ready: dict[int, tuple[Move, ...]] = {0: (_new_move(Move, (c, 0)),)}
    for same in _choose(others, 1) + _choose(others, 2) + _choose(others, 3):
        ready[same] = tuple(_new_move(Move, (c, one)) for one in _choose(same, 1))
    return ready


_READY = tuple(_ready_moves(c) for c in range(40))

# _SUIT_CARDS[s][bits]: the cards of suit s in a 10-bit pattern, each with its
# rank, rank mask and ready moves, so a hand's cards are four table look-ups away.
CardInfo = tuple[int, int, int, dict[int, tuple[Move, ...]]]
_SUIT_CARDS: tuple[tuple[tuple[CardInfo, ...], ...], ...] = tuple(
    tuple(
        tuple(
            (s * 10 + i, RANK[s * 10 + i], RANK_MASK[RANK[s * 10 + i]], _READY[s * 10 + i])
            for i in range(10)
            if bits >> i & 1
        )
        for bits in range(1024)
    )
    for s in range(4)
)


# HANDS[hand]: the cards of a hand of at most three cards, as _SUIT_CARDS
# gives them; Scopa hands never hold more, so one look-up splits them.
HANDS: dict[int, tuple[CardInfo, ...]] = {}


def hand_cards(hand: int) -> tuple[CardInfo, ...]:
    """The cards of a hand (mask) in increasing order, as _SUIT_CARDS gives
    them. Callers look in HANDS first; hands of up to three cards are
    remembered there (at most 10,701 of them)."""
    d, c, s, b = _SUIT_CARDS
    found = d[hand & 1023] + c[hand >> 10 & 1023] + s[hand >> 20 & 1023] + b[hand >> 30]
    if len(found) <= 3:
        HANDS[hand] = found
    return found


_hands_get, _plans_get = HANDS.get, PLANS.get  # bound once: legal_moves is hot


def legal_moves(
    hand: int,
    table: int,
    fewest_cards: bool = False,
    ace_takes_all: bool = False,
    fifteen: bool = False,
    fifteen_ordinary: bool = False,
) -> list[Move]:
    """Every legal move for a hand and a table (both masks), in a fixed order:
    by played card, then by captured mask as generated.

    A card takes one card of its own rank when the table has one, else any
    set of cards adding up to its rank, else it is laid:

    >>> from arena.rules.cards import mask_of, parse_cards
    >>> def moves(hand, table):
    ...     hand, table = mask_of(parse_cards(hand)), mask_of(parse_cards(table))
    ...     return [str(m) for m in legal_moves(hand, table)]
    >>> moves("7d", "7s 3c 4b")  # the 7 of spade, never 3 + 4
    ['7dx7s']
    >>> moves("7d", "3c 4b 5s 2d")  # either sum of 7
    ['7dx3c+4b', '7dx2d+5s']
    >>> moves("7d Ac", "5s")  # nothing to take: both are laid
    ['7d', 'Ac']
    """
    if fifteen:
        return fifteen_moves(hand, table, fifteen_ordinary, ace_takes_all, fewest_cards)
    if ace_takes_all and table and hand & ACE_MASK and not table & ACE_MASK:
        return [
            _new_move(Move, (m[0], table)) if m[0] % 10 == 0 else m
            for m in legal_moves(hand, table, fewest_cards)
        ]
    moves: list[Move] = []
    plan = None
    for c, r, rank_mask, ready in _hands_get(hand) or hand_cards(hand):
        same = table & rank_mask
        if same:
            moves += ready[same]
            continue
        if plan is None:
            p = PATTERN_BY_BITS
            key = p[table & 1023] + p[table >> 10 & 1023] + p[table >> 20 & 1023] + p[table >> 30]
            plan = _plans_get(key) or plan_of(key)
        how = plan[r]
        if not how:
            moves += ready[0]
        elif how > 0:
            moves.append(_new_move(Move, (c, table & how)))
        else:
            sets = capture_sets(table, r)
            moves += [_new_move(Move, (c, m)) for m in (fewest_of(sets) if fewest_cards else sets)]
    return moves


def ace_took_all(card: int, taken: int) -> bool:
    """Whether a play was the ace-takes-all rule's capture: an ace that took
    cards and no ace (an ace that takes an ace captures the ordinary way).
    Meaningful only where the option is on."""
    return card % 10 == 0 and taken != 0 and not taken & ACE_MASK


# Scopa a quindici ----------------------------------------------------------------
# Sets adding up to 15 with the played card add up to 5..14 on the table, so
# kings count (king and 4 make 14): these patterns hold them, in their own memo.
_FULL_PATTERN_BY_BITS = tuple(
    sum(1 << (3 * i) for i in range(10) if bits >> i & 1) for bits in range(1024)
)
_FIFTEEN_PATTERNS: dict[int, tuple[tuple[Selection, ...], ...]] = {}
# _FIFTEEN_PLANS[pattern][r]: as PLANS, for a card of rank r and the sets
# adding up to 15 - r: 0 none, a positive mask one set of whole ranks, -1 others.
_FIFTEEN_PLANS: dict[int, tuple[int, ...]] = {}


def _fifteen_selections(pattern: int) -> tuple[tuple[Selection, ...], ...]:
    found = _FIFTEEN_PATTERNS.get(pattern)
    if found is None:
        found = _FIFTEEN_PATTERNS[pattern] = _compute_selections(pattern, 14)
    return found


def _fifteen_plan(pattern: int) -> tuple[int, ...]:
    sels = _fifteen_selections(pattern)
    # Index 0 unused, as ranks run 1..10.
    found = _FIFTEEN_PLANS[pattern] = (0, *(_plan_entry(sels[15 - r]) for r in range(1, 11)))
    return found


def _full_pattern(table: int) -> int:
    p = _FULL_PATTERN_BY_BITS
    return p[table & 1023] + p[table >> 10 & 1023] + p[table >> 20 & 1023] + p[table >> 30]


def fifteen_sets(table: int, total: int) -> list[int]:
    """The masks of every set of one or more table cards adding up to ``total``
    (5..14: 15 less the played card)."""
    return _masks(table, _fifteen_selections(_full_pattern(table))[total], [])


_fifteen_plans_get = _FIFTEEN_PLANS.get


def fifteen_moves(
    hand: int,
    table: int,
    ordinary: bool = False,
    ace_takes_all: bool = False,
    fewest_cards: bool = False,
) -> list[Move]:
    """Every legal move of scopa a quindici (``ordinary``: with the ordinary
    captures too, their sums with the fewest cards only if ``fewest_cards``), in
    legal_moves' order: by card, the ordinary captures first."""
    cards = _hands_get(hand) or hand_cards(hand)
    if not table:
        return [m for info in cards for m in info[3][0]]
    moves: list[Move] = []
    ace_all = ace_takes_all and not table & ACE_MASK
    key = _full_pattern(table)
    plan = _fifteen_plans_get(key) or _fifteen_plan(key)
    taken = False
    for c, r, rank_mask, ready in cards:
        if ace_all and r == 1:
            moves.append(_new_move(Move, (c, table)))
            continue
        if ordinary:
            n = len(moves)
            same = table & rank_mask
            if same:
                moves += ready[same]
            else:
                sets = capture_sets(table, r)
                if fewest_cards and sets:
                    sets = fewest_of(sets)
                moves += [_new_move(Move, (c, m)) for m in sets]
            taken = len(moves) > n
        how = plan[r]
        if how > 0:
            moves.append(_new_move(Move, (c, table & how)))
        elif how:
            moves += [_new_move(Move, (c, m)) for m in fifteen_sets(table, 15 - r)]
        elif not taken:
            moves += ready[0]
        taken = False
    return moves


def _check_fifteen(
    table: int, move: Move, ordinary: bool, ace_takes_all: bool, fewest: bool, seat: int | None
) -> None:
    c, taken = move
    legal = [m[1] for m in fifteen_moves(BIT[c], table, ordinary, ace_takes_all, fewest)]
    if taken in legal:
        return
    if ace_takes_all and RANK[c] == 1 and table and not table & ACE_MASK:
        raise IllegalMoveError(
            f"ace-takes-all rule: {card_name(c)} takes the whole table "
            f"({cards_text(table)}), not {cards_text(taken) if taken else 'nothing'}",
            seat=seat,
            move=move,
        )
    if not taken:
        raise IllegalMoveError(
            f"{card_name(c)} can capture ({cards_text(legal[0])}), so it cannot be laid",
            seat=seat,
            move=move,
        )
    if fewest and ordinary and sum(RANK[x] for x in cards_of(taken)) == RANK[c]:
        sets = fewest_of(capture_sets(table, RANK[c]))
        raise IllegalMoveError(
            f"fewest-cards rule: {card_name(c)} must take a set of "
            f"{sets[0].bit_count()} cards, or make 15",
            seat=seat,
            move=move,
        )
    total = RANK[c] + sum(RANK[x] for x in cards_of(taken))
    also = ", nor an ordinary capture" if ordinary else ""
    raise IllegalMoveError(
        f"scopa a quindici: {card_name(c)} and {cards_text(taken)} add up to {total}, not 15{also}",
        seat=seat,
        move=move,
    )


def check_move(
    hand: int,
    table: int,
    move: Move,
    fewest_cards: bool = False,
    seat: int | None = None,
    ace_takes_all: bool = False,
    fifteen: bool = False,
    fifteen_ordinary: bool = False,
) -> None:
    """Raise IllegalMoveError, saying exactly why, unless ``move`` is legal."""
    c, taken = move
    if not isinstance(c, int) or not 0 <= c < 40:
        raise IllegalMoveError(f"{c!r} is not a card", seat=seat, move=move)
    if not hand & BIT[c]:
        raise IllegalMoveError(f"{card_name(c)} is not in the hand", seat=seat, move=move)
    if taken & ~table:
        raise IllegalMoveError(
            f"{cards_text(taken & ~table)} not on the table ({cards_text(table)})",
            seat=seat,
            move=move,
        )
    if fifteen:
        return _check_fifteen(table, move, fifteen_ordinary, ace_takes_all, fewest_cards, seat)
    r = RANK[c]
    same = table & RANK_MASK[r]
    if ace_takes_all and r == 1 and table and not same:
        if taken != table:
            raise IllegalMoveError(
                f"ace-takes-all rule: {card_name(c)} takes the whole table "
                f"({cards_text(table)}), not {cards_text(taken) if taken else 'nothing'}",
                seat=seat,
                move=move,
            )
        return
    if same:
        if not taken:
            raise IllegalMoveError(
                f"{card_name(c)} can capture ({cards_text(same)}), so it cannot be laid",
                seat=seat,
                move=move,
            )
        if taken.bit_count() != 1 or not taken & same:
            raise IllegalMoveError(
                f"{card_name(c)} must take exactly one card of its rank "
                f"({cards_text(same)}), not {cards_text(taken)}",
                seat=seat,
                move=move,
            )
        return
    sets = capture_sets(table, r)
    if not taken:
        if sets:
            raise IllegalMoveError(
                f"{card_name(c)} can capture ({cards_text(sets[0])}), so it cannot be laid",
                seat=seat,
                move=move,
            )
        return
    if taken not in sets:
        total = sum(RANK[x] for x in cards_of(taken))
        raise IllegalMoveError(
            f"{cards_text(taken)} add up to {total}, not {r}", seat=seat, move=move
        )
    if fewest_cards and taken not in fewest_of(sets):
        raise IllegalMoveError(
            f"fewest-cards rule: {card_name(c)} must take a set of "
            f"{min(m.bit_count() for m in sets)} cards",
            seat=seat,
            move=move,
        )
