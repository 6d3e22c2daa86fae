"""What happens in a match, as plain values (no protobuf here): faults, the
decisions, the public events spectators are shown, and how it ended."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from arena.errors import FaultKind
from arena.rules import DealScore, FinishedDeal, OfferedMove, Play, Variant, View

if TYPE_CHECKING:
    from arena.match.settings import ClockSettings, FaultPolicy, MatchSettings, SandboxSettings


class Termination(enum.Enum):
    COMPLETED = "completed"  # played to the target or the deal limit
    FORFEIT = "forfeit"  # a seat's fault during play decided the match
    NO_CONTEST = "no_contest"  # a seat failed before the first deal: no result, faults kept
    VOID = "void"  # the referee failed: no result, nobody blamed
    ABORTED = "aborted"  # stopped from outside (Ctrl-C, shutdown)

    @property
    def has_result(self) -> bool:
        """Whether the match counts for ratings: only a match that began does.
        A seat that never started wins nobody a match (no contest)."""
        return self in (Termination.COMPLETED, Termination.FORFEIT)


def decision_text(decision: int) -> str:
    """ "decision 3 (the 4th)": the number the protocol gives it (0-based within
    the deal, ``DecisionRequest.decision``), which a bot's own log shows, and
    the ordinal a person counts."""
    n = decision + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"decision {decision} (the {n}{suffix})"


@dataclass(frozen=True)
class Fault:
    """One fault: which seat, what kind, where in the match, and what was said."""

    seat: int
    kind: FaultKind
    deal_number: int
    decision: int
    message: str
    at_startup: bool = False  # before the first deal: start-up or handshake

    @property
    def where(self) -> str:
        """When it happened: deals as every summary counts them, from 1;
        decisions as the protocol numbers them (see ``decision_text``)."""
        if self.at_startup:
            return "at start-up"
        return f"at deal {self.deal_number + 1}, {decision_text(self.decision)}"

    def headline(self, name: str = "") -> str:
        """Who, what and when, without the message: "seat 0 (mine) crash at ..."."""
        who = f"seat {self.seat}" + (f" ({name})" if name else "")
        return f"{who} {self.kind.value} {self.where}"

    def describe(self, name: str = "") -> str:
        """The whole fault on one line; ``name``: the seat's engine, when known."""
        return f"{self.headline(name)}: {self.message}"

    def __str__(self) -> str:
        return self.describe()


@dataclass(frozen=True)
class MatchResult:
    """The end of a match. ``winner`` is a side, or None for a draw or no result."""

    final_scores: tuple[int, ...]
    winner: int | None
    termination: Termination
    reason: str
    faults: tuple[Fault, ...] = field(default=())
    deals_played: int = 0


def result_text(
    sides: Sequence[str],
    final_scores: Sequence[int],
    winner: int | None,
    termination: Termination,
    reason: str = "",
) -> str:
    """A match's end as every page writes it, so that no reader has to work out
    who a side number is: the winner by name, the score from the winner's
    side ("greedy won 11-9", "alice+bob won 11-7", "drawn 11-11", "no contest",
    "forfeit: greedy won (seat 1 crash at deal 1, ...)"). ``sides``: each
    side's name, side 0 first; two sides of one name are told apart as side 1
    and side 2, the numbers the viewer shows."""
    if winner is not None and len(set(sides)) < len(sides):
        name = f"{sides[winner]} (side {winner + 1})"
    elif winner is not None:
        name = sides[winner]
    scores = list(final_scores)
    if winner is not None and scores:
        scores = [scores[winner], *(s for i, s in enumerate(scores) if i != winner)]
    score = "-".join(str(s) for s in scores)
    if termination is Termination.COMPLETED:
        if winner is None:
            return f"drawn {score}"
        return f"{name} won {score}" + (" by napoleone" if reason.startswith("napoleone") else "")
    if termination is Termination.FORFEIT:
        said = f"{name} won" if winner is not None else "drawn"
        return f"forfeit: {said} ({reason})" if reason else f"forfeit: {said}"
    words = {
        Termination.NO_CONTEST: "no contest",
        Termination.VOID: "void: no result",
        Termination.ABORTED: "aborted: no result",
    }[termination]
    return f"{words} ({reason})" if reason else words


@dataclass(frozen=True)
class EngineInfo:
    """Who sat where: the organiser's name and what the bot said of itself."""

    seat: int
    name: str
    engine_name: str = ""
    engine_version: str = ""
    author: str = ""
    confinement: str = ""  # how it ran: its sandbox and limits, remote, in-process

    @property
    def sees_every_hand(self) -> bool:
        """Whether it was shown every hand (builtin:cheating-mcts): a research bound."""
        return self.confinement == SEES_EVERY_HAND


# The confinement a log's header gives a seat whose engine saw every hand.
SEES_EVERY_HAND = "in-process strategy that SEES EVERY HAND (a research bound, not a fair player)"


@dataclass(frozen=True)
class ProbeRecord:
    """One probe of a decision (docs/audit.md): the same request asked again of
    the same bot under ``match_id``, with ``hands`` as the hidden state the
    probe stood for. ``move``: its answer, None with ``problem`` saying why."""

    match_id: str
    hands: tuple[int, ...]
    move: OfferedMove | None
    problem: str = ""
    think_time: float = 0.0


@dataclass(frozen=True, kw_only=True)
class DecisionRecord:
    """One decision as the log keeps it (built by keyword: ten fields of like types)."""

    deal_number: int
    decision: int
    seat: int
    move: OfferedMove | None  # the move applied (a substitute when fault is set; None: forfeit)
    think_time: float  # seconds, measured by the referee
    fault: Fault | None = None
    scopa: bool = False
    comment: str = ""
    # The clock as the log keeps it: seconds the seat was allowed (what it was
    # told; None in a version-1 log) and its bank after the decision (None: no bank).
    deadline: float | None = None
    bank_left: float | None = None
    probes: tuple[ProbeRecord, ...] = ()  # never played, scored or shown


@dataclass
class MatchReport:
    """Everything about one refereed match: what ``run_match`` returns."""

    settings: MatchSettings
    engines: list[EngineInfo]
    result: MatchResult
    deals: list[FinishedDeal] = field(default_factory=list)
    decisions: list[DecisionRecord] = field(default_factory=list)
    log_chain: str = ""  # hex chain value ending the match's log (docs/logs.md); "": no log

    def summary(self) -> str:
        """The match as a terminal shows it (arena.match.report.report_text):
        each deal's scoring, the result, its faults. Kept for the README's
        scripts; the arena's own code calls report_text."""
        from arena.match.report import report_text  # report formats these values

        return report_text(self)


@dataclass(frozen=True)
class DealBegan:
    deal_number: int
    dealer: int


@dataclass(frozen=True)
class DealScored:
    """The end of a deal as everyone learns it: the scoring and the running score."""

    number: int
    dealer: int
    score: DealScore
    totals: tuple[int, ...]  # match scores after this deal
    leftover: tuple[int, int] | None  # (side, mask) of the table cards left at the end

    @classmethod
    def of(cls, deal: FinishedDeal) -> DealScored:
        return cls(deal.number, deal.dealer, deal.score, deal.totals, deal.leftover)


@dataclass(frozen=True)
class MatchEvent:
    """A public event of a match, for spectators: what happened, the public
    view right after it (None between deals) and the match scores."""

    what: DealBegan | Play | DealScored | MatchResult
    view: View | None
    scores: tuple[int, ...]


class LaunchKind(enum.StrEnum):
    """How a seat's engine was reached, as its log records it."""

    COMMAND = "command"  # launched by the arena
    ADDRESS = "address"  # a bot someone else runs
    BUILTIN = "builtin"  # an in-process strategy
    CONNECTION = "connection"  # a connection the caller opened itself
    HUMAN = "human"  # a person, playing in a browser


@dataclass(frozen=True)
class SeatLaunch:
    """How the organiser had a seat's engine reached, as its log records it.

    A command line is kept as a digest and its program's name only: logs are
    published, and a command may name private paths or carry a token."""

    kind: LaunchKind
    program: str = ""  # command: the file name of its program
    command_sha256: str = ""  # command: hex digest of its words (see log.proto)
    address: str = ""  # address; connection, when it has one
    builtin: str = ""  # builtin: the strategy's name
    sandbox: SandboxSettings | None = None  # command: what it was launched under
    clock: ClockSettings | None = None  # the seat's own clock (a person's), if not the match's


@dataclass(frozen=True)
class MatchHeader:
    """The first record of a match log: what the match was and who played it.
    The fields after ``schedule_id`` are in version-2 logs only (None, empty or
    zero in a version-1 log)."""

    format_version: int
    match_id: str
    variant: Variant
    engines: tuple[EngineInfo, ...]  # in seat order
    clock: ClockSettings
    seed: int
    first_dealer: int
    started_at: str  # RFC 3339, UTC
    arena_version: str
    schedule_id: str = ""
    policy: FaultPolicy | None = None
    startup_timeout: float = 0.0  # seconds
    handshake_timeout: float = 0.0
    notify_timeout: float = 0.0
    sandbox: SandboxSettings | None = None
    launches: tuple[SeatLaunch, ...] = ()  # in seat order, like ``engines``
    source_revision: str = ""  # the arena's git commit, when it ran from a checkout

    def clock_of(self, seat: int) -> ClockSettings:
        """The clock seat ``seat`` played under: its own, else the match's."""
        own = self.launches[seat].clock if seat < len(self.launches) else None
        return own or self.clock


@dataclass(frozen=True)
class DealStart:
    """A deal as a log records its start: the dealer and the full deck order
    (and any decks voided before it). Never shown to a seat or a spectator."""

    number: int
    dealer: int
    deck: tuple[int, ...]
    void_decks: tuple[tuple[int, ...], ...]
