"""One deal (a "hand" in the seeds): dealing, playing to the end, the leftovers.

``Deal`` is a small mutable state machine in the style of pokerkit: ask
``legal_moves()``, ``play(move)`` checks and applies, ``play_unchecked(move)``
applies a move already known to be legal (what playouts use). All card sets
are masks (see arena.rules.cards).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from arena.errors import IllegalMoveError, RulesError
from arena.rules.cards import ACE_MASK, BIT, DECK_SIZE, KING_MASK, RANK, cards_text
from arena.rules.declarations import (
    DECLARATION_POINTS,
    Declared,
    declaration_of,
    opening_scope,
)
from arena.rules.moves import (
    CARD_PATTERN,
    HANDS,
    PATTERN_BY_BITS,
    PLANS,
    Declaring,
    Move,
    OfferedMove,
    ace_took_all,
    capture_sets,
    check_move,
    fewest_of,
    fifteen_moves,
    hand_cards,
    legal_moves,
    plan_of,
)
from arena.rules.scoring import DealScore, deal_points, score_deal
from arena.rules.variants import Variant


class Play(NamedTuple):
    """One play of a deal, as every seat saw it (all plays are face up)."""

    seat: int
    card: int
    captures: int  # mask of table cards taken, 0 for a trail
    scopa: bool

    def __str__(self) -> str:
        text = f"seat {self.seat}: {Move(self.card, self.captures)}"
        return text + " SCOPA" if self.scopa else text


_new_play = tuple.__new__

# _RANK_SUM[bits]: the ranks of one suit's cards in a 10-bit pattern, added up
# (bit i is the card of rank i + 1 in every suit).
_RANK_SUM = tuple(sum(i + 1 for i in range(10) if bits >> i & 1) for bits in range(1024))


_ALL_CARDS = frozenset(range(DECK_SIZE))


def opening_scope_of(table: int, matta: bool = False) -> int:
    """The scope an opening table is worth to the dealer with opening_fifteen:
    1 when its ranks add up to 15, 2 for 30, else 0 (with the matta, the 7
    of Coppe counts as the value that makes 30 or 15: declarations.opening_scope)."""
    if matta:
        return opening_scope(table, matta)
    total = _RANK_SUM[table & 1023] + _RANK_SUM[table >> 10 & 1023]
    total += _RANK_SUM[table >> 20 & 1023] + _RANK_SUM[table >> 30]
    return total // 15 if total in (15, 30) else 0


def check_deck(deck: Sequence[int]) -> list[int]:
    """The deck as a list, after checking it holds each of the 40 cards once."""
    cards = list(deck)
    if len(cards) != DECK_SIZE or set(cards) != _ALL_CARDS:
        odd = [c for c in cards if c not in _ALL_CARDS]
        detail = f"{odd[0]!r} is not a card" if odd else f"{len(set(cards))} distinct cards"
        raise RulesError(
            f"a deck must hold each of the 40 cards once ({len(cards)} given, {detail})"
        )
    return cards


class Deal:
    """The state of one deal.

    Attributes (read them; change them only through play):
        variant, dealer: how and by whom it was dealt.
        deck: the full deck order, index 0 dealt first.
        hands: per seat, a mask of the cards held.
        table: mask of the cards face up on the table.
        opening_table: mask of the table as dealt, before the first play.
        stock_pos: index in ``deck`` of the next card to deal.
        piles, scope: per side, captured cards (mask) and sweeps.
        last_capturer: the side that captured last, or None.
        to_move: the seat whose turn it is (None when the deal is over).
        plays: every play so far.
        leftover: (side, mask) given the table's last cards at the end, if any.
        opening_scope: with opening_fifteen, the scope (1 or 2) the dealer's
            side scored by taking the opening table; 0 otherwise.
        declarations: with the declarations option, every declaration made
            (arena.rules.declarations.Declared), in order.
    """

    __slots__ = (
        "_ace_all",
        "_ace_sweep",
        "_fewest",
        "_fifteen",
        "_fifteen_ordinary",
        "_last_sweep",
        "_matta",
        "_seats",
        "_sides",
        "_to_last_player",
        "cards_in_hands",
        "dealer",
        "deck",
        "declarations",
        "declared",
        "hands",
        "last_capturer",
        "leftover",
        "opening_scope",
        "opening_table",
        "piles",
        "plays",
        "scope",
        "stock_pos",
        "table",
        "to_move",
        "variant",
    )

    def __init__(self, variant: Variant, dealer: int, deck: Sequence[int]) -> None:
        seats = variant.seats
        if not 0 <= dealer < seats:
            raise RulesError(f"dealer must be a seat 0..{seats - 1}, not {dealer}")
        self.dealer = dealer
        self.deck = check_deck(deck)
        self.set_variant(variant)
        self.hands = [0] * seats
        self.table = 0
        self.stock_pos = 0
        sides = variant.sides
        self.piles = [0] * sides
        self.scope = [0] * sides
        self.last_capturer: int | None = None
        self.plays: list[Play] = []
        self.leftover: tuple[int, int] | None = None
        self.declarations: list[Declared] = []
        self.declared = [0] * sides  # per side, the points of its declarations
        for step, n in variant.game.deal_plan:
            if step == "hands":
                self._deal_hands(n)
            else:
                pos = self.stock_pos
                table = self.table
                for c in self.deck[pos : pos + n]:
                    table |= BIT[c]
                self.table, self.stock_pos = table, pos + n
        self.opening_table = self.table
        # Every card dealt so far is in a hand or on the table.
        self.cards_in_hands = self.stock_pos - self.table.bit_count()
        self.to_move: int | None = (dealer + 1) % seats
        self.opening_scope = 0
        if variant.opening_fifteen and not self.is_void:
            self._take_opening()

    def _take_opening(self) -> None:
        """Cirulla: an opening table adding up to 15 or 30 is the dealer's,
        one scopa or two (the dealer's side captured last, for the leftovers)."""
        scope = opening_scope_of(self.table, self._matta)
        if scope:
            side = self.dealer % self._sides
            self.piles[side] |= self.table
            self.scope[side] += scope
            self.opening_scope = scope
            self.last_capturer = side
            self.table = 0

    def set_variant(self, variant: Variant) -> None:
        """Play by ``variant``'s rules: kept in slots of their own, as the hot
        paths read them (also for a deal built from a view: determinize)."""
        self.variant = variant
        self._seats = variant.seats
        self._sides = variant.sides
        self._fewest = variant.fewest_cards
        self._to_last_player = variant.leftovers_to_last_player
        self._last_sweep = variant.last_sweep
        self._ace_all = variant.ace_takes_all
        self._ace_sweep = variant.ace_sweep_scores
        self._fifteen = variant.fifteen
        self._fifteen_ordinary = variant.fifteen_ordinary
        self._matta = variant.matta

    def _deal_hands(self, n: int) -> None:
        """n cards to each seat, in a packet, starting with the seat after the dealer."""
        deck, pos, seats, hands, dealer = (
            self.deck,
            self.stock_pos,
            self._seats,
            self.hands,
            self.dealer,
        )
        for i in range(1, seats + 1):
            packet = 0
            for c in deck[pos : pos + n]:
                packet |= BIT[c]
            hands[(dealer + i) % seats] |= packet
            pos += n
        self.stock_pos = pos

    @property
    def is_void(self) -> bool:
        """More than two Re among the first face-up table cards (or, with
        aces_void, more than one ace): deal again. Only meaningful before the
        first play."""
        if self.plays:
            return False
        opening = self.opening_table
        if (opening & KING_MASK).bit_count() > 2:
            return True
        return self.variant.aces_void and (opening & ACE_MASK).bit_count() > 1

    @property
    def is_over(self) -> bool:
        return self.to_move is None

    @property
    def stock_count(self) -> int:
        return DECK_SIZE - self.stock_pos

    def legal_moves(self) -> list[Move]:
        seat = self.to_move
        if seat is None:
            return []
        hand, table = self.hands[seat], self.table
        return legal_moves(
            hand, table, self._fewest, self._ace_all, self._fifteen, self._fifteen_ordinary
        )

    def offered_moves(self) -> list[OfferedMove]:
        """The moves the seat to move is offered: ``legal_moves()``, and when a
        declaration is open (``declarable``) each of them again, declaring it."""
        moves: list[OfferedMove] = list(self.legal_moves())
        kind = self.declarable()
        if kind is not None:
            moves += [Declaring(card, taken, kind) for card, taken in self.legal_moves()]
        return moves

    def play_offered(self, move: OfferedMove) -> Play:
        """Apply one of ``offered_moves()`` (no checks but the declaration's)."""
        if isinstance(move, Declaring):
            self.declare(move.declaration)
            return self.play_unchecked((move.card, move.captures))
        return self.play_unchecked(move)

    def check(self, move: Move) -> None:
        """Raise IllegalMoveError unless ``move`` is legal now, saying why.

        A move is the card played and the mask of the table cards it takes:

        >>> from arena.rules import Game, Match, Move, Variant
        >>> deal = Match(Variant(Game.SCOPA), seed=1).start_deal()
        >>> [str(m) for m in deal.legal_moves()]  # the Fante takes the Fante
        ['FdxFb', '3s', '5b']
        >>> deal.check(Move(card=39, captures=0))
        Traceback (most recent call last):
        ...
        arena.errors.IllegalMoveError: seat 1: illegal move: Rb is not in the hand
        >>> deal.check(Move(card=7, captures=0))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        arena.errors.IllegalMoveError: ...: Fd can capture (Fb), so it cannot be laid
        """
        if self.to_move is None:
            raise IllegalMoveError("the deal is over", move=move)
        check_move(
            self.hands[self.to_move],
            self.table,
            move,
            self._fewest,
            seat=self.to_move,
            ace_takes_all=self._ace_all,
            fifteen=self._fifteen,
            fifteen_ordinary=self._fifteen_ordinary,
        )

    def declarable(self) -> str | None:
        """The declaration the seat to move may make with its next play
        (cirulla or decino, with the declarations option), or None: its hand
        is a fresh packet of three that allows one, and not yet declared."""
        seat = self.to_move
        if seat is None or not self.variant.declarations:
            return None
        last = self.declarations[-1] if self.declarations else None
        if last is not None and last.play == len(self.plays):
            return None  # declared, the play to come
        return declaration_of(self.hands[seat], self._matta)

    def declare(self, kind: str) -> Declared:
        """Declare the hand of the seat to move, shown to all, as part of the
        play it makes next; its side scores the declaration's points now."""
        allowed = self.declarable()
        if allowed is None or kind != allowed:
            hand = "" if self.to_move is None else f" ({cards_text(self.hands[self.to_move])})"
            offer = f"only {allowed}" if allowed else "no declaration"
            raise IllegalMoveError(f"cannot declare {kind!r} here{hand}: {offer} is open")
        seat = self.to_move
        assert seat is not None
        declared = Declared(seat, kind, self.hands[seat], len(self.plays))
        self.declarations.append(declared)
        self.declared[seat % self._sides] += DECLARATION_POINTS[kind]
        return declared

    def play(self, move: Move | tuple[int, int], declaration: str | None = None) -> Play:
        """Check and apply a move of the seat to move, declaring its hand with
        it when ``declaration`` is given; return the play made."""
        move = Move(*move)
        self.check(move)
        if declaration is not None:
            self.declare(declaration)
        return self.play_unchecked(move)

    def play_unchecked(self, move: tuple[int, int]) -> Play:
        """Apply a move known to be legal (from legal_moves). No checks: fast."""
        card, taken = move
        seat = self.to_move
        assert seat is not None
        bit = BIT[card]
        self.hands[seat] ^= bit
        in_hands = self.cards_in_hands = self.cards_in_hands - 1
        side = seat % self._sides
        if taken:
            table = self.table = self.table ^ taken
            self.piles[side] |= taken | bit
            self.last_capturer = side
            # A sweep scores, except with the very last card of the deal
            # (unless the last-sweep option says it does too).
            scopa = not table and (in_hands > 0 or self.stock_pos < DECK_SIZE or self._last_sweep)
            # An ace that took the table by the ace-takes-all rule (it took no
            # ace) sweeps for nothing unless ace_sweep_scores says otherwise.
            if scopa and self._ace_all and ace_took_all(card, taken):
                scopa = self._ace_sweep
            if scopa:
                self.scope[side] += 1
        else:
            self.table |= bit
            scopa = False
        play = _new_play(Play, (seat, card, taken, scopa))
        self.plays.append(play)
        seat += 1
        if seat == self._seats:
            seat = 0
        if in_hands:
            self.to_move = seat
        elif self.stock_pos < DECK_SIZE:
            refill = self.variant.game.refill
            self._deal_hands(refill)
            self.cards_in_hands = self._seats * refill
            self.to_move = seat
        else:
            self.to_move = None
            self._give_leftovers(side)
        return play

    def random_playout(
        self,
        random: Callable[[], float],
        capture_bias: float = 0.0,
        care: float = 0.0,
        sweep: float = 0.0,
        packets: int = 0,
    ) -> list[int]:
        """Play the deal to its end, each move uniformly among the legal moves
        (``random()`` in [0, 1) picks it), and return each side's points.

        ``capture_bias``: when some move captures, the move is drawn among the
        captures alone with this probability (one more ``random()`` then), as
        a player who takes what it can; 0 (the default) is uniform play.
        ``care``: then, with this probability (one more ``random()``), among
        the moves drawn from, those that leave no table one card could sweep
        (empty, or adding up to more than 10; in scopa a quindici, to less
        than 5 or more than 14), when there are some and not
        only those. ``sweep``: before both, with this probability (one more
        ``random()``), the moves that take the whole table, when there are
        some and not only those.

        The inner loop of Monte Carlo search, so it is written for speed: the
        same moves as ``play_unchecked(legal_moves()[int(random() * n)])`` step
        by step (tests/rules check they agree), with move generation inlined
        for the common cases and the state kept in local variables. A playout
        is a simulation, not a record: it leaves every field of the finished
        deal as step-by-step play would, except ``plays``, which it does not
        extend (recording costs an eighth of the time). Run it on a ``copy()``.

        ``packets``: when not 0, stop once that many more packets have been
        dealt (before the first play of the last of them) and return ``[]``:
        the deal is left as step-by-step play would leave it there, for a
        search to value the cut-off position itself (arena.players.search.estimate).
        """
        seat = self.to_move
        if seat is None:
            return self.points()
        hands, piles, scope, deck = self.hands, self.piles, self.scope, self.deck
        table, pos, in_hands = self.table, self.stock_pos, self.cards_in_hands
        seats, fewest, refill = self._seats, self._fewest, self.variant.game.refill
        sides = self._sides
        last_sweep, ace_all, ace_sweep = self._last_sweep, self._ace_all, self._ace_sweep
        fifteen, ordinary = self._fifteen, self._fifteen_ordinary
        # A table that one card could sweep adds up to low..high: 1..10 by the
        # ordinary rules, 5..14 in scopa a quindici (15 less a card), 1..14 with both.
        low, high = (1 if ordinary else 5, 14) if fifteen else (1, 10)
        last_capturer, dealer = self.last_capturer, self.dealer
        following = (*range(1, seats), 0)  # following[s]: the seat after s
        hands_get = HANDS.get
        p, plans, card_pattern, bits = PATTERN_BY_BITS, PLANS, CARD_PATTERN, BIT
        rs, ranks = _RANK_SUM, RANK
        # The table's rank pattern, kept up to date as cards come and go.
        key = p[table & 1023] + p[table >> 10 & 1023] + p[table >> 20 & 1023] + p[table >> 30]
        while True:
            hand = hands[seat]
            moves: list[tuple[int, int]] = []
            if fifteen:  # scopa a quindici: not inlined
                moves += fifteen_moves(hand, table, ordinary, ace_all, fewest)
            else:
                plan = plans.get(key) or plan_of(key)
                for c, r, rank_mask, ready in hands_get(hand) or hand_cards(hand):
                    same = table & rank_mask
                    if same:
                        moves += ready[same]
                        continue
                    how = plan[r]
                    if not how:
                        if ace_all and r == 1 and table:  # an ace on a table without one
                            moves.append((c, table))
                        else:
                            moves += ready[0]
                    elif how > 0:
                        moves.append((c, table & how))
                    else:
                        sets = capture_sets(table, r)
                        moves += [(c, m) for m in (fewest_of(sets) if fewest else sets)]
            if sweep and table:
                sweeps = [m for m in moves if m[1] == table]
                if sweeps and len(sweeps) < len(moves) and random() < sweep:
                    moves = sweeps
            if capture_bias:
                captures = [m for m in moves if m[1]]
                if captures and len(captures) < len(moves) and random() < capture_bias:
                    moves = captures
            if care:
                total = rs[table & 1023] + rs[table >> 10 & 1023] + rs[table >> 20 & 1023]
                total += rs[table >> 30]
                safe = []
                for m in moves:
                    t = m[1]
                    if t:
                        left = total - rs[t & 1023] - rs[t >> 10 & 1023] - rs[t >> 20 & 1023]
                        left -= rs[t >> 30]
                    else:
                        left = total + ranks[m[0]]
                    if left < low or left > high:
                        safe.append(m)
                if safe and len(safe) < len(moves) and random() < care:
                    moves = safe
            card, taken = moves[int(random() * len(moves))]
            bit = bits[card]
            hands[seat] = hand ^ bit
            in_hands -= 1
            if taken:
                side = seat % sides
                table ^= taken
                piles[side] |= taken | bit
                last_capturer = side
                # As play_unchecked: a sweep scores, but not with the deal's
                # last card, nor an ace's taking all (unless options say so;
                # ace_took_all, inlined).
                if (
                    not table
                    and (in_hands or pos < DECK_SIZE or last_sweep)
                    and (not ace_all or card % 10 or taken & ACE_MASK or ace_sweep)
                ):
                    scope[side] += 1
                if taken & (taken - 1) or (ace_all and not card % 10):  # count the table again
                    key = p[table & 1023] + p[table >> 10 & 1023] + p[table >> 20 & 1023]
                    key += p[table >> 30]
                else:  # one card of the played card's rank
                    key -= card_pattern[card]
            else:
                table |= bit
                key += card_pattern[card]
            if not in_hands:
                if pos == DECK_SIZE:
                    break  # seat made the last play
                for i in range(1, seats + 1):  # as _deal_hands, inlined
                    packet = 0
                    for c in deck[pos : pos + refill]:
                        packet |= bits[c]
                    hands[(dealer + i) % seats] = packet
                    pos += refill
                in_hands = seats * refill
                if packets:
                    packets -= 1
                    if not packets:  # cut off: the next seat is to play
                        self.table, self.stock_pos, self.cards_in_hands = table, pos, in_hands
                        self.last_capturer, self.to_move = last_capturer, following[seat]
                        return []
            seat = following[seat]
        self.table, self.stock_pos, self.cards_in_hands = table, pos, in_hands
        self.last_capturer, self.to_move = last_capturer, None
        self._give_leftovers(seat % self._sides)
        return self.points()

    def _give_leftovers(self, last_side: int) -> None:
        if not self.table:
            return
        taker = last_side if self._to_last_player else self.last_capturer
        if taker is not None:
            self.piles[taker] |= self.table
            self.leftover = (taker, self.table)
            self.table = 0

    def score(self) -> DealScore:
        if self.to_move is not None:
            raise RulesError("the deal is not over yet")
        v = self.variant
        return score_deal(
            self.piles, self.scope, v.re_bello, v.napola, v.piccola, v.grande, self.declared
        )

    def points(self) -> list[int]:
        """Each side's points as the deal stands (the fast path of ``score``,
        for playouts): ``score().points`` once the deal is over."""
        v = self.variant
        return deal_points(
            self.piles, self.scope, v.re_bello, v.napola, v.piccola, v.grande, self.declared
        )

    def copy(self) -> Deal:
        other = Deal.__new__(Deal)
        for name in Deal.__slots__:
            setattr(other, name, getattr(self, name))
        other.hands = list(self.hands)
        other.piles = list(self.piles)
        other.scope = list(self.scope)
        other.plays = list(self.plays)
        other.declarations = list(self.declarations)
        other.declared = list(self.declared)
        return other

    def __str__(self) -> str:
        lines = [f"dealer {self.dealer}, table {cards_text(self.table)}, stock {self.stock_count}"]
        lines += [f"seat {s}: {cards_text(h)}" for s, h in enumerate(self.hands)]
        return "\n".join(lines)
