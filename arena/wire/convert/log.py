"""Records of log.proto: a match log's header, deals, decisions (with their
probes) and result, written and read back."""

from __future__ import annotations

import math
from collections.abc import Sequence

from arena import __version__
from arena.errors import ConfigError, WireError
from arena.match.outcome import (
    DealScored,
    DealStart,
    DecisionRecord,
    EngineInfo,
    LaunchKind,
    MatchHeader,
    MatchResult,
    ProbeRecord,
    SeatLaunch,
)
from arena.match.settings import (
    ClockSettings,
    FaultPolicy,
    MatchSettings,
    OnFault,
    SandboxMode,
    SandboxSettings,
    Substitute,
)
from arena.rules import (
    FinishedDeal,
)
from arena.timestamps import utc_now
from arena.wire.convert.game import (
    card_set_to_pb,
    cards_from_pb,
    deal_result_from_pb,
    deal_result_to_pb,
    fault_from_pb,
    fault_to_pb,
    mask_from_pb,
    match_result_from_pb,
    match_result_to_pb,
    milliseconds,
    move_from_pb,
    move_to_pb,
    play_from_pb,
    play_to_pb,
    set_cards,
    side_scores_from_pb,
    variant_from_pb,
    variant_to_pb,
)
from arena.wire.v1 import log_pb2
from arena.wire.v1 import scopa_pb2 as pb

_ON_FAULT_TO_PB = {
    OnFault.LOSE: log_pb2.ON_FAULT_LOSE,
    OnFault.SUBSTITUTE: log_pb2.ON_FAULT_SUBSTITUTE,
}
_ON_FAULT_FROM_PB = {v: k for k, v in _ON_FAULT_TO_PB.items()}
_SANDBOX_MODE_TO_PB = {
    SandboxMode.AUTO: log_pb2.SANDBOX_MODE_AUTO,
    SandboxMode.ON: log_pb2.SANDBOX_MODE_ON,
    SandboxMode.OFF: log_pb2.SANDBOX_MODE_OFF,
}
_SANDBOX_MODE_FROM_PB = {v: k for k, v in _SANDBOX_MODE_TO_PB.items()}
_LAUNCH_TO_PB = {
    LaunchKind.COMMAND: log_pb2.LAUNCH_KIND_COMMAND,
    LaunchKind.ADDRESS: log_pb2.LAUNCH_KIND_ADDRESS,
    LaunchKind.BUILTIN: log_pb2.LAUNCH_KIND_BUILTIN,
    LaunchKind.CONNECTION: log_pb2.LAUNCH_KIND_CONNECTION,
    LaunchKind.HUMAN: log_pb2.LAUNCH_KIND_HUMAN,
}
_LAUNCH_FROM_PB = {v: k for k, v in _LAUNCH_TO_PB.items()}


# Match logs --------------------------------------------------------------------


def log_header(
    settings: MatchSettings,
    engines: Sequence[EngineInfo],
    first_dealer: int,
    format_version: int,
    launches: Sequence[SeatLaunch] = (),
    source_revision: str = "",
) -> log_pb2.LogRecord:
    """The header record. ``launches``: how each seat's engine was reached, in
    seat order (none for a log whose writer was not told)."""
    header = log_pb2.LogHeader(
        format_version=format_version,
        match_id=settings.match_id,
        variant=variant_to_pb(settings.variant),
        engines=[
            log_pb2.EngineRecord(
                seat=e.seat,
                name=e.name,
                engine_name=e.engine_name,
                engine_version=e.engine_version,
                author=e.author,
                confinement=e.confinement,
            )
            for e in engines
        ],
        clock=_clock_settings_to_pb(settings.clock),
        seed=settings.seed & (2**64 - 1),
        first_dealer=first_dealer,
        started_at=utc_now(),
        arena_version=__version__,
        schedule_id=settings.schedule_id,
        fault_policy=log_pb2.FaultPolicy(
            on_fault=_ON_FAULT_TO_PB[settings.policy.on_fault],
            strikes=settings.policy.strikes,
            substitute=settings.policy.substitute,
        ),
        startup_timeout_ms=milliseconds(settings.startup_timeout),
        handshake_timeout_ms=milliseconds(settings.handshake_timeout),
        notify_timeout_ms=milliseconds(settings.notify_timeout),
        sandbox=_sandbox_to_pb(settings.sandbox),
        source_revision=source_revision,
    )
    for record, launch in zip(header.engines, launches, strict=False):
        record.launch.CopyFrom(_launch_to_pb(launch))
    return log_pb2.LogRecord(header=header)


def _clock_settings_to_pb(clock: ClockSettings) -> log_pb2.ClockSettings:
    return log_pb2.ClockSettings(
        move_time_ms=milliseconds(clock.move_time),
        bank_ms=milliseconds(clock.bank),
        increment_ms=milliseconds(clock.increment),
        grace_ms=milliseconds(clock.grace),
    )


def _clock_settings_from_pb(msg: log_pb2.ClockSettings) -> ClockSettings:
    try:
        return ClockSettings(
            move_time=msg.move_time_ms / 1000 or None,
            bank=msg.bank_ms / 1000 or None,
            increment=msg.increment_ms / 1000,
            grace=msg.grace_ms / 1000,
        )
    except ConfigError as e:
        raise WireError(f"clock: {e}") from None


def _sandbox_to_pb(s: SandboxSettings) -> log_pb2.SandboxSettings:
    return log_pb2.SandboxSettings(
        mode=_SANDBOX_MODE_TO_PB[s.mode],
        memory_mib=s.memory_mib,
        processes=s.processes,
        disk_mib=s.disk_mib,
    )


def _sandbox_from_pb(msg: log_pb2.SandboxSettings) -> SandboxSettings:
    mode = _SANDBOX_MODE_FROM_PB.get(msg.mode)
    if mode is None:
        raise WireError(f"unknown sandbox mode {msg.mode}")
    try:
        return SandboxSettings(mode, msg.memory_mib, msg.processes, msg.disk_mib)
    except ConfigError as e:
        raise WireError(str(e)) from None


def _launch_to_pb(launch: SeatLaunch) -> log_pb2.Launch:
    msg = log_pb2.Launch(
        kind=_LAUNCH_TO_PB[launch.kind],
        program=launch.program,
        command_sha256=bytes.fromhex(launch.command_sha256),
        address=launch.address,
        builtin=launch.builtin,
    )
    if launch.sandbox is not None:
        msg.sandbox.CopyFrom(_sandbox_to_pb(launch.sandbox))
    if launch.clock is not None:
        msg.clock.CopyFrom(_clock_settings_to_pb(launch.clock))
    return msg


def _launch_from_pb(msg: log_pb2.Launch, seat: int) -> SeatLaunch:
    kind = _LAUNCH_FROM_PB.get(msg.kind)
    if kind is None:
        raise WireError(f"engine of seat {seat}: unknown launch kind {msg.kind}")
    if kind is LaunchKind.COMMAND and len(msg.command_sha256) != 32:
        raise WireError(f"engine of seat {seat}: a command digest is 32 bytes")
    try:
        sandbox = _sandbox_from_pb(msg.sandbox) if msg.HasField("sandbox") else None
        clock = _clock_settings_from_pb(msg.clock) if msg.HasField("clock") else None
    except WireError as e:
        raise WireError(f"engine of seat {seat}: {e}") from None
    return SeatLaunch(
        kind, msg.program, msg.command_sha256.hex(), msg.address, msg.builtin, sandbox, clock
    )


def deal_started_record(
    number: int, dealer: int, deck: Sequence[int], void_decks: Sequence[Sequence[int]]
) -> log_pb2.LogRecord:
    started = log_pb2.DealStarted(deal_number=number, dealer=dealer)
    set_cards(started.deck, deck)
    for void in void_decks:
        set_cards(started.void_decks.add().cards, void)
    return log_pb2.LogRecord(deal_started=started)


def decision_record(r: DecisionRecord) -> log_pb2.LogRecord:
    decision = log_pb2.Decision(
        deal_number=r.deal_number,
        decision=r.decision,
        seat=r.seat,
        think_time_us=round(r.think_time * 1e6) if math.isfinite(r.think_time) else 0,
        scopa=r.scopa,
        comment=r.comment,
    )
    if r.deadline is not None:
        decision.deadline_ms = milliseconds(r.deadline)
    if r.bank_left is not None:
        decision.bank_left_ms = milliseconds(r.bank_left)
    if r.move is not None:
        move_to_pb(r.move, decision.move)
    if r.fault is not None:
        decision.fault.CopyFrom(fault_to_pb(r.fault))
    for probe in r.probes:
        msg = decision.probes.add(
            match_id=probe.match_id,
            problem=probe.problem,
            think_time_us=round(probe.think_time * 1e6) if math.isfinite(probe.think_time) else 0,
        )
        msg.hands.extend(card_set_to_pb(hand) for hand in probe.hands)
        if probe.move is not None:
            move_to_pb(probe.move, msg.move)
    return log_pb2.LogRecord(decision=decision)


def probe_from_pb(msg: log_pb2.Probe) -> ProbeRecord:
    move = move_from_pb(msg.move, "a probe's move") if msg.HasField("move") else None
    hands = tuple(mask_from_pb(h.cards, "a probe's hand") for h in msg.hands)
    return ProbeRecord(msg.match_id, hands, move, msg.problem, msg.think_time_us / 1e6)


def deal_ended_record(deal: FinishedDeal) -> log_pb2.LogRecord:
    return log_pb2.LogRecord(deal_ended=log_pb2.DealEnded(result=deal_result_to_pb(deal)))


def log_entry_from_pb(
    record: log_pb2.LogRecord,
) -> MatchHeader | DealStart | DecisionRecord | DealScored | MatchResult:
    """One record of a match log as a plain value; WireError if it holds
    something that is not a valid value (the log may have been tampered with)."""
    kind = record.WhichOneof("record")
    if kind == "header":
        return _header_from_pb(record.header)
    if kind == "deal_started":
        started = record.deal_started
        return DealStart(
            started.deal_number,
            started.dealer,
            tuple(cards_from_pb(started.deck, "deck")),
            tuple(tuple(cards_from_pb(d.cards, "void deck")) for d in started.void_decks),
        )
    if kind == "decision":
        d = record.decision
        move = move_from_pb(d.move, "the logged move") if d.HasField("move") else None
        fault = fault_from_pb(d.fault) if d.HasField("fault") else None
        think = d.think_time_us / 1e6
        deadline = d.deadline_ms / 1000 if d.HasField("deadline_ms") else None  # version 1
        bank = d.bank_left_ms / 1000 if d.HasField("bank_left_ms") else None
        return DecisionRecord(
            deal_number=d.deal_number,
            decision=d.decision,
            seat=d.seat,
            move=move,
            think_time=think,
            fault=fault,
            scopa=d.scopa,
            comment=d.comment,
            deadline=deadline,
            bank_left=bank,
            probes=tuple(probe_from_pb(p) for p in d.probes),
        )
    if kind == "deal_ended":
        return deal_result_from_pb(record.deal_ended.result)
    if kind == "match_ended":
        return match_result_from_pb(record.match_ended.result)
    raise WireError("a record of no known kind")


def _header_from_pb(h: log_pb2.LogHeader) -> MatchHeader:
    engines = sorted(h.engines, key=lambda e: e.seat)
    clock = _clock_settings_from_pb(h.clock)
    policy = None
    if h.HasField("fault_policy"):
        on_fault = _ON_FAULT_FROM_PB.get(h.fault_policy.on_fault)
        if on_fault is None:
            raise WireError(f"fault policy: unknown kind {h.fault_policy.on_fault}")
        try:
            substitute = Substitute.parse(h.fault_policy.substitute)
            policy = FaultPolicy(on_fault, h.fault_policy.strikes, substitute)
        except ConfigError as e:
            raise WireError(f"fault policy: {e}") from None
    sandbox = _sandbox_from_pb(h.sandbox) if h.HasField("sandbox") else None
    launches = [e for e in engines if e.HasField("launch")]
    if launches and len(launches) != len(engines):
        raise WireError("some engines have a launch record and some do not")
    return MatchHeader(
        format_version=h.format_version,
        match_id=h.match_id,
        variant=variant_from_pb(h.variant),
        engines=tuple(
            EngineInfo(e.seat, e.name, e.engine_name, e.engine_version, e.author, e.confinement)
            for e in engines
        ),
        clock=clock,
        seed=h.seed,
        first_dealer=h.first_dealer,
        started_at=h.started_at,
        arena_version=h.arena_version,
        schedule_id=h.schedule_id,
        policy=policy,
        startup_timeout=h.startup_timeout_ms / 1000,
        handshake_timeout=h.handshake_timeout_ms / 1000,
        notify_timeout=h.notify_timeout_ms / 1000,
        sandbox=sandbox,
        launches=tuple(_launch_from_pb(e.launch, e.seat) for e in launches),
        source_revision=h.source_revision,
    )


def match_ended_record(result: MatchResult) -> log_pb2.LogRecord:
    ended = log_pb2.MatchEnded(result=match_result_to_pb(result), finished_at=utc_now())
    return log_pb2.LogRecord(match_ended=ended)


def finished_deal_to_pb(
    deal: FinishedDeal,
) -> tuple[log_pb2.DealStarted, list[pb.Play], pb.DealResult]:
    """A finished deal as the three things a log stores: the DealStarted record
    (deck and void decks), the plays, and the DealResult."""
    started = deal_started_record(deal.number, deal.dealer, deal.deck, deal.void_decks)
    return started.deal_started, [play_to_pb(p) for p in deal.plays], deal_result_to_pb(deal)


def finished_deal_from_pb(
    started: log_pb2.DealStarted, plays: Sequence[pb.Play], result: pb.DealResult
) -> FinishedDeal:
    leftover = None
    if result.HasField("leftover_side"):
        leftover = (result.leftover_side, mask_from_pb(result.leftover, "leftover"))
    return FinishedDeal(
        number=started.deal_number,
        dealer=started.dealer,
        deck=tuple(cards_from_pb(started.deck, "deck")),
        void_decks=tuple(tuple(cards_from_pb(d.cards, "void deck")) for d in started.void_decks),
        plays=tuple(play_from_pb(p, f"plays[{i}]") for i, p in enumerate(plays)),
        leftover=leftover,
        score=side_scores_from_pb(result.sides),
        totals=tuple(result.match_scores),
    )
