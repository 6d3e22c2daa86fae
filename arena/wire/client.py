"""A client of the competition server (`arena serve`): one method per call.

Every request message is built here, so callers (the `arena remote` command,
scripts, tests) pass plain values. Answers are server.proto's messages, whose
fields are documented there; spectator events come back as plain values
(arena.match.outcome.MatchEvent), read by the conversion module. A refused call
raises grpc.RpcError with the server's status and reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import TracebackType
from typing import TypeVar

import grpc
from google.protobuf.message import Message

from arena.match.outcome import MatchEvent
from arena.wire import convert
from arena.wire.protocol import SUBMISSION_CHUNK_BYTES
from arena.wire.v1 import server_pb2 as spb
from arena.wire.v1 import server_pb2_grpc

# Seconds a call may take: most are quick; a registration runs the conformance
# check, standings fit ratings, a log can be large.
QUICK = 10.0
SLOW = 60.0
# The organiser's audit values every decision of every finished match.
AUDIT_TIMEOUT = 3600.0
UPLOAD = 600.0  # an archive of up to 50 MiB, then its check in a sandbox

Reply = TypeVar("Reply", bound=Message)


class ArenaClient:
    """``with ArenaClient("127.0.0.1:50051", token) as arena: arena.bots()``."""

    def __init__(self, address: str, token: str | None = None) -> None:
        self.channel = grpc.insecure_channel(address, options=[("grpc.enable_http_proxy", 0)])
        self.stub = server_pb2_grpc.ArenaStub(self.channel)
        self.metadata = [("authorization", f"Bearer {token}")] if token else []

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> ArenaClient:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _call(self, method: str, request: Message, reply: type[Reply], timeout: float) -> Reply:
        answer = getattr(self.stub, method)(request, metadata=self.metadata, timeout=timeout)
        assert isinstance(answer, reply)
        return answer

    # Participants and bots -------------------------------------------------------

    def register_participant(self, name: str) -> spb.RegisterParticipantResponse:
        request = spb.RegisterParticipantRequest(name=name)
        return self._call("RegisterParticipant", request, spb.RegisterParticipantResponse, QUICK)

    def rotate_token(self) -> spb.RotateTokenResponse:
        request = spb.RotateTokenRequest()
        return self._call("RotateToken", request, spb.RotateTokenResponse, QUICK)

    def register_bot(self, name: str, address: str) -> spb.BotInfo:
        request = spb.RegisterBotRequest(name=name, address=address)
        return self._call("RegisterBot", request, spb.BotInfo, SLOW)

    def update_bot(self, name: str, address: str) -> spb.BotInfo:
        request = spb.UpdateBotRequest(name=name, address=address)
        return self._call("UpdateBot", request, spb.BotInfo, SLOW)

    def withdraw_bot(self, name: str) -> spb.BotInfo:
        return self._call("WithdrawBot", spb.BotRef(name=name), spb.BotInfo, QUICK)

    def bots(self) -> list[spb.BotInfo]:
        reply = self._call("ListBots", spb.ListBotsRequest(), spb.ListBotsResponse, QUICK)
        return list(reply.bots)

    def check_bot(self, address: str) -> spb.CheckReport:
        request = spb.CheckBotRequest(address=address)
        return self._call("CheckBot", request, spb.CheckReport, SLOW)

    def submit_bot(self, archive: bytes) -> spb.SubmissionInfo:
        """Upload a bot's archive (tar.gz or zip with its bot.toml) in chunks;
        the answer comes once the server has checked it."""
        chunks = (
            spb.SubmitBotChunk(data=archive[i : i + SUBMISSION_CHUNK_BYTES])
            for i in range(0, len(archive), SUBMISSION_CHUNK_BYTES)
        )
        reply = self.stub.SubmitBot(chunks, metadata=self.metadata, timeout=UPLOAD)
        assert isinstance(reply, spb.SubmissionInfo)
        return reply

    def submissions(self, bot: str) -> spb.SubmissionHistory:
        request = spb.BotRef(name=bot)
        return self._call("ListSubmissions", request, spb.SubmissionHistory, 30)

    # Competitions -----------------------------------------------------------------

    def create_competition(self, config: str) -> spb.CompetitionInfo:
        request = spb.CreateCompetitionRequest(config=config)
        return self._call("CreateCompetition", request, spb.CompetitionInfo, 30)

    def start_competition(self, competition: str) -> spb.CompetitionInfo:
        return self._competition_call("StartCompetition", competition)

    def pause_competition(self, competition: str) -> spb.CompetitionInfo:
        return self._competition_call("PauseCompetition", competition)

    def resume_competition(self, competition: str) -> spb.CompetitionInfo:
        return self._competition_call("ResumeCompetition", competition)

    def competition(self, competition: str) -> spb.CompetitionInfo:
        return self._competition_call("GetCompetition", competition)

    def close_competition(self, competition: str) -> spb.CompetitionInfo:
        return self._competition_call("CloseCompetition", competition)

    def enter_ladder(self, competition: str, bot: str) -> spb.LadderVersion:
        request = spb.EnterLadderRequest(competition=competition, bot=bot)
        return self._call("EnterLadder", request, spb.LadderVersion, 60)

    def versions(self, competition: str) -> list[spb.LadderVersion]:
        request = spb.CompetitionRef(id=competition)
        return list(self._call("ListVersions", request, spb.LadderVersionList, 30).versions)

    def competitions(self) -> list[spb.CompetitionInfo]:
        request = spb.ListCompetitionsRequest()
        reply = self._call("ListCompetitions", request, spb.ListCompetitionsResponse, 30)
        return list(reply.competitions)

    def _competition_call(self, method: str, competition: str) -> spb.CompetitionInfo:
        return self._call(method, spb.CompetitionRef(id=competition), spb.CompetitionInfo, 30)

    def standings(self, competition: str) -> spb.StandingsReply:
        request = spb.CompetitionRef(id=competition)
        return self._call("GetStandings", request, spb.StandingsReply, SLOW)

    def audit(self, competition: str, samples: int) -> spb.AuditReport:
        request = spb.AuditRequest(id=competition, samples=samples)
        return self._call("AuditCompetition", request, spb.AuditReport, AUDIT_TIMEOUT)

    def matches(self, competition: str) -> list[spb.MatchSummary]:
        reply = self._call("ListMatches", spb.CompetitionRef(id=competition), spb.MatchList, 30)
        return list(reply.matches)

    def match_log(self, match: str) -> bytes:
        """The log of a finished match (``COMPETITION/MATCH``), as bytes to save."""
        return bytes(self._call("GetMatchLog", spb.MatchRef(id=match), spb.MatchLog, SLOW).data)

    def bot_matches(self, competition: str, bot: str, version: int = 0) -> spb.BotMatchesReply:
        """``bot``'s matches in ``competition`` from its side; in a ladder only
        version ``version``'s (0: every version's)."""
        request = spb.BotMatchesRequest(competition=competition, bot=bot, version=version)
        return self._call("ListBotMatches", request, spb.BotMatchesReply, 30)

    def bot_output(self, match: str, bot: str) -> spb.BotOutput:
        """What ``bot`` printed in a finished match (its owner's or the organiser's token)."""
        request = spb.BotOutputRequest(match=match, bot=bot)
        return self._call("GetBotOutput", request, spb.BotOutput, SLOW)

    def watch(self, match: str, delay: int = 0) -> Iterator[MatchEvent]:
        """A match's public events as they happen (from its start for a late
        joiner), ``delay`` plays behind the live match, until it ends."""
        for event in self.stub.WatchMatch(spb.WatchRequest(id=match, delay=delay)):
            yield convert.spectator_event_from_pb(event)
