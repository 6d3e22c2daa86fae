from arena.wire.v1 import scopa_pb2 as _scopa_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ProtocolVersion(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PROTOCOL_VERSION_UNSPECIFIED: _ClassVar[ProtocolVersion]
    PROTOCOL_VERSION_1: _ClassVar[ProtocolVersion]
PROTOCOL_VERSION_UNSPECIFIED: ProtocolVersion
PROTOCOL_VERSION_1: ProtocolVersion

class HandshakeRequest(_message.Message):
    __slots__ = ("protocol_version", "arena_version", "max_message_bytes", "variant")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    ARENA_VERSION_FIELD_NUMBER: _ClassVar[int]
    MAX_MESSAGE_BYTES_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    protocol_version: ProtocolVersion
    arena_version: str
    max_message_bytes: int
    variant: _scopa_pb2.Variant
    def __init__(self, protocol_version: _Optional[_Union[ProtocolVersion, str]] = ..., arena_version: _Optional[str] = ..., max_message_bytes: _Optional[int] = ..., variant: _Optional[_Union[_scopa_pb2.Variant, _Mapping]] = ...) -> None: ...

class HandshakeResponse(_message.Message):
    __slots__ = ("name", "version", "author", "protocol_version", "games", "options")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    author: str
    protocol_version: ProtocolVersion
    games: _containers.RepeatedScalarFieldContainer[_scopa_pb2.Game]
    options: _containers.RepeatedScalarFieldContainer[_scopa_pb2.VariantOption]
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., author: _Optional[str] = ..., protocol_version: _Optional[_Union[ProtocolVersion, str]] = ..., games: _Optional[_Iterable[_Union[_scopa_pb2.Game, str]]] = ..., options: _Optional[_Iterable[_Union[_scopa_pb2.VariantOption, str]]] = ...) -> None: ...

class Clock(_message.Message):
    __slots__ = ("move_time_ms", "bank_ms", "increment_ms", "deadline_ms")
    MOVE_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    INCREMENT_MS_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_MS_FIELD_NUMBER: _ClassVar[int]
    move_time_ms: int
    bank_ms: int
    increment_ms: int
    deadline_ms: int
    def __init__(self, move_time_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., increment_ms: _Optional[int] = ..., deadline_ms: _Optional[int] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("match_id", "observation", "legal_moves", "clock", "decision")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_MOVES_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    observation: _scopa_pb2.Observation
    legal_moves: _containers.RepeatedCompositeFieldContainer[_scopa_pb2.Move]
    clock: Clock
    decision: int
    def __init__(self, match_id: _Optional[str] = ..., observation: _Optional[_Union[_scopa_pb2.Observation, _Mapping]] = ..., legal_moves: _Optional[_Iterable[_Union[_scopa_pb2.Move, _Mapping]]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., decision: _Optional[int] = ...) -> None: ...

class DecisionResponse(_message.Message):
    __slots__ = ("move", "comment")
    MOVE_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    move: _scopa_pb2.Move
    comment: str
    def __init__(self, move: _Optional[_Union[_scopa_pb2.Move, _Mapping]] = ..., comment: _Optional[str] = ...) -> None: ...

class Ack(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class SeatInfo(_message.Message):
    __slots__ = ("seat", "engine_name", "engine_version")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ENGINE_NAME_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    engine_name: str
    engine_version: str
    def __init__(self, seat: _Optional[int] = ..., engine_name: _Optional[str] = ..., engine_version: _Optional[str] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "variant", "seat", "seats", "clock", "first_dealer")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    FIRST_DEALER_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    variant: _scopa_pb2.Variant
    seat: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatInfo]
    clock: Clock
    first_dealer: int
    def __init__(self, match_id: _Optional[str] = ..., variant: _Optional[_Union[_scopa_pb2.Variant, _Mapping]] = ..., seat: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatInfo, _Mapping]]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., first_dealer: _Optional[int] = ...) -> None: ...

class DealEnd(_message.Message):
    __slots__ = ("match_id", "seat", "result", "plays")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    result: _scopa_pb2.DealResult
    plays: _containers.RepeatedCompositeFieldContainer[_scopa_pb2.Play]
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., result: _Optional[_Union[_scopa_pb2.DealResult, _Mapping]] = ..., plays: _Optional[_Iterable[_Union[_scopa_pb2.Play, _Mapping]]] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("match_id", "seat", "result")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    seat: int
    result: _scopa_pb2.MatchResult
    def __init__(self, match_id: _Optional[str] = ..., seat: _Optional[int] = ..., result: _Optional[_Union[_scopa_pb2.MatchResult, _Mapping]] = ...) -> None: ...
