from arena.wire.v1 import scopa_pb2 as _scopa_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class LaunchKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LAUNCH_KIND_UNSPECIFIED: _ClassVar[LaunchKind]
    LAUNCH_KIND_COMMAND: _ClassVar[LaunchKind]
    LAUNCH_KIND_ADDRESS: _ClassVar[LaunchKind]
    LAUNCH_KIND_BUILTIN: _ClassVar[LaunchKind]
    LAUNCH_KIND_CONNECTION: _ClassVar[LaunchKind]
    LAUNCH_KIND_HUMAN: _ClassVar[LaunchKind]

class SandboxMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SANDBOX_MODE_UNSPECIFIED: _ClassVar[SandboxMode]
    SANDBOX_MODE_AUTO: _ClassVar[SandboxMode]
    SANDBOX_MODE_ON: _ClassVar[SandboxMode]
    SANDBOX_MODE_OFF: _ClassVar[SandboxMode]

class OnFault(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ON_FAULT_UNSPECIFIED: _ClassVar[OnFault]
    ON_FAULT_LOSE: _ClassVar[OnFault]
    ON_FAULT_SUBSTITUTE: _ClassVar[OnFault]
LAUNCH_KIND_UNSPECIFIED: LaunchKind
LAUNCH_KIND_COMMAND: LaunchKind
LAUNCH_KIND_ADDRESS: LaunchKind
LAUNCH_KIND_BUILTIN: LaunchKind
LAUNCH_KIND_CONNECTION: LaunchKind
LAUNCH_KIND_HUMAN: LaunchKind
SANDBOX_MODE_UNSPECIFIED: SandboxMode
SANDBOX_MODE_AUTO: SandboxMode
SANDBOX_MODE_ON: SandboxMode
SANDBOX_MODE_OFF: SandboxMode
ON_FAULT_UNSPECIFIED: OnFault
ON_FAULT_LOSE: OnFault
ON_FAULT_SUBSTITUTE: OnFault

class EngineRecord(_message.Message):
    __slots__ = ("seat", "name", "engine_name", "engine_version", "author", "confinement", "launch")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ENGINE_NAME_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    CONFINEMENT_FIELD_NUMBER: _ClassVar[int]
    LAUNCH_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    engine_name: str
    engine_version: str
    author: str
    confinement: str
    launch: Launch
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ..., engine_name: _Optional[str] = ..., engine_version: _Optional[str] = ..., author: _Optional[str] = ..., confinement: _Optional[str] = ..., launch: _Optional[_Union[Launch, _Mapping]] = ...) -> None: ...

class Launch(_message.Message):
    __slots__ = ("kind", "program", "command_sha256", "address", "builtin", "sandbox", "clock")
    KIND_FIELD_NUMBER: _ClassVar[int]
    PROGRAM_FIELD_NUMBER: _ClassVar[int]
    COMMAND_SHA256_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    BUILTIN_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    kind: LaunchKind
    program: str
    command_sha256: bytes
    address: str
    builtin: str
    sandbox: SandboxSettings
    clock: ClockSettings
    def __init__(self, kind: _Optional[_Union[LaunchKind, str]] = ..., program: _Optional[str] = ..., command_sha256: _Optional[bytes] = ..., address: _Optional[str] = ..., builtin: _Optional[str] = ..., sandbox: _Optional[_Union[SandboxSettings, _Mapping]] = ..., clock: _Optional[_Union[ClockSettings, _Mapping]] = ...) -> None: ...

class SandboxSettings(_message.Message):
    __slots__ = ("mode", "memory_mib", "processes", "disk_mib")
    MODE_FIELD_NUMBER: _ClassVar[int]
    MEMORY_MIB_FIELD_NUMBER: _ClassVar[int]
    PROCESSES_FIELD_NUMBER: _ClassVar[int]
    DISK_MIB_FIELD_NUMBER: _ClassVar[int]
    mode: SandboxMode
    memory_mib: int
    processes: int
    disk_mib: int
    def __init__(self, mode: _Optional[_Union[SandboxMode, str]] = ..., memory_mib: _Optional[int] = ..., processes: _Optional[int] = ..., disk_mib: _Optional[int] = ...) -> None: ...

class FaultPolicy(_message.Message):
    __slots__ = ("on_fault", "strikes", "substitute")
    ON_FAULT_FIELD_NUMBER: _ClassVar[int]
    STRIKES_FIELD_NUMBER: _ClassVar[int]
    SUBSTITUTE_FIELD_NUMBER: _ClassVar[int]
    on_fault: OnFault
    strikes: int
    substitute: str
    def __init__(self, on_fault: _Optional[_Union[OnFault, str]] = ..., strikes: _Optional[int] = ..., substitute: _Optional[str] = ...) -> None: ...

class ClockSettings(_message.Message):
    __slots__ = ("move_time_ms", "bank_ms", "increment_ms", "grace_ms")
    MOVE_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_MS_FIELD_NUMBER: _ClassVar[int]
    GRACE_MS_FIELD_NUMBER: _ClassVar[int]
    move_time_ms: int
    bank_ms: int
    increment_ms: int
    grace_ms: int
    def __init__(self, move_time_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., increment_ms: _Optional[int] = ..., grace_ms: _Optional[int] = ...) -> None: ...

class LogHeader(_message.Message):
    __slots__ = ("format_version", "match_id", "variant", "engines", "clock", "seed", "first_dealer", "started_at", "arena_version", "schedule_id", "fault_policy", "startup_timeout_ms", "handshake_timeout_ms", "notify_timeout_ms", "sandbox", "source_revision")
    FORMAT_VERSION_FIELD_NUMBER: _ClassVar[int]
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    ENGINES_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    ARENA_VERSION_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_ID_FIELD_NUMBER: _ClassVar[int]
    FAULT_POLICY_FIELD_NUMBER: _ClassVar[int]
    STARTUP_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    HANDSHAKE_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    NOTIFY_TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_FIELD_NUMBER: _ClassVar[int]
    SOURCE_REVISION_FIELD_NUMBER: _ClassVar[int]
    format_version: int
    match_id: str
    variant: _scopa_pb2.Variant
    engines: _containers.RepeatedCompositeFieldContainer[EngineRecord]
    clock: ClockSettings
    seed: int
    first_dealer: int
    started_at: str
    arena_version: str
    schedule_id: str
    fault_policy: FaultPolicy
    startup_timeout_ms: int
    handshake_timeout_ms: int
    notify_timeout_ms: int
    sandbox: SandboxSettings
    source_revision: str
    def __init__(self, format_version: _Optional[int] = ..., match_id: _Optional[str] = ..., variant: _Optional[_Union[_scopa_pb2.Variant, _Mapping]] = ..., engines: _Optional[_Iterable[_Union[EngineRecord, _Mapping]]] = ..., clock: _Optional[_Union[ClockSettings, _Mapping]] = ..., seed: _Optional[int] = ..., first_dealer: _Optional[int] = ..., started_at: _Optional[str] = ..., arena_version: _Optional[str] = ..., schedule_id: _Optional[str] = ..., fault_policy: _Optional[_Union[FaultPolicy, _Mapping]] = ..., startup_timeout_ms: _Optional[int] = ..., handshake_timeout_ms: _Optional[int] = ..., notify_timeout_ms: _Optional[int] = ..., sandbox: _Optional[_Union[SandboxSettings, _Mapping]] = ..., source_revision: _Optional[str] = ...) -> None: ...

class DealStarted(_message.Message):
    __slots__ = ("deal_number", "dealer", "deck", "void_decks")
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    DECK_FIELD_NUMBER: _ClassVar[int]
    VOID_DECKS_FIELD_NUMBER: _ClassVar[int]
    deal_number: int
    dealer: int
    deck: _containers.RepeatedCompositeFieldContainer[_scopa_pb2.Card]
    void_decks: _containers.RepeatedCompositeFieldContainer[Deck]
    def __init__(self, deal_number: _Optional[int] = ..., dealer: _Optional[int] = ..., deck: _Optional[_Iterable[_Union[_scopa_pb2.Card, _Mapping]]] = ..., void_decks: _Optional[_Iterable[_Union[Deck, _Mapping]]] = ...) -> None: ...

class Deck(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[_scopa_pb2.Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[_scopa_pb2.Card, _Mapping]]] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("deal_number", "decision", "seat", "move", "think_time_us", "fault", "scopa", "comment", "deadline_ms", "bank_left_ms", "probes")
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    THINK_TIME_US_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    SCOPA_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    PROBES_FIELD_NUMBER: _ClassVar[int]
    deal_number: int
    decision: int
    seat: int
    move: _scopa_pb2.Move
    think_time_us: int
    fault: _scopa_pb2.Fault
    scopa: bool
    comment: str
    deadline_ms: int
    bank_left_ms: int
    probes: _containers.RepeatedCompositeFieldContainer[Probe]
    def __init__(self, deal_number: _Optional[int] = ..., decision: _Optional[int] = ..., seat: _Optional[int] = ..., move: _Optional[_Union[_scopa_pb2.Move, _Mapping]] = ..., think_time_us: _Optional[int] = ..., fault: _Optional[_Union[_scopa_pb2.Fault, _Mapping]] = ..., scopa: _Optional[bool] = ..., comment: _Optional[str] = ..., deadline_ms: _Optional[int] = ..., bank_left_ms: _Optional[int] = ..., probes: _Optional[_Iterable[_Union[Probe, _Mapping]]] = ...) -> None: ...

class Probe(_message.Message):
    __slots__ = ("match_id", "hands", "move", "problem", "think_time_us")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    HANDS_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    THINK_TIME_US_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    hands: _containers.RepeatedCompositeFieldContainer[_scopa_pb2.CardSet]
    move: _scopa_pb2.Move
    problem: str
    think_time_us: int
    def __init__(self, match_id: _Optional[str] = ..., hands: _Optional[_Iterable[_Union[_scopa_pb2.CardSet, _Mapping]]] = ..., move: _Optional[_Union[_scopa_pb2.Move, _Mapping]] = ..., problem: _Optional[str] = ..., think_time_us: _Optional[int] = ...) -> None: ...

class DealEnded(_message.Message):
    __slots__ = ("result",)
    RESULT_FIELD_NUMBER: _ClassVar[int]
    result: _scopa_pb2.DealResult
    def __init__(self, result: _Optional[_Union[_scopa_pb2.DealResult, _Mapping]] = ...) -> None: ...

class MatchEnded(_message.Message):
    __slots__ = ("result", "finished_at")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    result: _scopa_pb2.MatchResult
    finished_at: str
    def __init__(self, result: _Optional[_Union[_scopa_pb2.MatchResult, _Mapping]] = ..., finished_at: _Optional[str] = ...) -> None: ...

class LogRecord(_message.Message):
    __slots__ = ("header", "deal_started", "decision", "deal_ended", "match_ended", "chain")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    DEAL_STARTED_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    DEAL_ENDED_FIELD_NUMBER: _ClassVar[int]
    MATCH_ENDED_FIELD_NUMBER: _ClassVar[int]
    CHAIN_FIELD_NUMBER: _ClassVar[int]
    header: LogHeader
    deal_started: DealStarted
    decision: Decision
    deal_ended: DealEnded
    match_ended: MatchEnded
    chain: bytes
    def __init__(self, header: _Optional[_Union[LogHeader, _Mapping]] = ..., deal_started: _Optional[_Union[DealStarted, _Mapping]] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., deal_ended: _Optional[_Union[DealEnded, _Mapping]] = ..., match_ended: _Optional[_Union[MatchEnded, _Mapping]] = ..., chain: _Optional[bytes] = ...) -> None: ...
