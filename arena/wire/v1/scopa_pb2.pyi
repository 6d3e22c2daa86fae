from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Suit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SUIT_UNSPECIFIED: _ClassVar[Suit]
    DENARI: _ClassVar[Suit]
    COPPE: _ClassVar[Suit]
    SPADE: _ClassVar[Suit]
    BASTONI: _ClassVar[Suit]

class Game(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_UNSPECIFIED: _ClassVar[Game]
    SCOPA: _ClassVar[Game]
    SCOPA_A_QUATTRO: _ClassVar[Game]
    SCOPONE: _ClassVar[Game]
    SCOPONE_SCIENTIFICO: _ClassVar[Game]
    SCOPA_A_SEI: _ClassVar[Game]
    SCOPA_A_TRE: _ClassVar[Game]

class VariantOption(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VARIANT_OPTION_UNSPECIFIED: _ClassVar[VariantOption]
    OPTION_NONE: _ClassVar[VariantOption]
    OPTION_FEWEST_CARDS: _ClassVar[VariantOption]
    OPTION_LEFTOVERS_TO_LAST_PLAYER: _ClassVar[VariantOption]
    OPTION_RE_BELLO: _ClassVar[VariantOption]
    OPTION_NAPOLA: _ClassVar[VariantOption]
    OPTION_LAST_SWEEP: _ClassVar[VariantOption]
    OPTION_ACE_TAKES_ALL: _ClassVar[VariantOption]
    OPTION_ACE_SWEEP_SCORES: _ClassVar[VariantOption]
    OPTION_NAPOLEONE: _ClassVar[VariantOption]
    OPTION_FIFTEEN: _ClassVar[VariantOption]
    OPTION_FIFTEEN_ORDINARY: _ClassVar[VariantOption]
    OPTION_OPENING_FIFTEEN: _ClassVar[VariantOption]
    OPTION_ACES_VOID: _ClassVar[VariantOption]
    OPTION_PICCOLA: _ClassVar[VariantOption]
    OPTION_GRANDE: _ClassVar[VariantOption]
    OPTION_DECLARATIONS: _ClassVar[VariantOption]
    OPTION_MATTA: _ClassVar[VariantOption]

class Declaration(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECLARATION_NONE: _ClassVar[Declaration]
    DECLARATION_CIRULLA: _ClassVar[Declaration]
    DECLARATION_DECINO: _ClassVar[Declaration]

class Termination(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TERMINATION_UNSPECIFIED: _ClassVar[Termination]
    COMPLETED: _ClassVar[Termination]
    FORFEIT: _ClassVar[Termination]
    VOID: _ClassVar[Termination]
    ABORTED: _ClassVar[Termination]
    NO_CONTEST: _ClassVar[Termination]

class FaultKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_KIND_UNSPECIFIED: _ClassVar[FaultKind]
    TIMEOUT: _ClassVar[FaultKind]
    ILLEGAL: _ClassVar[FaultKind]
    MALFORMED: _ClassVar[FaultKind]
    CRASH: _ClassVar[FaultKind]
    STALL: _ClassVar[FaultKind]
SUIT_UNSPECIFIED: Suit
DENARI: Suit
COPPE: Suit
SPADE: Suit
BASTONI: Suit
GAME_UNSPECIFIED: Game
SCOPA: Game
SCOPA_A_QUATTRO: Game
SCOPONE: Game
SCOPONE_SCIENTIFICO: Game
SCOPA_A_SEI: Game
SCOPA_A_TRE: Game
VARIANT_OPTION_UNSPECIFIED: VariantOption
OPTION_NONE: VariantOption
OPTION_FEWEST_CARDS: VariantOption
OPTION_LEFTOVERS_TO_LAST_PLAYER: VariantOption
OPTION_RE_BELLO: VariantOption
OPTION_NAPOLA: VariantOption
OPTION_LAST_SWEEP: VariantOption
OPTION_ACE_TAKES_ALL: VariantOption
OPTION_ACE_SWEEP_SCORES: VariantOption
OPTION_NAPOLEONE: VariantOption
OPTION_FIFTEEN: VariantOption
OPTION_FIFTEEN_ORDINARY: VariantOption
OPTION_OPENING_FIFTEEN: VariantOption
OPTION_ACES_VOID: VariantOption
OPTION_PICCOLA: VariantOption
OPTION_GRANDE: VariantOption
OPTION_DECLARATIONS: VariantOption
OPTION_MATTA: VariantOption
DECLARATION_NONE: Declaration
DECLARATION_CIRULLA: Declaration
DECLARATION_DECINO: Declaration
TERMINATION_UNSPECIFIED: Termination
COMPLETED: Termination
FORFEIT: Termination
VOID: Termination
ABORTED: Termination
NO_CONTEST: Termination
FAULT_KIND_UNSPECIFIED: FaultKind
TIMEOUT: FaultKind
ILLEGAL: FaultKind
MALFORMED: FaultKind
CRASH: FaultKind
STALL: FaultKind

class Card(_message.Message):
    __slots__ = ("suit", "rank")
    SUIT_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    suit: Suit
    rank: int
    def __init__(self, suit: _Optional[_Union[Suit, str]] = ..., rank: _Optional[int] = ...) -> None: ...

class Variant(_message.Message):
    __slots__ = ("game", "target", "deal_limit", "fewest_cards", "leftovers_to_last_player", "re_bello", "napola", "last_sweep", "ace_takes_all", "ace_sweep_scores", "napoleone", "fifteen", "fifteen_ordinary", "opening_fifteen", "aces_void", "piccola", "grande", "declarations", "matta")
    GAME_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    DEAL_LIMIT_FIELD_NUMBER: _ClassVar[int]
    FEWEST_CARDS_FIELD_NUMBER: _ClassVar[int]
    LEFTOVERS_TO_LAST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    RE_BELLO_FIELD_NUMBER: _ClassVar[int]
    NAPOLA_FIELD_NUMBER: _ClassVar[int]
    LAST_SWEEP_FIELD_NUMBER: _ClassVar[int]
    ACE_TAKES_ALL_FIELD_NUMBER: _ClassVar[int]
    ACE_SWEEP_SCORES_FIELD_NUMBER: _ClassVar[int]
    NAPOLEONE_FIELD_NUMBER: _ClassVar[int]
    FIFTEEN_FIELD_NUMBER: _ClassVar[int]
    FIFTEEN_ORDINARY_FIELD_NUMBER: _ClassVar[int]
    OPENING_FIFTEEN_FIELD_NUMBER: _ClassVar[int]
    ACES_VOID_FIELD_NUMBER: _ClassVar[int]
    PICCOLA_FIELD_NUMBER: _ClassVar[int]
    GRANDE_FIELD_NUMBER: _ClassVar[int]
    DECLARATIONS_FIELD_NUMBER: _ClassVar[int]
    MATTA_FIELD_NUMBER: _ClassVar[int]
    game: Game
    target: int
    deal_limit: int
    fewest_cards: bool
    leftovers_to_last_player: bool
    re_bello: bool
    napola: bool
    last_sweep: bool
    ace_takes_all: bool
    ace_sweep_scores: bool
    napoleone: bool
    fifteen: bool
    fifteen_ordinary: bool
    opening_fifteen: bool
    aces_void: bool
    piccola: bool
    grande: bool
    declarations: bool
    matta: bool
    def __init__(self, game: _Optional[_Union[Game, str]] = ..., target: _Optional[int] = ..., deal_limit: _Optional[int] = ..., fewest_cards: _Optional[bool] = ..., leftovers_to_last_player: _Optional[bool] = ..., re_bello: _Optional[bool] = ..., napola: _Optional[bool] = ..., last_sweep: _Optional[bool] = ..., ace_takes_all: _Optional[bool] = ..., ace_sweep_scores: _Optional[bool] = ..., napoleone: _Optional[bool] = ..., fifteen: _Optional[bool] = ..., fifteen_ordinary: _Optional[bool] = ..., opening_fifteen: _Optional[bool] = ..., aces_void: _Optional[bool] = ..., piccola: _Optional[bool] = ..., grande: _Optional[bool] = ..., declarations: _Optional[bool] = ..., matta: _Optional[bool] = ...) -> None: ...

class Declared(_message.Message):
    __slots__ = ("seat", "kind", "hand", "play")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: Declaration
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    play: int
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[Declaration, str]] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., play: _Optional[int] = ...) -> None: ...

class Move(_message.Message):
    __slots__ = ("card", "captures", "declaration")
    CARD_FIELD_NUMBER: _ClassVar[int]
    CAPTURES_FIELD_NUMBER: _ClassVar[int]
    DECLARATION_FIELD_NUMBER: _ClassVar[int]
    card: Card
    captures: _containers.RepeatedCompositeFieldContainer[Card]
    declaration: Declaration
    def __init__(self, card: _Optional[_Union[Card, _Mapping]] = ..., captures: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., declaration: _Optional[_Union[Declaration, str]] = ...) -> None: ...

class Play(_message.Message):
    __slots__ = ("seat", "move", "scopa")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    SCOPA_FIELD_NUMBER: _ClassVar[int]
    seat: int
    move: Move
    scopa: bool
    def __init__(self, seat: _Optional[int] = ..., move: _Optional[_Union[Move, _Mapping]] = ..., scopa: _Optional[bool] = ...) -> None: ...

class SideScore(_message.Message):
    __slots__ = ("scope", "cards", "denari", "settebello", "primiera", "carte_point", "denari_point", "settebello_point", "primiera_point", "total", "re_bello", "re_bello_point", "napola_point", "grande_point", "declared_point")
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    DENARI_FIELD_NUMBER: _ClassVar[int]
    SETTEBELLO_FIELD_NUMBER: _ClassVar[int]
    PRIMIERA_FIELD_NUMBER: _ClassVar[int]
    CARTE_POINT_FIELD_NUMBER: _ClassVar[int]
    DENARI_POINT_FIELD_NUMBER: _ClassVar[int]
    SETTEBELLO_POINT_FIELD_NUMBER: _ClassVar[int]
    PRIMIERA_POINT_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    RE_BELLO_FIELD_NUMBER: _ClassVar[int]
    RE_BELLO_POINT_FIELD_NUMBER: _ClassVar[int]
    NAPOLA_POINT_FIELD_NUMBER: _ClassVar[int]
    GRANDE_POINT_FIELD_NUMBER: _ClassVar[int]
    DECLARED_POINT_FIELD_NUMBER: _ClassVar[int]
    scope: int
    cards: int
    denari: int
    settebello: bool
    primiera: int
    carte_point: int
    denari_point: int
    settebello_point: int
    primiera_point: int
    total: int
    re_bello: bool
    re_bello_point: int
    napola_point: int
    grande_point: int
    declared_point: int
    def __init__(self, scope: _Optional[int] = ..., cards: _Optional[int] = ..., denari: _Optional[int] = ..., settebello: _Optional[bool] = ..., primiera: _Optional[int] = ..., carte_point: _Optional[int] = ..., denari_point: _Optional[int] = ..., settebello_point: _Optional[int] = ..., primiera_point: _Optional[int] = ..., total: _Optional[int] = ..., re_bello: _Optional[bool] = ..., re_bello_point: _Optional[int] = ..., napola_point: _Optional[int] = ..., grande_point: _Optional[int] = ..., declared_point: _Optional[int] = ...) -> None: ...

class DealResult(_message.Message):
    __slots__ = ("deal_number", "dealer", "sides", "match_scores", "leftover_side", "leftover")
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    MATCH_SCORES_FIELD_NUMBER: _ClassVar[int]
    LEFTOVER_SIDE_FIELD_NUMBER: _ClassVar[int]
    LEFTOVER_FIELD_NUMBER: _ClassVar[int]
    deal_number: int
    dealer: int
    sides: _containers.RepeatedCompositeFieldContainer[SideScore]
    match_scores: _containers.RepeatedScalarFieldContainer[int]
    leftover_side: int
    leftover: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, deal_number: _Optional[int] = ..., dealer: _Optional[int] = ..., sides: _Optional[_Iterable[_Union[SideScore, _Mapping]]] = ..., match_scores: _Optional[_Iterable[int]] = ..., leftover_side: _Optional[int] = ..., leftover: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class CardSet(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("variant", "seat", "deal_number", "dealer", "to_move", "hand", "table", "hand_sizes", "stock_count", "plays", "captured_counts", "scope", "match_scores", "captured_cards", "last_capture_seat", "opening_table", "declarations")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    CAPTURED_COUNTS_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    MATCH_SCORES_FIELD_NUMBER: _ClassVar[int]
    CAPTURED_CARDS_FIELD_NUMBER: _ClassVar[int]
    LAST_CAPTURE_SEAT_FIELD_NUMBER: _ClassVar[int]
    OPENING_TABLE_FIELD_NUMBER: _ClassVar[int]
    DECLARATIONS_FIELD_NUMBER: _ClassVar[int]
    variant: Variant
    seat: int
    deal_number: int
    dealer: int
    to_move: int
    hand: _containers.RepeatedCompositeFieldContainer[Card]
    table: _containers.RepeatedCompositeFieldContainer[Card]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    stock_count: int
    plays: _containers.RepeatedCompositeFieldContainer[Play]
    captured_counts: _containers.RepeatedScalarFieldContainer[int]
    scope: _containers.RepeatedScalarFieldContainer[int]
    match_scores: _containers.RepeatedScalarFieldContainer[int]
    captured_cards: _containers.RepeatedCompositeFieldContainer[CardSet]
    last_capture_seat: int
    opening_table: _containers.RepeatedCompositeFieldContainer[Card]
    declarations: _containers.RepeatedCompositeFieldContainer[Declared]
    def __init__(self, variant: _Optional[_Union[Variant, _Mapping]] = ..., seat: _Optional[int] = ..., deal_number: _Optional[int] = ..., dealer: _Optional[int] = ..., to_move: _Optional[int] = ..., hand: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., table: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., stock_count: _Optional[int] = ..., plays: _Optional[_Iterable[_Union[Play, _Mapping]]] = ..., captured_counts: _Optional[_Iterable[int]] = ..., scope: _Optional[_Iterable[int]] = ..., match_scores: _Optional[_Iterable[int]] = ..., captured_cards: _Optional[_Iterable[_Union[CardSet, _Mapping]]] = ..., last_capture_seat: _Optional[int] = ..., opening_table: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., declarations: _Optional[_Iterable[_Union[Declared, _Mapping]]] = ...) -> None: ...

class PublicView(_message.Message):
    __slots__ = ("variant", "deal_number", "dealer", "to_move", "table", "hand_sizes", "stock_count", "plays", "captured_counts", "scope", "match_scores", "captured_cards", "last_capture_seat", "opening_table", "declarations")
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    PLAYS_FIELD_NUMBER: _ClassVar[int]
    CAPTURED_COUNTS_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    MATCH_SCORES_FIELD_NUMBER: _ClassVar[int]
    CAPTURED_CARDS_FIELD_NUMBER: _ClassVar[int]
    LAST_CAPTURE_SEAT_FIELD_NUMBER: _ClassVar[int]
    OPENING_TABLE_FIELD_NUMBER: _ClassVar[int]
    DECLARATIONS_FIELD_NUMBER: _ClassVar[int]
    variant: Variant
    deal_number: int
    dealer: int
    to_move: int
    table: _containers.RepeatedCompositeFieldContainer[Card]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    stock_count: int
    plays: _containers.RepeatedCompositeFieldContainer[Play]
    captured_counts: _containers.RepeatedScalarFieldContainer[int]
    scope: _containers.RepeatedScalarFieldContainer[int]
    match_scores: _containers.RepeatedScalarFieldContainer[int]
    captured_cards: _containers.RepeatedCompositeFieldContainer[CardSet]
    last_capture_seat: int
    opening_table: _containers.RepeatedCompositeFieldContainer[Card]
    declarations: _containers.RepeatedCompositeFieldContainer[Declared]
    def __init__(self, variant: _Optional[_Union[Variant, _Mapping]] = ..., deal_number: _Optional[int] = ..., dealer: _Optional[int] = ..., to_move: _Optional[int] = ..., table: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., stock_count: _Optional[int] = ..., plays: _Optional[_Iterable[_Union[Play, _Mapping]]] = ..., captured_counts: _Optional[_Iterable[int]] = ..., scope: _Optional[_Iterable[int]] = ..., match_scores: _Optional[_Iterable[int]] = ..., captured_cards: _Optional[_Iterable[_Union[CardSet, _Mapping]]] = ..., last_capture_seat: _Optional[int] = ..., opening_table: _Optional[_Iterable[_Union[Card, _Mapping]]] = ..., declarations: _Optional[_Iterable[_Union[Declared, _Mapping]]] = ...) -> None: ...

class Fault(_message.Message):
    __slots__ = ("seat", "kind", "deal_number", "decision", "message", "at_startup")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    AT_STARTUP_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: FaultKind
    deal_number: int
    decision: int
    message: str
    at_startup: bool
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[FaultKind, str]] = ..., deal_number: _Optional[int] = ..., decision: _Optional[int] = ..., message: _Optional[str] = ..., at_startup: _Optional[bool] = ...) -> None: ...

class MatchResult(_message.Message):
    __slots__ = ("final_scores", "winner_side", "termination", "reason", "faults", "deals_played")
    FINAL_SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNER_SIDE_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    DEALS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    final_scores: _containers.RepeatedScalarFieldContainer[int]
    winner_side: int
    termination: Termination
    reason: str
    faults: _containers.RepeatedCompositeFieldContainer[Fault]
    deals_played: int
    def __init__(self, final_scores: _Optional[_Iterable[int]] = ..., winner_side: _Optional[int] = ..., termination: _Optional[_Union[Termination, str]] = ..., reason: _Optional[str] = ..., faults: _Optional[_Iterable[_Union[Fault, _Mapping]]] = ..., deals_played: _Optional[int] = ...) -> None: ...
