"""Replaying a match log: re-apply every decision with the rules engine and
check every score, failing loudly on the first disagreement.

The replay needs nothing but the log: the deck orders are in it (the seed is
not used), so a log verifies on any machine and any Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import IllegalMoveError, RecordError, RulesError, WireError
from arena.outcome import (
    DealScored,
    DealStart,
    DecisionRecord,
    Fault,
    MatchHeader,
    MatchResult,
    Termination,
)
from arena.record import read_log
from arena.rules import FinishedDeal, Match, Move, Variant, View, cards_text, view
from arena.wire import convert


class VerifyError(RecordError):
    """The log and the rules disagree. Says where (deal, decision) and how."""


@dataclass
class Step:
    """One decision as replayed, with the whole position (every hand: the
    observer's Sight.ALL view) before and after it. Renderers show these views
    as a given viewer sees them (``View.seen_by``)."""

    deal: int
    index: int
    seat: int
    move: Move | None  # None: the fault forfeited the match here
    scopa: bool
    think_us: int
    fault: Fault | None
    comment: str
    before: View
    after: View  # the same as ``before`` when nothing was played (a forfeit)

    @property
    def hands(self) -> list[int]:
        """Every seat's hand before the move."""
        return [h or 0 for h in self.before.hands]

    @property
    def table(self) -> int:
        """The table before the move."""
        return self.before.table

    @property
    def stock(self) -> int:
        """Cards left in the stock before the move."""
        return self.before.stock_count

    @property
    def refilled(self) -> bool:
        """New hands were dealt right after this move."""
        return self.after.stock_count < self.before.stock_count


@dataclass
class ReplayedDeal:
    number: int
    dealer: int
    deck: tuple[int, ...]
    void_decks: tuple[tuple[int, ...], ...]
    start: View  # the deal as dealt, every hand
    steps: list[Step] = field(default_factory=list)
    finished: FinishedDeal | None = None  # None: the log ends inside this deal

    @property
    def hands(self) -> list[int]:
        """Every seat's hand as dealt."""
        return [h or 0 for h in self.start.hands]

    @property
    def table(self) -> int:
        """The table as dealt."""
        return self.start.table


@dataclass
class Replay:
    header: MatchHeader
    variant: Variant
    names: list[str]
    deals: list[ReplayedDeal]
    result: MatchResult | None  # None: the log ends before the match did
    truncated: bool  # the last record was cut short
    scores: list[int]  # the running score where the log ends

    @property
    def complete(self) -> bool:
        return self.result is not None

    def status(self) -> str:
        if self.result is not None:
            return (
                f"verified: {len(self.deals)} deal(s), every decision legal, "
                "every score as recorded"
            )
        where = "before the first deal"
        if self.deals:
            last = self.deals[-1]
            where = f"in deal {last.number + 1} after {len(last.steps)} decision(s)"
            if last.finished is not None:
                where = f"after deal {last.number + 1}"
        cut = " (its last record was cut short)" if self.truncated else ""
        return (
            f"verified up to where the log ends: it stops {where}{cut}; the match was interrupted"
        )


def _fail(deal: int | None, index: int | None, message: str) -> VerifyError:
    where = []
    if deal is not None:
        where.append(f"deal {deal + 1}")
    if index is not None:
        where.append(f"decision {index + 1}")
    prefix = ", ".join(where)
    return VerifyError(f"{prefix}: {message}" if prefix else message)


def _describe(move: Move) -> str:
    card, taken = move
    played = cards_text(1 << card)
    return f"{played} taking {cards_text(taken)}" if taken else f"{played} (laid)"


def replay_log(path: Path) -> Replay:
    """Verify a log; VerifyError at the first disagreement, RecordError if it is no log."""
    contents = read_log(path)
    try:
        header = convert.log_entry_from_pb(contents.records[0])
    except WireError as e:
        raise RecordError(f"{path}: header: {e}") from None
    assert isinstance(header, MatchHeader)
    variant = header.variant
    if len(header.engines) != variant.seats:
        raise RecordError(
            f"{path}: header names {len(header.engines)} engines for {variant.seats} seats"
        )
    names = [e.name for e in header.engines]
    decks: dict[tuple[int, int], list[int]] = {}
    try:
        match = Match(
            variant, header.seed, first_dealer=header.first_dealer, decks=lambda i, a: decks[(i, a)]
        )
    except RulesError as e:
        raise RecordError(f"{path}: header: {e}") from None
    replay = Replay(header, variant, names, [], None, contents.truncated, match.scores)
    current: ReplayedDeal | None = None
    index = 0
    forfeited = False
    for n, record in enumerate(contents.records[1:], start=1):
        kind = record.WhichOneof("record")
        if replay.result is not None:
            raise _fail(None, None, f"record {n} ({kind}) comes after the end of the match")
        deal_number = current.number if current is not None else match.deal_number
        try:
            entry = convert.log_entry_from_pb(record)
        except WireError as e:
            at = index if kind == "decision" else None
            raise _fail(deal_number, at, f"record {n} ({kind}) cannot be read: {e}") from None
        if isinstance(entry, DealStart):
            current, index = _start_deal(match, entry, decks, current), 0
            replay.deals.append(current)
        elif isinstance(entry, DecisionRecord):
            if current is None or current.finished is not None:
                raise _fail(None, None, f"record {n}: a decision outside any deal")
            if forfeited:
                raise _fail(current.number, index, "a decision after the forfeit")
            step = _decide(match, entry, current.number, index)
            current.steps.append(step)
            forfeited = step.move is None
            index += 1
        elif isinstance(entry, DealScored):
            if current is None or current.finished is not None:
                raise _fail(None, None, f"record {n}: a deal end outside any deal")
            current.finished = _end_deal(match, entry, current.number)
        elif isinstance(entry, MatchResult):
            replay.result = _end_match(match, entry)
        else:
            raise RecordError(f"{path}: record {n} is a second header")
    return replay


def _start_deal(
    match: Match,
    started: DealStart,
    decks: dict[tuple[int, int], list[int]],
    previous: ReplayedDeal | None,
) -> ReplayedDeal:
    number = match.deal_number
    if previous is not None and previous.finished is None:
        raise _fail(previous.number, None, "a new deal starts before this one ended")
    if started.number != number:
        raise _fail(number, None, f"the log numbers this deal {started.number + 1}")
    void = [list(v) for v in started.void_decks]
    deck = list(started.deck)
    for attempt, cards in enumerate([*void, deck]):
        decks[(number, attempt)] = cards
    try:
        deal = match.start_deal()
    except (RulesError, KeyError) as e:
        raise _fail(
            number, None, f"the log's void decks do not match the redeal rule ({e})"
        ) from None
    if [list(v) for v in match.void_decks] != void or deal.deck != deck:
        raise _fail(
            number,
            None,
            f"the log voids {len(void)} deck(s) but the rules void {len(match.void_decks)} "
            "(three or four Re face up void a deal, fewer do not)",
        )
    if started.dealer != deal.dealer:
        raise _fail(
            number,
            None,
            f"the log says seat {started.dealer} deals, the rules say seat {deal.dealer}",
        )
    return ReplayedDeal(number, deal.dealer, started.deck, started.void_decks, view(match))


def _decide(match: Match, decision: DecisionRecord, deal_number: int, index: int) -> Step:
    deal = match.deal
    assert deal is not None
    if decision.deal_number != deal_number or decision.decision != index:
        raise _fail(
            deal_number,
            index,
            f"the log numbers it deal {decision.deal_number + 1}, decision {decision.decision + 1}",
        )
    if deal.to_move is None:
        raise _fail(deal_number, index, "the deal is over, yet the log has another decision")
    if decision.seat != deal.to_move:
        raise _fail(
            deal_number,
            index,
            f"the log says seat {decision.seat} plays, the rules say seat {deal.to_move}",
        )
    before = view(match)
    step = Step(
        deal_number,
        index,
        deal.to_move,
        None,
        False,
        round(decision.think_time * 1e6),
        decision.fault,
        decision.comment,
        before,
        before,
    )
    move = decision.move
    if move is None:
        if decision.fault is None:
            raise _fail(
                deal_number, index, "the log has a decision with neither a move nor a fault"
            )
        return step
    try:
        deal.check(move)
    except IllegalMoveError as e:
        raise _fail(
            deal_number,
            index,
            f"the log says seat {step.seat} played {_describe(move)}; the rules say: {e.reason}",
        ) from None
    play = deal.play_unchecked(move)
    if play.scopa != decision.scopa:
        says = "a scopa" if decision.scopa else "no scopa"
        rules = "a scopa" if play.scopa else "no scopa"
        raise _fail(
            deal_number, index, f"the log marks {says} for {_describe(move)}; the rules say {rules}"
        )
    step.move, step.scopa, step.after = move, play.scopa, view(match)
    return step


def _end_deal(match: Match, logged: DealScored, number: int) -> FinishedDeal:
    deal = match.deal
    assert deal is not None
    if not deal.is_over:
        raise _fail(number, None, "the log ends the deal while cards are still in hand or stock")
    done = match.end_deal()
    expected = DealScored.of(done)
    if expected != logged:
        raise _fail(
            number,
            None,
            "the logged scoring differs from the rules: "
            f"the rules give {_scoring(expected)}; the log says {_scoring(logged)}",
        )
    return done


def _scoring(deal: DealScored) -> str:
    sides = []
    for side, t in enumerate(deal.score.tallies):
        points = deal.score.breakdown(side)
        sides.append(
            f"side {side}: {deal.score.points[side]} points {points} from {t.scope} scope, "
            f"{t.cards} cards, {t.denari} denari, settebello {t.settebello}, "
            f"primiera {t.primiera}"
        )
    leftover = "" if deal.leftover is None else f", leftover to side {deal.leftover[0]}"
    return (
        f"deal {deal.number + 1} dealt by seat {deal.dealer}: "
        + "; ".join(sides)
        + (f", match {deal.totals}{leftover}")
    )


def _end_match(match: Match, result: MatchResult) -> MatchResult:
    if tuple(match.scores) != result.final_scores:
        raise _fail(
            None,
            None,
            f"the log gives a final score of {result.final_scores}, "
            f"the deals add up to {tuple(match.scores)}",
        )
    if result.termination is Termination.COMPLETED:
        if not match.is_over or match.deal is not None:
            raise _fail(
                None,
                None,
                "the log says the match was played to the end, but the rules say it goes on",
            )
        if result.winner != match.winner:
            raise _fail(
                None, None, f"the log names winner {result.winner}, the rules say {match.winner}"
            )
    elif result.termination is Termination.FORFEIT:
        at_fault = {f.seat & 1 for f in result.faults}
        expected = 1 - next(iter(at_fault)) if len(at_fault) == 1 else None
        if not result.faults:
            raise _fail(None, None, "the log records a forfeit without a fault")
        if result.winner != expected:
            raise _fail(
                None,
                None,
                f"the log names winner {result.winner} after faults of side(s) {sorted(at_fault)}",
            )
    elif result.winner is not None:
        raise _fail(None, None, f"a {result.termination.value} match cannot have a winner")
    return result
