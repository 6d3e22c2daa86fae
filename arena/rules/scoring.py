"""Scoring a deal: scope, carte, denari, settebello, primiera, and the
optional re bello, napola and Cirulla's piccola and grande (docs/rules.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.rules.cards import DENARI_MASK, PRIMIERA, SETTEBELLO

RE_BELLO = 9  # card(10, DENARI): the king of Denari


def _napola_of(bits: int) -> int:
    """Napola for a pile's Denari (10-bit pattern, bit i the card of rank i + 1):
    ace, 2 and 3 score 3, and each further card in unbroken sequence one more."""
    if bits & 0b111 != 0b111:
        return 0
    length = 3
    while length < 10 and bits >> length & 1:
        length += 1
    return length


_NAPOLA = tuple(_napola_of(bits) for bits in range(1024))
_PICCOLA = tuple(min(n, 5) for n in _NAPOLA)


def _grande_of(bits: int) -> int:
    """Cirulla's grande for a pile's Denari (as _napola_of): Fante, Cavallo and
    Re score 5, and the 7, then the 6, one more each in unbroken sequence."""
    if bits >> 7 != 0b111:
        return 0
    if not bits >> 6 & 1:
        return 5
    return 7 if bits >> 5 & 1 else 6


_GRANDE = tuple(_grande_of(bits) for bits in range(1024))


def napola(pile: int) -> int:
    """The napola a pile (mask) scores: 0 without ace, 2 and 3 of Denari."""
    return _NAPOLA[pile & 1023]


# _BEST[suit][bits]: best primiera value among the suit's cards in a 10-bit pattern.
_BEST: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        max((PRIMIERA[s * 10 + i] for i in range(10) if bits >> i & 1), default=0)
        for bits in range(1024)
    )
    for s in range(4)
)
_BEST_D, _BEST_C, _BEST_S, _BEST_B = _BEST


def primiera(pile: int) -> int | None:
    """The primiera total of a pile (mask), or None when a suit is missing."""
    d = _BEST_D[pile & 1023]
    c = _BEST_C[pile >> 10 & 1023]
    s = _BEST_S[pile >> 20 & 1023]
    b = _BEST_B[pile >> 30 & 1023]
    if d and c and s and b:
        return d + c + s + b
    return None


def deal_points(
    piles: Sequence[int],
    scope: Sequence[int],
    re_bello: bool = False,
    napola: bool = False,
    piccola: bool = False,
    grande: bool = False,
    declared: Sequence[int] | None = None,
) -> list[int]:
    """The points of each side, without the breakdown: the fast path for
    playouts. Always equal to ``score_deal(...).points`` with the same
    arguments."""
    if len(piles) != 2:
        return _deal_points_of_many(piles, scope, re_bello, napola, piccola, grande, declared)
    p0, p1 = piles
    points = [scope[0], scope[1]]
    a, b = p0.bit_count(), p1.bit_count()
    if a != b:
        points[a < b] += 1
    a, b = (p0 & DENARI_MASK).bit_count(), (p1 & DENARI_MASK).bit_count()
    if a != b:
        points[a < b] += 1
    if p0 >> SETTEBELLO & 1:
        points[0] += 1
    elif p1 >> SETTEBELLO & 1:
        points[1] += 1
    q0, q1 = primiera(p0), primiera(p1)
    if q0 != q1:
        points[q0 is None or (q1 is not None and q0 < q1)] += 1
    if re_bello:
        if p0 >> RE_BELLO & 1:
            points[0] += 1
        elif p1 >> RE_BELLO & 1:
            points[1] += 1
    if napola or piccola:
        sequence = _NAPOLA if napola else _PICCOLA
        points[0] += sequence[p0 & 1023]
        points[1] += sequence[p1 & 1023]
    if grande:
        points[0] += _GRANDE[p0 & 1023]
        points[1] += _GRANDE[p1 & 1023]
    if declared:
        points[0] += declared[0]
        points[1] += declared[1]
    return points


def _deal_points_of_many(
    piles: Sequence[int],
    scope: Sequence[int],
    re_bello: bool,
    napola: bool,
    piccola: bool,
    grande: bool,
    declared: Sequence[int] | None,
) -> list[int]:
    """``deal_points`` with three sides (Scopa a tre): each point to the one
    side strictly ahead of the others."""
    points = list(scope)
    for values in (
        [p.bit_count() for p in piles],
        [(p & DENARI_MASK).bit_count() for p in piles],
        [primiera(p) for p in piles],
    ):
        winner = _strict_winner(values)
        if winner is not None:
            points[winner] += 1
    sequence = _NAPOLA if napola else _PICCOLA if piccola else None
    for s, pile in enumerate(piles):
        if pile >> SETTEBELLO & 1:
            points[s] += 1
        if re_bello and pile >> RE_BELLO & 1:
            points[s] += 1
        if sequence:
            points[s] += sequence[pile & 1023]
        if grande:
            points[s] += _GRANDE[pile & 1023]
        if declared:
            points[s] += declared[s]
    return points


def margin(points: Sequence[int], side: int) -> int:
    """``side``'s lead in a deal: its points less the best of the other sides'
    (with two sides, less the other's). What the search engines maximise."""
    if len(points) == 2:
        return points[side] - points[1 - side]
    return points[side] - max(p for s, p in enumerate(points) if s != side)


@dataclass(frozen=True)
class SideTally:
    """What one side collected in a deal."""

    scope: int
    cards: int
    denari: int
    settebello: bool
    primiera: int | None  # None: a suit is missing, so no primiera
    re_bello: bool = False  # holds the king of Denari (counted with the re bello option only)
    napola: int = 0  # its napola's points (with the napola or piccola option only)
    grande: int = 0  # its grande's points (with the grande option only)
    declared: int = 0  # its declarations' points (Cirulla's cirulla and decino)


@dataclass(frozen=True)
class DealScore:
    """The scoring of one deal. The award fields name the winning side, or None
    when nobody wins the point (a tie, or nobody qualifies)."""

    tallies: tuple[SideTally, ...]
    carte: int | None
    denari: int | None
    settebello: int | None
    primiera: int | None
    re_bello: int | None = None

    def breakdown(self, side: int) -> dict[str, int]:
        """Points of one side by category, in the order a scorer calls them."""
        return {
            "scope": self.tallies[side].scope,
            "carte": int(self.carte == side),
            "denari": int(self.denari == side),
            "settebello": int(self.settebello == side),
            "primiera": int(self.primiera == side),
            "re_bello": int(self.re_bello == side),
            "napola": self.tallies[side].napola,
            "grande": self.tallies[side].grande,
            "declared": self.tallies[side].declared,
        }

    @property
    def points(self) -> tuple[int, ...]:
        return tuple(sum(self.breakdown(s).values()) for s in range(len(self.tallies)))


def _strict_winner(values: Sequence[int | None]) -> int | None:
    """The side with a value strictly above every other side's, if any.
    None values (not qualified) never win."""
    if len(values) == 2:  # always, in the four games: spare the generic scan
        a, b = values
        if a == b:
            return None
        if a is None or b is None:
            return 0 if b is None else 1
        return 0 if a > b else 1
    best = max((v for v in values if v is not None), default=None)
    if best is None:
        return None
    leaders = [i for i, v in enumerate(values) if v == best]
    return leaders[0] if len(leaders) == 1 else None


def score_deal(
    piles: Sequence[int],
    scope: Sequence[int],
    re_bello: bool = False,
    napola: bool = False,
    piccola: bool = False,
    grande: bool = False,
    declared: Sequence[int] | None = None,
) -> DealScore:
    """Score a finished deal from each side's captured pile (mask) and scope count.

    Carte and denari go to the side with more (with two sides and 40 cards,
    more than 20 cards / more than 5 denari when every card was captured;
    with three, the unique most); a tie for the most scores nothing.
    Primiera goes to the strictly higher total; a side missing a suit has
    none and cannot win it. With ``re_bello`` the king of Denari is a point
    like the settebello; with ``napola`` a side's napola scores its length
    (``napola``), with ``piccola`` up to 5; with ``grande`` Cirulla's big
    sequence scores. Off, none is counted in the tallies.
    ``declared``: each side's points from Cirulla's declarations.
    """
    sequence = _NAPOLA if napola else _PICCOLA if piccola else None
    tallies = tuple(
        [
            SideTally(
                scope[s],
                pile.bit_count(),
                (pile & DENARI_MASK).bit_count(),
                pile >> SETTEBELLO & 1 == 1,
                primiera(pile),
                re_bello and pile >> RE_BELLO & 1 == 1,
                sequence[pile & 1023] if sequence else 0,
                _GRANDE[pile & 1023] if grande else 0,
                declared[s] if declared else 0,
            )
            for s, pile in enumerate(piles)
        ]
    )
    settebello = king = None
    for s, t in enumerate(tallies):
        if t.settebello:
            settebello = s
        if t.re_bello:
            king = s
    return DealScore(
        tallies,
        _strict_winner([t.cards for t in tallies]),
        _strict_winner([t.denari for t in tallies]),
        settebello,
        _strict_winner([t.primiera for t in tallies]),
        king,
    )
