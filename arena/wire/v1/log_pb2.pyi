from arena.wire.v1 import scopa_pb2 as _scopa_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EngineRecord(_message.Message):
    __slots__ = ("seat", "name", "engine_name", "engine_version", "author", "confinement")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ENGINE_NAME_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    CONFINEMENT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    name: str
    engine_name: str
    engine_version: str
    author: str
    confinement: str
    def __init__(self, seat: _Optional[int] = ..., name: _Optional[str] = ..., engine_name: _Optional[str] = ..., engine_version: _Optional[str] = ..., author: _Optional[str] = ..., confinement: _Optional[str] = ...) -> None: ...

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
    __slots__ = ("format_version", "match_id", "variant", "engines", "clock", "seed", "first_dealer", "started_at", "arena_version", "schedule_id")
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
    def __init__(self, format_version: _Optional[int] = ..., match_id: _Optional[str] = ..., variant: _Optional[_Union[_scopa_pb2.Variant, _Mapping]] = ..., engines: _Optional[_Iterable[_Union[EngineRecord, _Mapping]]] = ..., clock: _Optional[_Union[ClockSettings, _Mapping]] = ..., seed: _Optional[int] = ..., first_dealer: _Optional[int] = ..., started_at: _Optional[str] = ..., arena_version: _Optional[str] = ..., schedule_id: _Optional[str] = ...) -> None: ...

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
    __slots__ = ("deal_number", "decision", "seat", "move", "think_time_us", "fault", "scopa", "comment")
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    THINK_TIME_US_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    SCOPA_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    deal_number: int
    decision: int
    seat: int
    move: _scopa_pb2.Move
    think_time_us: int
    fault: _scopa_pb2.Fault
    scopa: bool
    comment: str
    def __init__(self, deal_number: _Optional[int] = ..., decision: _Optional[int] = ..., seat: _Optional[int] = ..., move: _Optional[_Union[_scopa_pb2.Move, _Mapping]] = ..., think_time_us: _Optional[int] = ..., fault: _Optional[_Union[_scopa_pb2.Fault, _Mapping]] = ..., scopa: _Optional[bool] = ..., comment: _Optional[str] = ...) -> None: ...

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
    __slots__ = ("header", "deal_started", "decision", "deal_ended", "match_ended")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    DEAL_STARTED_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    DEAL_ENDED_FIELD_NUMBER: _ClassVar[int]
    MATCH_ENDED_FIELD_NUMBER: _ClassVar[int]
    header: LogHeader
    deal_started: DealStarted
    decision: Decision
    deal_ended: DealEnded
    match_ended: MatchEnded
    def __init__(self, header: _Optional[_Union[LogHeader, _Mapping]] = ..., deal_started: _Optional[_Union[DealStarted, _Mapping]] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., deal_ended: _Optional[_Union[DealEnded, _Mapping]] = ..., match_ended: _Optional[_Union[MatchEnded, _Mapping]] = ...) -> None: ...
