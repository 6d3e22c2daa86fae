"""A match: deals in sequence, scores carried over, the end and the winner.

Randomness is explicit. A match draws every deck order from a ``DeckSource``
(deal index, attempt) -> deck; the default derives them from an integer seed
with ``seeding.seeded_deck`` (SHA-256 and Fisher-Yates, docs/seeds.md), so the
same seed gives the same decks in any language. Logs store the decks
themselves, so replay needs no RNG at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.errors import RulesError
from arena.rules.deal import Deal, Play
from arena.rules.scoring import DealScore
from arena.rules.seeding import seeded_deck, seeded_first_dealer
from arena.rules.variants import Variant

__all__ = ["DeckSource", "FinishedDeal", "Match", "seeded_deck", "seeded_first_dealer"]

DeckSource = Callable[[int, int], Sequence[int]]


@dataclass(frozen=True)
class FinishedDeal:
    """A deal played to the end, with everything needed to replay and show it."""

    number: int  # 0 for the first deal of the match
    dealer: int
    deck: tuple[int, ...]
    void_decks: tuple[tuple[int, ...], ...]  # decks dealt before this one and voided (kings)
    plays: tuple[Play, ...]
    leftover: tuple[int, int] | None  # (side, mask) of the table cards left at the end
    score: DealScore
    totals: tuple[int, ...]  # match scores after this deal


class Match:
    """The state of a match between its sides (two, or three players).

    Use: ``deal = match.start_deal()``; play the deal to its end;
    ``match.end_deal()``; repeat until ``match.is_over``.
    """

    def __init__(
        self,
        variant: Variant,
        seed: int = 0,
        *,
        first_dealer: int | None = None,
        decks: DeckSource | None = None,
    ) -> None:
        if first_dealer is None:
            first_dealer = seeded_first_dealer(seed, variant.seats)
        if not 0 <= first_dealer < variant.seats:
            raise RulesError(f"first dealer must be a seat 0..{variant.seats - 1}")
        self.variant = variant
        self.seed = seed
        self.first_dealer = first_dealer
        self.decks: DeckSource = decks or (lambda i, a: seeded_deck(seed, i, a))
        self.scores = [0] * variant.sides
        self.finished: list[FinishedDeal] = []
        self.deal: Deal | None = None
        self.void_decks: list[tuple[int, ...]] = []
        self.is_over = False
        self.winner: int | None = None  # the winning side; None while playing or a draw
        # The side that won by napoleone (Variant.napoleone), which ends the match.
        self.napoleone: int | None = None

    @property
    def deal_number(self) -> int:
        """Index of the current (or next) deal."""
        return len(self.finished)

    @property
    def dealer(self) -> int:
        """The dealer of the current (or next) deal: the deal passes each deal."""
        return (self.first_dealer + len(self.finished)) % self.variant.seats

    def start_deal(self) -> Deal:
        """Deal the next hand, dealing again (same dealer) while it is void."""
        if self.is_over:
            raise RulesError("the match is over")
        if self.deal is not None:
            raise RulesError("the current deal is not finished")
        self.void_decks = []
        for attempt in range(1000):
            deal = Deal(self.variant, self.dealer, self.decks(self.deal_number, attempt))
            if not deal.is_void:
                self.deal = deal
                return deal
            self.void_decks.append(tuple(deal.deck))
        raise RulesError("the deck source gave 1000 void deals in a row")

    def end_deal(self) -> FinishedDeal:
        """Score the finished deal, carry the points over, decide whether the match ends."""
        deal = self.deal
        if deal is None or not deal.is_over:
            raise RulesError("no finished deal to end")
        score = deal.score()
        for side, points in enumerate(score.points):
            self.scores[side] += points
        done = FinishedDeal(
            number=len(self.finished),
            dealer=deal.dealer,
            deck=tuple(deal.deck),
            void_decks=tuple(self.void_decks),
            plays=tuple(deal.plays),
            leftover=deal.leftover,
            score=score,
            totals=tuple(self.scores),
        )
        self.finished.append(done)
        self.deal = None
        self._decide()
        return done

    @property
    def end_reason(self) -> str:
        """Why a finished match ended, for its result."""
        if self.napoleone is not None:
            return "napoleone: all ten Denari taken in one deal"
        return "played to the end"

    def _decide(self) -> None:
        v, scores = self.variant, self.scores
        if v.napoleone:
            tallies = self.finished[-1].score.tallies
            whole = [side for side, t in enumerate(tallies) if t.denari == 10]
            if whole:  # one side at most: there are ten Denari
                self.is_over, self.winner, self.napoleone = True, whole[0], whole[0]
                return
        top = max(scores)
        leader = scores.index(top) if scores.count(top) == 1 else None
        reached_target = v.target is not None and top >= v.target and leader is not None
        out_of_deals = v.deal_limit is not None and len(self.finished) >= v.deal_limit
        if reached_target or out_of_deals:
            self.is_over, self.winner = True, leader
