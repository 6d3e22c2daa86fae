from arena.wire.v1 import scopa_pb2 as _scopa_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RegisterParticipantRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RegisterParticipantResponse(_message.Message):
    __slots__ = ("name", "token")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    name: str
    token: str
    def __init__(self, name: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class RegisterBotRequest(_message.Message):
    __slots__ = ("name", "address")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    name: str
    address: str
    def __init__(self, name: _Optional[str] = ..., address: _Optional[str] = ...) -> None: ...

class UpdateBotRequest(_message.Message):
    __slots__ = ("name", "address")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    name: str
    address: str
    def __init__(self, name: _Optional[str] = ..., address: _Optional[str] = ...) -> None: ...

class BotRef(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class BotInfo(_message.Message):
    __slots__ = ("name", "owner", "address", "engine_name", "engine_version", "withdrawn", "status", "status_detail", "last_seen", "seen_version")
    NAME_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ENGINE_NAME_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    WITHDRAWN_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STATUS_DETAIL_FIELD_NUMBER: _ClassVar[int]
    LAST_SEEN_FIELD_NUMBER: _ClassVar[int]
    SEEN_VERSION_FIELD_NUMBER: _ClassVar[int]
    name: str
    owner: str
    address: str
    engine_name: str
    engine_version: str
    withdrawn: bool
    status: str
    status_detail: str
    last_seen: str
    seen_version: str
    def __init__(self, name: _Optional[str] = ..., owner: _Optional[str] = ..., address: _Optional[str] = ..., engine_name: _Optional[str] = ..., engine_version: _Optional[str] = ..., withdrawn: _Optional[bool] = ..., status: _Optional[str] = ..., status_detail: _Optional[str] = ..., last_seen: _Optional[str] = ..., seen_version: _Optional[str] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("bots",)
    BOTS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[BotInfo]
    def __init__(self, bots: _Optional[_Iterable[_Union[BotInfo, _Mapping]]] = ...) -> None: ...

class CheckBotRequest(_message.Message):
    __slots__ = ("address",)
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    address: str
    def __init__(self, address: _Optional[str] = ...) -> None: ...

class CheckItem(_message.Message):
    __slots__ = ("name", "passed", "detail")
    NAME_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    name: str
    passed: bool
    detail: str
    def __init__(self, name: _Optional[str] = ..., passed: _Optional[bool] = ..., detail: _Optional[str] = ...) -> None: ...

class CheckReport(_message.Message):
    __slots__ = ("passed", "items")
    PASSED_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    passed: bool
    items: _containers.RepeatedCompositeFieldContainer[CheckItem]
    def __init__(self, passed: _Optional[bool] = ..., items: _Optional[_Iterable[_Union[CheckItem, _Mapping]]] = ...) -> None: ...

class CreateCompetitionRequest(_message.Message):
    __slots__ = ("config",)
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    config: str
    def __init__(self, config: _Optional[str] = ...) -> None: ...

class CompetitionRef(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class CompetitionInfo(_message.Message):
    __slots__ = ("id", "name", "status", "matches_done", "matches_total", "bots", "seed_commitment", "seed", "reason", "created_at", "spectator_delay", "format", "phase", "final_seed_commitment", "final_seed", "probed")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_DONE_FIELD_NUMBER: _ClassVar[int]
    MATCHES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    SPECTATOR_DELAY_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    FINAL_SEED_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    FINAL_SEED_FIELD_NUMBER: _ClassVar[int]
    PROBED_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    status: str
    matches_done: int
    matches_total: int
    bots: _containers.RepeatedScalarFieldContainer[str]
    seed_commitment: str
    seed: str
    reason: str
    created_at: str
    spectator_delay: int
    format: str
    phase: str
    final_seed_commitment: str
    final_seed: str
    probed: bool
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., status: _Optional[str] = ..., matches_done: _Optional[int] = ..., matches_total: _Optional[int] = ..., bots: _Optional[_Iterable[str]] = ..., seed_commitment: _Optional[str] = ..., seed: _Optional[str] = ..., reason: _Optional[str] = ..., created_at: _Optional[str] = ..., spectator_delay: _Optional[int] = ..., format: _Optional[str] = ..., phase: _Optional[str] = ..., final_seed_commitment: _Optional[str] = ..., final_seed: _Optional[str] = ..., probed: _Optional[bool] = ...) -> None: ...

class StandingsRow(_message.Message):
    __slots__ = ("rank", "bot", "elo", "elo_low", "elo_high", "played", "wins", "losses", "draws", "faults", "baseline", "sees_every_hand")
    RANK_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    ELO_FIELD_NUMBER: _ClassVar[int]
    ELO_LOW_FIELD_NUMBER: _ClassVar[int]
    ELO_HIGH_FIELD_NUMBER: _ClassVar[int]
    PLAYED_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    LOSSES_FIELD_NUMBER: _ClassVar[int]
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    BASELINE_FIELD_NUMBER: _ClassVar[int]
    SEES_EVERY_HAND_FIELD_NUMBER: _ClassVar[int]
    rank: int
    bot: str
    elo: float
    elo_low: float
    elo_high: float
    played: int
    wins: int
    losses: int
    draws: int
    faults: int
    baseline: bool
    sees_every_hand: bool
    def __init__(self, rank: _Optional[int] = ..., bot: _Optional[str] = ..., elo: _Optional[float] = ..., elo_low: _Optional[float] = ..., elo_high: _Optional[float] = ..., played: _Optional[int] = ..., wins: _Optional[int] = ..., losses: _Optional[int] = ..., draws: _Optional[int] = ..., faults: _Optional[int] = ..., baseline: _Optional[bool] = ..., sees_every_hand: _Optional[bool] = ...) -> None: ...

class StandingsReply(_message.Message):
    __slots__ = ("rows", "text")
    ROWS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    rows: _containers.RepeatedCompositeFieldContainer[StandingsRow]
    text: str
    def __init__(self, rows: _Optional[_Iterable[_Union[StandingsRow, _Mapping]]] = ..., text: _Optional[str] = ...) -> None: ...

class MatchSummary(_message.Message):
    __slots__ = ("id", "seats", "status", "final_scores", "winner_side", "termination", "reason", "log_chain")
    ID_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FINAL_SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNER_SIDE_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    LOG_CHAIN_FIELD_NUMBER: _ClassVar[int]
    id: str
    seats: _containers.RepeatedScalarFieldContainer[str]
    status: str
    final_scores: _containers.RepeatedScalarFieldContainer[int]
    winner_side: int
    termination: str
    reason: str
    log_chain: str
    def __init__(self, id: _Optional[str] = ..., seats: _Optional[_Iterable[str]] = ..., status: _Optional[str] = ..., final_scores: _Optional[_Iterable[int]] = ..., winner_side: _Optional[int] = ..., termination: _Optional[str] = ..., reason: _Optional[str] = ..., log_chain: _Optional[str] = ...) -> None: ...

class MatchList(_message.Message):
    __slots__ = ("matches",)
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    matches: _containers.RepeatedCompositeFieldContainer[MatchSummary]
    def __init__(self, matches: _Optional[_Iterable[_Union[MatchSummary, _Mapping]]] = ...) -> None: ...

class MatchRef(_message.Message):
    __slots__ = ("id",)
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class MatchLog(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    def __init__(self, data: _Optional[bytes] = ...) -> None: ...

class WatchRequest(_message.Message):
    __slots__ = ("id", "delay")
    ID_FIELD_NUMBER: _ClassVar[int]
    DELAY_FIELD_NUMBER: _ClassVar[int]
    id: str
    delay: int
    def __init__(self, id: _Optional[str] = ..., delay: _Optional[int] = ...) -> None: ...

class SpectatorEvent(_message.Message):
    __slots__ = ("deal_start", "play", "deal_end", "match_end", "view", "table", "hand_sizes", "stock_count", "match_scores")
    DEAL_START_FIELD_NUMBER: _ClassVar[int]
    PLAY_FIELD_NUMBER: _ClassVar[int]
    DEAL_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    HAND_SIZES_FIELD_NUMBER: _ClassVar[int]
    STOCK_COUNT_FIELD_NUMBER: _ClassVar[int]
    MATCH_SCORES_FIELD_NUMBER: _ClassVar[int]
    deal_start: SpectatorDealStart
    play: _scopa_pb2.Play
    deal_end: _scopa_pb2.DealResult
    match_end: _scopa_pb2.MatchResult
    view: _scopa_pb2.PublicView
    table: _containers.RepeatedCompositeFieldContainer[_scopa_pb2.Card]
    hand_sizes: _containers.RepeatedScalarFieldContainer[int]
    stock_count: int
    match_scores: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, deal_start: _Optional[_Union[SpectatorDealStart, _Mapping]] = ..., play: _Optional[_Union[_scopa_pb2.Play, _Mapping]] = ..., deal_end: _Optional[_Union[_scopa_pb2.DealResult, _Mapping]] = ..., match_end: _Optional[_Union[_scopa_pb2.MatchResult, _Mapping]] = ..., view: _Optional[_Union[_scopa_pb2.PublicView, _Mapping]] = ..., table: _Optional[_Iterable[_Union[_scopa_pb2.Card, _Mapping]]] = ..., hand_sizes: _Optional[_Iterable[int]] = ..., stock_count: _Optional[int] = ..., match_scores: _Optional[_Iterable[int]] = ...) -> None: ...

class SpectatorDealStart(_message.Message):
    __slots__ = ("deal_number", "dealer")
    DEAL_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    deal_number: int
    dealer: int
    def __init__(self, deal_number: _Optional[int] = ..., dealer: _Optional[int] = ...) -> None: ...

class RotateTokenRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RotateTokenResponse(_message.Message):
    __slots__ = ("name", "role", "token")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    name: str
    role: str
    token: str
    def __init__(self, name: _Optional[str] = ..., role: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class ListCompetitionsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListCompetitionsResponse(_message.Message):
    __slots__ = ("competitions",)
    COMPETITIONS_FIELD_NUMBER: _ClassVar[int]
    competitions: _containers.RepeatedCompositeFieldContainer[CompetitionInfo]
    def __init__(self, competitions: _Optional[_Iterable[_Union[CompetitionInfo, _Mapping]]] = ...) -> None: ...

class SubmitBotChunk(_message.Message):
    __slots__ = ("data",)
    DATA_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    def __init__(self, data: _Optional[bytes] = ...) -> None: ...

class SubmissionInfo(_message.Message):
    __slots__ = ("bot", "owner", "version", "sha256", "submitted_at", "command", "games", "archive_bytes", "files", "unpacked_bytes", "check", "check_output", "current")
    BOT_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SHA256_FIELD_NUMBER: _ClassVar[int]
    SUBMITTED_AT_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    ARCHIVE_BYTES_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    UNPACKED_BYTES_FIELD_NUMBER: _ClassVar[int]
    CHECK_FIELD_NUMBER: _ClassVar[int]
    CHECK_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    CURRENT_FIELD_NUMBER: _ClassVar[int]
    bot: str
    owner: str
    version: str
    sha256: str
    submitted_at: str
    command: _containers.RepeatedScalarFieldContainer[str]
    games: _containers.RepeatedScalarFieldContainer[str]
    archive_bytes: int
    files: int
    unpacked_bytes: int
    check: CheckReport
    check_output: str
    current: bool
    def __init__(self, bot: _Optional[str] = ..., owner: _Optional[str] = ..., version: _Optional[str] = ..., sha256: _Optional[str] = ..., submitted_at: _Optional[str] = ..., command: _Optional[_Iterable[str]] = ..., games: _Optional[_Iterable[str]] = ..., archive_bytes: _Optional[int] = ..., files: _Optional[int] = ..., unpacked_bytes: _Optional[int] = ..., check: _Optional[_Union[CheckReport, _Mapping]] = ..., check_output: _Optional[str] = ..., current: _Optional[bool] = ...) -> None: ...

class BotFault(_message.Message):
    __slots__ = ("match", "kind", "message", "version")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    match: str
    kind: str
    message: str
    version: str
    def __init__(self, match: _Optional[str] = ..., kind: _Optional[str] = ..., message: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class SubmissionHistory(_message.Message):
    __slots__ = ("submissions", "faults")
    SUBMISSIONS_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    submissions: _containers.RepeatedCompositeFieldContainer[SubmissionInfo]
    faults: _containers.RepeatedCompositeFieldContainer[BotFault]
    def __init__(self, submissions: _Optional[_Iterable[_Union[SubmissionInfo, _Mapping]]] = ..., faults: _Optional[_Iterable[_Union[BotFault, _Mapping]]] = ...) -> None: ...

class EnterLadderRequest(_message.Message):
    __slots__ = ("competition", "bot")
    COMPETITION_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    competition: str
    bot: str
    def __init__(self, competition: _Optional[str] = ..., bot: _Optional[str] = ...) -> None: ...

class LadderVersion(_message.Message):
    __slots__ = ("competition", "player", "bot", "number", "owner", "address", "entered_at", "state", "reason", "changed_at", "live_rating", "live_sigma", "sets")
    COMPETITION_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ENTERED_AT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    CHANGED_AT_FIELD_NUMBER: _ClassVar[int]
    LIVE_RATING_FIELD_NUMBER: _ClassVar[int]
    LIVE_SIGMA_FIELD_NUMBER: _ClassVar[int]
    SETS_FIELD_NUMBER: _ClassVar[int]
    competition: str
    player: str
    bot: str
    number: int
    owner: str
    address: str
    entered_at: str
    state: str
    reason: str
    changed_at: str
    live_rating: float
    live_sigma: float
    sets: int
    def __init__(self, competition: _Optional[str] = ..., player: _Optional[str] = ..., bot: _Optional[str] = ..., number: _Optional[int] = ..., owner: _Optional[str] = ..., address: _Optional[str] = ..., entered_at: _Optional[str] = ..., state: _Optional[str] = ..., reason: _Optional[str] = ..., changed_at: _Optional[str] = ..., live_rating: _Optional[float] = ..., live_sigma: _Optional[float] = ..., sets: _Optional[int] = ...) -> None: ...

class LadderVersionList(_message.Message):
    __slots__ = ("versions",)
    VERSIONS_FIELD_NUMBER: _ClassVar[int]
    versions: _containers.RepeatedCompositeFieldContainer[LadderVersion]
    def __init__(self, versions: _Optional[_Iterable[_Union[LadderVersion, _Mapping]]] = ...) -> None: ...

class BotMatchesRequest(_message.Message):
    __slots__ = ("competition", "bot", "version")
    COMPETITION_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    competition: str
    bot: str
    version: int
    def __init__(self, competition: _Optional[str] = ..., bot: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class SeatFault(_message.Message):
    __slots__ = ("seat", "kind", "message")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: str
    message: str
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class BotMatch(_message.Message):
    __slots__ = ("match", "player", "version", "seats", "side", "partners", "opponents", "outcome", "score", "opponent_score", "faults", "termination", "reason", "status", "log_chain")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    PARTNERS_FIELD_NUMBER: _ClassVar[int]
    OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_SCORE_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LOG_CHAIN_FIELD_NUMBER: _ClassVar[int]
    match: str
    player: str
    version: int
    seats: _containers.RepeatedScalarFieldContainer[int]
    side: int
    partners: _containers.RepeatedScalarFieldContainer[str]
    opponents: _containers.RepeatedScalarFieldContainer[str]
    outcome: str
    score: int
    opponent_score: int
    faults: _containers.RepeatedCompositeFieldContainer[SeatFault]
    termination: str
    reason: str
    status: str
    log_chain: str
    def __init__(self, match: _Optional[str] = ..., player: _Optional[str] = ..., version: _Optional[int] = ..., seats: _Optional[_Iterable[int]] = ..., side: _Optional[int] = ..., partners: _Optional[_Iterable[str]] = ..., opponents: _Optional[_Iterable[str]] = ..., outcome: _Optional[str] = ..., score: _Optional[int] = ..., opponent_score: _Optional[int] = ..., faults: _Optional[_Iterable[_Union[SeatFault, _Mapping]]] = ..., termination: _Optional[str] = ..., reason: _Optional[str] = ..., status: _Optional[str] = ..., log_chain: _Optional[str] = ...) -> None: ...

class BotMatchesReply(_message.Message):
    __slots__ = ("competition", "bot", "players", "matches")
    COMPETITION_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MATCHES_FIELD_NUMBER: _ClassVar[int]
    competition: str
    bot: str
    players: _containers.RepeatedScalarFieldContainer[str]
    matches: _containers.RepeatedCompositeFieldContainer[BotMatch]
    def __init__(self, competition: _Optional[str] = ..., bot: _Optional[str] = ..., players: _Optional[_Iterable[str]] = ..., matches: _Optional[_Iterable[_Union[BotMatch, _Mapping]]] = ...) -> None: ...

class BotOutputRequest(_message.Message):
    __slots__ = ("match", "bot")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    match: str
    bot: str
    def __init__(self, match: _Optional[str] = ..., bot: _Optional[str] = ...) -> None: ...

class SeatOutput(_message.Message):
    __slots__ = ("seat", "player", "data", "truncated", "kept_bytes")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    KEPT_BYTES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    data: bytes
    truncated: bool
    kept_bytes: int
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., data: _Optional[bytes] = ..., truncated: _Optional[bool] = ..., kept_bytes: _Optional[int] = ...) -> None: ...

class BotOutput(_message.Message):
    __slots__ = ("match", "bot", "seats")
    MATCH_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    match: str
    bot: str
    seats: _containers.RepeatedCompositeFieldContainer[SeatOutput]
    def __init__(self, match: _Optional[str] = ..., bot: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[SeatOutput, _Mapping]]] = ...) -> None: ...

class AuditRequest(_message.Message):
    __slots__ = ("id", "samples")
    ID_FIELD_NUMBER: _ClassVar[int]
    SAMPLES_FIELD_NUMBER: _ClassVar[int]
    id: str
    samples: int
    def __init__(self, id: _Optional[str] = ..., samples: _Optional[int] = ...) -> None: ...

class AuditReport(_message.Message):
    __slots__ = ("competition", "logs", "text", "json")
    COMPETITION_FIELD_NUMBER: _ClassVar[int]
    LOGS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    JSON_FIELD_NUMBER: _ClassVar[int]
    competition: str
    logs: int
    text: str
    json: str
    def __init__(self, competition: _Optional[str] = ..., logs: _Optional[int] = ..., text: _Optional[str] = ..., json: _Optional[str] = ...) -> None: ...
