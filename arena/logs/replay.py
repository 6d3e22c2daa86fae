"""Replaying a match log: re-apply every decision with the rules engine and
check every score, failing loudly on the first disagreement.

The replay needs nothing but the log: the deck orders are in it (the seed is
not used), so a log verifies on any machine and any Python. Reading it
(arena.logs.record.read_log) checks its framing and hash chain first; the replay
then checks what a chain cannot, since whoever edits a log can recompute it:
seats in range, the clock, the fault policy, and a result that follows from
the deals (its scores, deals played, termination and winner).

Why one module of this size: each check of a log against the rules (seats,
clock, fault policy, every decision, every score, the result) reads the state
the previous one left, in the log's order; it is one pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from arena.errors import IllegalMoveError, RulesError, VerifyError, WireError
from arena.logs.record import LogContents, read_log
from arena.match.engine import SeatClock, forfeit_winner, forfeits
from arena.match.outcome import (
    DealScored,
    DealStart,
    DecisionRecord,
    Fault,
    MatchHeader,
    MatchResult,
    ProbeRecord,
    Termination,
    decision_text,
)
from arena.rules import (
    Declaring,
    FinishedDeal,
    Match,
    OfferedMove,
    Variant,
    View,
    cards_text,
    observe,
    side_of,
    view,
)
from arena.rules.cards import FULL_DECK
from arena.rules.determinize import seen_cards
from arena.wire import convert

__all__ = ["Replay", "ReplayedDeal", "Step", "VerifyError", "replay_contents", "replay_log"]

# Clock values are kept in whole milliseconds (think times in microseconds):
# a recomputed deadline or bank may differ from the logged one by the rounding.
_CLOCK_SLACK = 0.002


@dataclass
class Step:
    """One decision as replayed, with the whole position (every hand: the
    observer's Sight.ALL view) before and after it. Renderers show these views
    as a given viewer sees them (``View.seen_by``)."""

    deal: int
    index: int
    seat: int
    move: OfferedMove | None  # None: the fault forfeited the match here
    scopa: bool
    think_us: int
    fault: Fault | None
    comment: str
    before: View
    after: View  # the same as ``before`` when nothing was played (a forfeit)
    probes: tuple[ProbeRecord, ...] = ()  # the decision asked again (docs/audit.md)

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
    chain: bytes | None = None  # the hash chain's last value; None: a version-1 log
    note: str = ""  # what else a reader should know (a version-1 log has no chain)

    @property
    def complete(self) -> bool:
        return self.result is not None

    def status(self) -> str:
        chain = "" if self.chain is None else f"; hash chain intact, last value {self.chain.hex()}"
        note = f"\nnote: {self.note}" if self.note else ""
        if self.result is not None:
            return (
                f"verified: {len(self.deals)} deal(s), every decision legal, "
                f"every score as recorded{chain}{note}"
            )
        where = "before the first deal"
        if self.deals:
            last = self.deals[-1]
            where = f"in deal {last.number + 1} after {len(last.steps)} decision(s)"
            if last.finished is not None:
                where = f"after deal {last.number + 1}"
        cut = " (its last record was cut short)" if self.truncated else ""
        return (
            f"verified up to where the log ends: it stops {where}{cut}; "
            f"the match was interrupted{chain}{note}"
        )


def _fail(deal: int | None, index: int | None, message: str) -> VerifyError:
    where = []
    if deal is not None:
        where.append(f"deal {deal + 1}")
    if index is not None:
        where.append(decision_text(index))
    prefix = ", ".join(where)
    return VerifyError(f"{prefix}: {message}" if prefix else message)


def _describe(move: OfferedMove) -> str:
    card, taken = move[0], move[1]
    played = cards_text(1 << card)
    said = f"{played} taking {cards_text(taken)}" if taken else f"{played} (laid)"
    return f"{said} declaring {move.declaration}" if isinstance(move, Declaring) else said


def replay_log(path: Path) -> Replay:
    """Verify a log; VerifyError at the first record that was changed or that
    disagrees with the rules, RecordError if the file is no log this arena reads."""
    return replay_contents(read_log(path))


def replay_contents(contents: LogContents) -> Replay:
    """Verify what ``read_log`` read (its framing and chain already checked)."""
    try:
        return _replay(contents)
    except VerifyError as e:
        raise (e if contents.path is None else e.at(contents.path)) from None


def _replay(contents: LogContents) -> Replay:
    try:
        header = convert.log_entry_from_pb(contents.records[0])
    except WireError as e:
        raise VerifyError(f"record 1 (the header): {e}") from None
    assert isinstance(header, MatchHeader)
    variant = header.variant
    _check_engines(header)
    names = [e.name for e in header.engines]
    decks: dict[tuple[int, int], list[int]] = {}
    try:
        match = Match(
            variant, header.seed, first_dealer=header.first_dealer, decks=lambda i, a: decks[(i, a)]
        )
    except RulesError as e:
        raise VerifyError(f"record 1 (the header): {e}") from None
    replay = Replay(
        header,
        variant,
        names,
        [],
        None,
        contents.truncated,
        match.scores,
        contents.chain,
        contents.note,
    )
    checks = _Checks(header)
    current: ReplayedDeal | None = None
    index = 0
    for n, record in enumerate(contents.records[1:], start=2):
        kind = record.WhichOneof("record")
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
            if checks.forfeit is not None:
                raise _fail(current.number, index, "a decision after the forfeit")
            checks.seat(entry.seat, current.number, index, "the decision")
            step = _decide(match, entry, current.number, index)
            checks.decision(entry, current.number, index)
            current.steps.append(step)
            if step.move is None:
                checks.forfeit = entry
            index += 1
        elif isinstance(entry, DealScored):
            if current is None or current.finished is not None:
                raise _fail(None, None, f"record {n}: a deal end outside any deal")
            current.finished = _end_deal(match, entry, current.number)
        elif isinstance(entry, MatchResult):
            replay.result = checks.result(match, entry)
        else:
            raise _fail(None, None, f"record {n} is a second header")
    return replay


def _check_engines(header: MatchHeader) -> None:
    """One engine per seat of the variant, each at its own seat."""
    seats = header.variant.seats
    game = header.variant.game.value
    if len(header.engines) != seats:
        raise VerifyError(
            f"record 1 (the header): it names {len(header.engines)} engines for {seats} seats"
        )
    for expected, engine in enumerate(header.engines):  # sorted by seat
        if engine.seat >= seats:
            raise VerifyError(
                f"record 1 (the header): engine {engine.name!r} sits at seat {engine.seat}, "
                f"but {game} has seats 0..{seats - 1}"
            )
        if engine.seat != expected:
            raise VerifyError(f"record 1 (the header): two engines sit at seat {engine.seat}")


class _Checks:
    """What a replay checks beyond the moves: seats, faults, the fault policy,
    the clock, and a result consistent with the deals."""

    def __init__(self, header: MatchHeader) -> None:
        self.header = header
        self.seats = header.variant.seats
        self.faults: list[Fault] = []  # the decisions' faults, in order
        self.strikes = [0] * self.seats
        self.banks: list[float | None] = [header.clock_of(s).bank for s in range(self.seats)]
        self.forfeit: DecisionRecord | None = None  # the decision that forfeited the match

    def seat(self, seat: int, deal: int | None, index: int | None, what: str) -> None:
        if not 0 <= seat < self.seats:
            raise _fail(
                deal,
                index,
                f"{what} names seat {seat}, but {self.header.variant.game.value} has "
                f"seats 0..{self.seats - 1}",
            )

    def decision(self, d: DecisionRecord, deal: int, index: int) -> None:
        fault = d.fault
        if fault is not None:
            self.seat(fault.seat, deal, index, "its fault")
            if (fault.seat, fault.deal_number, fault.decision, fault.at_startup) != (
                d.seat,
                deal,
                index,
                False,
            ):
                raise _fail(deal, index, f"the decision carries a fault of another one: {fault}")
            self.faults.append(fault)
            self._policy(d, fault, deal, index)
        self._clock(d, deal, index)

    def _policy(self, d: DecisionRecord, fault: Fault, deal: int, index: int) -> None:
        policy = self.header.policy
        if policy is None:  # a version-1 log does not say
            return
        self.strikes[d.seat] += 1
        forfeited = forfeits(policy, self.strikes[d.seat])
        if forfeited and d.move is not None:
            raise _fail(
                deal,
                index,
                f"the fault policy forfeits seat {d.seat} for this {fault.kind.value}, "
                "yet the log plays a substitute move",
            )
        if not forfeited and d.move is None:
            raise _fail(
                deal,
                index,
                f"the fault policy plays a substitute for seat {d.seat}'s "
                f"{fault.kind.value} here, yet the log forfeits it",
            )

    def _clock(self, d: DecisionRecord, deal: int, index: int) -> None:
        """The deadline follows from the seat's clock (the header's, or its own)
        and its bank, the bank from its think times; an answer past its deadline
        is a timeout."""
        if d.deadline is None:  # a version-1 log does not keep the clock
            return
        settings = self.header.clock_of(d.seat)
        clock = SeatClock.of(settings, self.banks[d.seat])
        expected = clock.deadline
        if abs(d.deadline - expected) > _CLOCK_SLACK:
            raise _fail(
                deal,
                index,
                f"the log allows seat {d.seat} {d.deadline:g}s, the clock allows {expected:g}s",
            )
        grace = settings.grace
        if d.fault is None and d.think_time > d.deadline + grace + _CLOCK_SLACK:
            raise _fail(
                deal,
                index,
                f"seat {d.seat} took {d.think_time:g}s of {d.deadline:g}s allowed, "
                "yet the log records no timeout",
            )
        after = clock.bank_after(d.think_time)
        if after is None:
            if d.bank_left is not None:
                raise _fail(deal, index, "the log keeps a bank, the clock has none")
            return
        if d.bank_left is None or abs(d.bank_left - after) > _CLOCK_SLACK:
            raise _fail(
                deal,
                index,
                f"the log leaves seat {d.seat} a bank of {d.bank_left}s; "
                f"its think time leaves {after:g}s",
            )
        self.banks[d.seat] = d.bank_left

    def result(self, match: Match, result: MatchResult) -> MatchResult:
        """The end record: scores, deals played, faults, termination and winner
        all as the deals and decisions before it imply."""
        if tuple(match.scores) != result.final_scores:
            raise _fail(
                None,
                None,
                f"the log gives a final score of {result.final_scores}, "
                f"the deals add up to {tuple(match.scores)}",
            )
        if result.deals_played != len(match.finished):
            raise _fail(
                None,
                None,
                f"the result says {result.deals_played} deal(s) played, "
                f"the log has {len(match.finished)}",
            )
        for fault in result.faults:
            self.seat(fault.seat, None, None, "a fault of the result")
        at_startup = [f for f in result.faults if f.at_startup]
        if list(result.faults) != at_startup + self.faults:
            raise _fail(
                None,
                None,
                "the result's faults are not the start-up faults followed by "
                "the faults of the decisions",
            )
        if at_startup and (match.finished or match.deal is not None):
            raise _fail(None, None, "a match with start-up faults is forfeited before any deal")
        termination = result.termination
        over = match.is_over and match.deal is None
        forfeit = self.forfeit
        if over and termination is not Termination.COMPLETED:
            raise _fail(
                None,
                None,
                f"the deals end the match ({_winner(match.winner)} by the rules), "
                f"yet the log says it was {termination.value}",
            )
        if forfeit is not None and termination is not Termination.FORFEIT:
            assert forfeit.fault is not None
            raise _fail(
                None,
                None,
                f"a fault forfeited the match ({forfeit.fault}), "
                f"yet the log says it was {termination.value}",
            )
        if termination is Termination.COMPLETED:
            if not over:
                raise _fail(
                    None,
                    None,
                    "the log says the match was played to the end, but the rules say it goes on",
                )
            if result.winner != match.winner:
                raise _fail(
                    None,
                    None,
                    f"the log names winner {result.winner}, the rules say {match.winner}",
                )
        elif termination is Termination.FORFEIT:
            if forfeit is None and not at_startup:
                raise _fail(None, None, "the log records a forfeit, but no fault ended the match")
            deciding = [f for f in result.faults if f.at_startup] or [self.faults[-1]]
            sides = match.variant.sides
            at_fault = {side_of(f.seat, sides) for f in deciding}
            if result.winner != forfeit_winner((f.seat for f in deciding), sides, match.scores):
                raise _fail(
                    None,
                    None,
                    f"the log names winner {result.winner} after faults of side(s) "
                    f"{sorted(at_fault)}",
                )
        elif result.winner is not None:
            raise _fail(None, None, f"a {termination.value} match cannot have a winner")
        return result


def _winner(side: int | None) -> str:
    return "a draw" if side is None else f"side {side} wins"


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
            f"the log numbers it deal {decision.deal_number + 1}, "
            f"{decision_text(decision.decision)}",
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
        decision.probes,
    )
    if decision.probes:
        _check_probes(match, decision, deal_number, index)
    move = decision.move
    if move is None:
        if decision.fault is None:
            raise _fail(
                deal_number, index, "the log has a decision with neither a move nor a fault"
            )
        return step
    try:
        deal.check(move.move if isinstance(move, Declaring) else move)
        play = deal.play_offered(move)
    except IllegalMoveError as e:
        raise _fail(
            deal_number,
            index,
            f"the log says seat {step.seat} played {_describe(move)}; the rules say: {e.reason}",
        ) from None
    if play.scopa != decision.scopa:
        says = "a scopa" if decision.scopa else "no scopa"
        rules = "a scopa" if play.scopa else "no scopa"
        raise _fail(
            deal_number, index, f"the log marks {says} for {_describe(move)}; the rules say {rules}"
        )
    step.move, step.scopa, step.after = move, play.scopa, view(match)
    return step


def _check_probes(match: Match, decision: DecisionRecord, deal_number: int, index: int) -> None:
    """A probe stands for a hidden state the seat could not tell from the real
    one: its own hand as it is, the others' hands of the right sizes out of the
    cards it has not seen, the partner's unlike the real one; and its answer,
    if any, is a legal move of the real position (docs/audit.md)."""
    deal = match.deal
    assert deal is not None
    seat, seats = decision.seat, len(deal.hands)
    if seats != 4:
        raise _fail(deal_number, index, "the log has probes in a game other than a four-seat one")
    if decision.move is None or decision.fault is not None:
        raise _fail(deal_number, index, "the log has probes of a decision that faulted")
    unseen = FULL_DECK & ~seen_cards(observe(match, seat))
    partner = (seat + 2) % seats
    ids = set()
    for probe in decision.probes:
        hands = probe.hands
        what = f"probe {probe.match_id!r}"
        if probe.match_id in ids or not probe.match_id:
            raise _fail(deal_number, index, f"{what}: its match id is empty or used twice")
        ids.add(probe.match_id)
        if len(hands) != seats or hands[seat] != deal.hands[seat]:
            raise _fail(deal_number, index, f"{what}: the seat's own hand is not its hand")
        union = 0
        for s in range(seats):
            if s == seat:
                continue
            if (
                hands[s].bit_count() != deal.hands[s].bit_count()
                or hands[s] & ~unseen
                or (hands[s] & union)
            ):
                raise _fail(
                    deal_number, index, f"{what}: seat {s}'s hand is not one the seat could infer"
                )
            union |= hands[s]
        if hands[partner] == deal.hands[partner]:
            raise _fail(deal_number, index, f"{what}: the partner's hand is its real hand")
        if probe.move is not None and probe.move not in deal.legal_moves():
            raise _fail(deal_number, index, f"{what}: its answer is not a legal move")
        if probe.move is None and not probe.problem:
            raise _fail(deal_number, index, f"{what}: neither a move nor a problem")


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
