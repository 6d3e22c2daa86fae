"""The Arena gRPC service (proto/arena/wire/v1/server.proto): thin handlers.

Each handler checks who calls (auth), asks the storage, the competitions or
the uploads (uploads.py), and answers with a message built by
arena.wire.service. Handlers run on grpc's thread pool and reach the trio loop
only through its token: bot checks and competition control run there.
WatchMatch and SubmitBot alone are coroutines, on the server's asyncio loop,
so an open stream or a slow upload holds no thread.

Why one module of this size: it is the service's one face, a handler per call
of server.proto (25), each a few lines of access check, call and conversion;
splitting it by call would scatter the one place that says who may call what.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, cast

import grpc
import trio

from arena.broker import Broker
from arena.check import CheckReport, check_bot
from arena.errors import ArenaError, ConfigError
from arena.results.layout import competition_layout
from arena.results.store import MatchStatus
from arena.server import authors
from arena.server.addresses import normalize_address
from arena.server.auth import Access, Role, new_token
from arena.server.competitions import (
    CompetitionManager,
    competition_config,
    competition_info,
    competition_results,
    entry_check,
    finished_logs,
    ladder_versions,
    new_competition_id,
    prepare_store,
    refuse_unplayable,
    refuse_unworkable,
    registered_address,
    save_audit,
    spectator_delay,
)
from arena.server.ladder import (
    LADDER_PHASE,
    EntryRefused,
    enter_version,
    is_ladder,
    ladder_settings,
    limit_refusal,
    open_ladders_of,
)
from arena.server.names import baseline_reason, checked_name, taken_reason
from arena.server.public import PublicText
from arena.server.status import abort
from arena.server.storage import Competition, CompetitionStatus, ServerStorage
from arena.server.submissions import SubmissionFiles, submission_digest
from arena.server.uploads import Refusal, UploadRefused, Uploads
from arena.server.versions import baselines_of
from arena.tournament.config import TournamentFormat
from arena.tournament.standings_cache import StandingsCache
from arena.wire import service as wire
from arena.wire.v1 import server_pb2 as spb
from arena.wire.v1 import server_pb2_grpc

MAX_ADDRESS_CHARS = 300
UPLOAD_STATUS = {
    Refusal.INVALID: grpc.StatusCode.INVALID_ARGUMENT,
    Refusal.NOT_OWNER: grpc.StatusCode.PERMISSION_DENIED,
    Refusal.UNFIT: grpc.StatusCode.FAILED_PRECONDITION,
    Refusal.TAKEN: grpc.StatusCode.ALREADY_EXISTS,
    Refusal.BUSY: grpc.StatusCode.RESOURCE_EXHAUSTED,
    Refusal.OVER_LIMIT: grpc.StatusCode.RESOURCE_EXHAUSTED,
    Refusal.TOO_SLOW: grpc.StatusCode.DEADLINE_EXCEEDED,
}
VIEW_STATUS = {
    authors.Refusal.INVALID: grpc.StatusCode.INVALID_ARGUMENT,
    authors.Refusal.NOT_FOUND: grpc.StatusCode.NOT_FOUND,
    authors.Refusal.NOT_OWNER: grpc.StatusCode.PERMISSION_DENIED,
    authors.Refusal.NOT_KEPT: grpc.StatusCode.FAILED_PRECONDITION,
}


# The log audit's samples a request may ask for: its cost grows with them.
MAX_AUDIT_SAMPLES = 256


@dataclass(frozen=True)
class WatchLimits:
    """Open spectator streams allowed per client (by network address, since
    anyone may register and get a token) and in all."""

    per_client: int = 32
    total: int = 2000


class ArenaServicer(server_pb2_grpc.ArenaServicer):
    def __init__(
        self,
        storage: ServerStorage,
        access: Access,
        manager: CompetitionManager,
        broker: Broker,
        data: Path,
        trio_token: trio.lowlevel.TrioToken,
        *,
        standings: StandingsCache | None = None,
        watch_limits: WatchLimits | None = None,
        spectator_delay: int = 0,
    ) -> None:
        """``spectator_delay``: plays live matches are shown behind, for a
        competition whose file sets no ``spectator_delay``."""
        self._storage = storage
        self._access = access
        self._manager = manager
        self._broker = broker
        self._data = data
        self._trio_token = trio_token
        self._standings = standings or StandingsCache(data)
        self._watch_limits = watch_limits or WatchLimits()
        self._spectator_delay = spectator_delay
        self._watchers: dict[str, int] = {}  # open streams per client, on the asyncio loop
        self._files = SubmissionFiles(data)
        self._public = PublicText(data)
        self._uploads = Uploads(storage, self._files, trio_token, self._limit_refusal)

    # Participants and bots -------------------------------------------------------

    def RegisterParticipant(
        self, request: spb.RegisterParticipantRequest, context: grpc.ServicerContext
    ) -> spb.RegisterParticipantResponse:
        name = self._new_name("participants", request.name, "participant name", context)
        token = new_token()
        if not self._storage.add_participant(name, self._access.hash(token)):
            self._name_taken("participants", name, context)
        return wire.participant_registered(name, token)

    def RotateToken(
        self, request: spb.RotateTokenRequest, context: grpc.ServicerContext
    ) -> spb.RotateTokenResponse:
        """A participant or the organiser replaces a token that may have leaked."""
        role, name = self._access.holder(context, "rotate a token", "the token to replace")
        return wire.token_rotated(name, role.value, self._access.rotate(role, name))

    def RegisterBot(
        self, request: spb.RegisterBotRequest, context: grpc.ServicerContext
    ) -> spb.BotInfo:
        owner = self._access.require(context, Role.PARTICIPANT, "register a bot")
        name = self._new_name("bots", request.name, "bot name", context)
        address = self._dialable(request.address, context)
        report = self._passing_check(address, context)
        added = self._storage.add_bot(
            name,
            owner,
            address,
            report.engine_name,
            report.engine_version,
            report.games,
            report.options,
        )
        if not added:
            self._name_taken("bots", name, context)
        return self._bot_info(name, context)

    def _new_name(self, table: str, raw: str, what: str, context: grpc.ServicerContext) -> str:
        """The name as it will be stored; a call with a name that breaks the
        rule (names.py), or reads as one taken, ends here."""
        try:
            name = checked_name(raw, what)
        except ConfigError as e:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(e))
        if self._storage.name_taken(table, name) is not None:
            self._name_taken(table, name, context)
        reserved = baseline_reason(name) if table == "bots" else None
        if reserved is not None:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, reserved)
        return name

    def _name_taken(self, table: str, name: str, context: grpc.ServicerContext) -> NoReturn:
        taken = self._storage.name_taken(table, name) or name
        kind = "participant" if table == "participants" else "bot"
        abort(context, grpc.StatusCode.ALREADY_EXISTS, taken_reason(kind, name, taken))

    def UpdateBot(
        self, request: spb.UpdateBotRequest, context: grpc.ServicerContext
    ) -> spb.BotInfo:
        owner = self._own_bot(request.name, context, "update a bot")
        address = self._dialable(request.address, context)
        self._refuse_over_limit(request.name, owner, context)
        report = self._passing_check(address, context)
        # Competitions already created keep the address they were made with;
        # the ladders it is in take the new address as a new version.
        self._storage.update_bot(
            request.name,
            address,
            report.engine_name,
            report.engine_version,
            report.games,
            report.options,
        )
        self._enter_new_version(request.name)
        return self._bot_info(request.name, context)

    def _refuse_over_limit(self, bot: str, owner: str, context: grpc.ServicerContext) -> None:
        """A new version of a bot in a ladder counts against its owner's day's
        limit there: refused before anything changes."""
        why = self._limit_refusal(owner, bot)
        if why is not None:
            abort(context, grpc.StatusCode.RESOURCE_EXHAUSTED, why)

    def _limit_refusal(self, owner: str, bot: str) -> str | None:
        for competition in open_ladders_of(self._storage, bot):
            why = limit_refusal(self._storage, competition, owner)
            if why is not None:
                return why
        return None

    def _enter_new_version(self, name: str) -> list[str]:
        """The bot's new version enters each open ladder it is in; what was refused."""
        refused = []
        bot = self._storage.bot(name)
        assert bot is not None
        for competition in open_ladders_of(self._storage, name):
            check = entry_check(competition, self._storage, self._data, bot)
            try:
                enter_version(self._storage, competition, bot, check)
            except EntryRefused as e:
                refused.append(f"{competition.id}: {e}")
                continue
            self._wake(competition.id)
        return refused

    def _wake(self, comp_id: str) -> None:
        """Tell a running ladder a version entered (it looks by itself each second too)."""
        trio.from_thread.run_sync(self._manager.wake, comp_id, trio_token=self._trio_token)

    def WithdrawBot(self, request: spb.BotRef, context: grpc.ServicerContext) -> spb.BotInfo:
        self._own_bot(request.name, context, "withdraw a bot")
        self._storage.withdraw_bot(request.name)
        return self._bot_info(request.name, context)

    def ListBots(
        self, request: spb.ListBotsRequest, context: grpc.ServicerContext
    ) -> spb.ListBotsResponse:
        bots = [wire.bot_info(bot) for bot in self._storage.bots()]
        for bot in bots:  # what a probe saw: an error may name a file
            bot.status_detail = self._public(bot.status_detail)
        return wire.bot_list(bots)

    def CheckBot(
        self, request: spb.CheckBotRequest, context: grpc.ServicerContext
    ) -> spb.CheckReport:
        if not request.address:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, "give the bot's address")
        report = self._check(request.address)
        return wire.check_report(
            report.passed, [(item.name, item.passed, item.detail) for item in report.items]
        )

    def _check(self, address: str) -> CheckReport:
        """The conformance check, run on the server's trio loop."""
        return trio.from_thread.run(check_bot, address, trio_token=self._trio_token)

    def _dialable(self, address: str, context: grpc.ServicerContext) -> str:
        """The address in the one spelling the server keeps; refused when the arena
        could not dial it in a competition (it must not pass here and fail there)."""
        if not address or len(address) > MAX_ADDRESS_CHARS:
            abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                "give the bot's address: host:port or unix:/path",
            )
        try:
            return normalize_address(address)
        except ArenaError as e:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(e))

    def _passing_check(self, address: str, context: grpc.ServicerContext) -> CheckReport:
        """The check of a bot being registered or updated; a failure ends the call."""
        if not address or len(address) > MAX_ADDRESS_CHARS:
            abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                "give the bot's address: host:port or unix:/path",
            )
        report = self._check(address)
        if not report.passed:
            abort(context, grpc.StatusCode.FAILED_PRECONDITION, report.text())
        return report

    def _own_bot(self, name: str, context: grpc.ServicerContext, action: str) -> str:
        """End the call unless the caller is the participant who owns bot
        ``name``; the owner."""
        owner = self._access.require(context, Role.PARTICIPANT, action)
        bot = self._storage.bot(name)
        if bot is None:
            abort(context, grpc.StatusCode.NOT_FOUND, f"no bot named {name!r}")
        if bot.owner != owner:
            abort(
                context,
                grpc.StatusCode.PERMISSION_DENIED,
                f"bot {name!r} belongs to another participant",
            )
        return owner

    def _bot_info(self, name: str, context: grpc.ServicerContext) -> spb.BotInfo:
        bot = self._storage.bot(name)
        if bot is None:
            abort(context, grpc.StatusCode.NOT_FOUND, f"no bot named {name!r}")
        return wire.bot_info(bot)

    # Uploaded bots ----------------------------------------------------------------

    async def SubmitBot(
        self, request_iterator: AsyncIterator[spb.SubmitBotChunk], context: grpc.aio.ServicerContext
    ) -> spb.SubmissionInfo:
        """Receive the archive on the event loop (no thread waits on a slow
        sender), then store, check and record it on an upload thread."""
        deferred = _DeferredContext(context.invocation_metadata() or ())
        try:
            owner = await asyncio.to_thread(
                self._access.require, _as_context(deferred), Role.PARTICIPANT, "submit a bot"
            )
        except _Refused as refused:
            await context.abort(refused.code, refused.message)
        try:
            with self._uploads.admitted(_client_of(context.peer())):
                data = await self._uploads.receive(chunk.data async for chunk in request_iterator)
                record = await self._uploads.submit(owner, data)
            await asyncio.to_thread(self._enter_new_version, record.bot)
            return wire.submission_info(record, current=True)
        except UploadRefused as refused:
            await context.abort(UPLOAD_STATUS[refused.refusal], str(refused))
        raise AssertionError("unreachable")  # abort raised

    def ListSubmissions(
        self, request: spb.BotRef, context: grpc.ServicerContext
    ) -> spb.SubmissionHistory:
        """A bot's uploads with their checks and its faults, for its owner or
        the organiser; a participant whose first upload of a name failed its
        check (so no bot has that name) sees that upload and why."""
        role, caller = self._access.holder(
            context, "see a bot's submissions", "its owner's or the organiser's token"
        )
        reader = caller if role is Role.PARTICIPANT else None
        bot = self._storage.bot(request.name)
        if bot is not None and reader is not None and bot.owner != reader:
            abort(
                context,
                grpc.StatusCode.PERMISSION_DENIED,
                f"only the owner of {bot.name!r} (or the organiser) may see its submissions",
            )
        owner = bot.owner if bot is not None else reader
        records = [
            record
            for record in self._storage.submissions(request.name)
            if owner is None or record.owner == owner
        ]
        if bot is None and not records:
            abort(
                context,
                grpc.StatusCode.NOT_FOUND,
                f"no bot named {request.name!r}, and no upload of yours by that name",
            )
        current = None if bot is None else submission_digest(bot.address)
        submissions = [
            self._public_submission(wire.submission_info(record, current=record.sha256 == current))
            for record in records
        ]
        faults = [] if bot is None else self._faults_of(bot.name)
        return wire.submission_history(submissions, faults)

    def _public_submission(self, info: spb.SubmissionInfo) -> spb.SubmissionInfo:
        """An upload's check as its owner reads it (an older server kept paths in it)."""
        for item in info.check.items:
            item.detail = self._public(item.detail)
        return info

    def _faults_of(self, name: str) -> list[tuple[str, str, str, str]]:
        """(COMPETITION/MATCH, kind, message, what played) for each fault of
        bot ``name`` in any competition, oldest competition first; in a
        ladder, each of its versions' (players BOT@N), from where it entered."""
        ladders = set(self._storage.ladders_of(name))
        faults = []
        for competition in self._storage.competitions():
            if competition.id in ladders:
                played = {
                    v.player: v.address
                    for v in self._storage.versions(competition.id)
                    if v.bot == name
                }
            elif name in competition.bots:
                played = {name: competition.engines.get(name, "")}
            else:
                continue
            try:
                with competition_results(self._data, competition.id) as store:
                    if store is None:
                        continue
                    rows = [(p, fault) for p in played for fault in store.faults_of(p)]
            except ArenaError:
                continue  # a damaged store: its competition has failed and says why
            for player, (match_id, kind, message) in rows:
                key = f"{competition.id}/{match_id}"
                faults.append((key, kind, self._public(message), played[player]))
        return faults

    # Ladders ----------------------------------------------------------------------

    def EnterLadder(
        self, request: spb.EnterLadderRequest, context: grpc.ServicerContext
    ) -> spb.LadderVersion:
        self._own_bot(request.bot, context, "enter a ladder")
        competition = self._competition(request.competition, context)
        bot = self._storage.bot(request.bot)
        assert bot is not None
        check = entry_check(competition, self._storage, self._data, bot)
        try:
            version = enter_version(self._storage, competition, bot, check)
        except EntryRefused as e:
            code = grpc.StatusCode.FAILED_PRECONDITION
            if e.over_limit:
                code = grpc.StatusCode.RESOURCE_EXHAUSTED
            elif e.not_entrant:
                code = grpc.StatusCode.PERMISSION_DENIED
            abort(context, code, self._public(str(e)))
        self._wake(competition.id)
        return wire.ladder_version(version)

    def ListVersions(
        self, request: spb.CompetitionRef, context: grpc.ServicerContext
    ) -> spb.LadderVersionList:
        competition = self._competition(request.id, context)
        if not is_ladder(competition):
            abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"competition {request.id} is not a ladder: it has no versions",
            )
        view = trio.from_thread.run_sync(
            self._manager.ladder_view, request.id, trio_token=self._trio_token
        )
        versions = ladder_versions(self._data, self._storage, competition, view)
        for version in versions:
            version.reason = self._public(version.reason)
        return wire.ladder_version_list(versions)

    def CloseCompetition(
        self, request: spb.CompetitionRef, context: grpc.ServicerContext
    ) -> spb.CompetitionInfo:
        self._access.require(context, Role.ORGANISER, "close a ladder")
        competition = self._competition(request.id, context)
        if not is_ladder(competition):
            abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"competition {request.id} is not a ladder: it ends with its schedule",
            )
        if competition.phase not in ("", LADDER_PHASE) or competition.status in (
            CompetitionStatus.FINISHED,
            CompetitionStatus.FAILED,
        ):
            abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"ladder {request.id} is closed already "
                f"({competition.phase or competition.status.value})",
            )
        trio.from_thread.run_sync(self._manager.close, request.id, trio_token=self._trio_token)
        return self._competition_info(request.id, context)

    # Competitions -----------------------------------------------------------------

    def CreateCompetition(
        self, request: spb.CreateCompetitionRequest, context: grpc.ServicerContext
    ) -> spb.CompetitionInfo:
        self._access.require(context, Role.ORGANISER, "create a competition")
        comp_id = new_competition_id()
        try:
            cfg, engines = competition_config(
                request.config,
                registered_address(self._storage),
                competition_layout(self._data, comp_id).directory,
                self._files,
            )
            checked_name(cfg.name, "competition name")
            # A ladder's [ladder] table is read now, not at its first entry.
            if cfg.format is TournamentFormat.LADDER:
                ladder_settings(request.config, baselines_of(engines))
            refuse_unplayable(cfg, self._storage)
            refuse_unworkable(cfg)
        except ArenaError as e:
            abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(e))
        # The results store is made now, so that the seed's commitment is
        # published before any match can be played.
        try:
            prepare_store(cfg, engines)
        except ArenaError as e:
            abort(context, grpc.StatusCode.INTERNAL, f"cannot create the competition's store: {e}")
        # The bots' addresses are kept as they are now: the competition's snapshot.
        self._storage.add_competition(comp_id, cfg.name, request.config, engines)
        return self._competition_info(comp_id, context)

    def StartCompetition(
        self, request: spb.CompetitionRef, context: grpc.ServicerContext
    ) -> spb.CompetitionInfo:
        refused = (CompetitionStatus.FAILED,)
        return self._control(request.id, context, "start", self._manager.start, refused)

    def ResumeCompetition(
        self, request: spb.CompetitionRef, context: grpc.ServicerContext
    ) -> spb.CompetitionInfo:
        refused = (CompetitionStatus.CREATED, CompetitionStatus.FINISHED, CompetitionStatus.FAILED)
        return self._control(request.id, context, "resume", self._manager.start, refused)

    def PauseCompetition(
        self, request: spb.CompetitionRef, context: grpc.ServicerContext
    ) -> spb.CompetitionInfo:
        refused = (CompetitionStatus.FAILED, CompetitionStatus.FINISHED)
        return self._control(request.id, context, "pause", self._manager.pause, refused)

    def _control(
        self,
        comp_id: str,
        context: grpc.ServicerContext,
        verb: str,
        act: Callable[[str], None],
        refused: tuple[CompetitionStatus, ...] = (),
    ) -> spb.CompetitionInfo:
        """The organiser starts, pauses or resumes a competition, in the trio loop."""
        self._access.require(context, Role.ORGANISER, f"{verb} a competition")
        competition = self._competition(comp_id, context)
        status = competition.status
        if status in refused:
            why = f" ({competition.reason})" if competition.reason else ""
            abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                f"competition {comp_id} is {status.value}{why}: cannot {verb} it",
            )
        trio.from_thread.run_sync(act, comp_id, trio_token=self._trio_token)
        return self._competition_info(comp_id, context)

    def GetCompetition(
        self, request: spb.CompetitionRef, context: grpc.ServicerContext
    ) -> spb.CompetitionInfo:
        return self._competition_info(request.id, context)

    def ListCompetitions(
        self, request: spb.ListCompetitionsRequest, context: grpc.ServicerContext
    ) -> spb.ListCompetitionsResponse:
        return wire.competition_list(
            self._competition_info(c.id, context) for c in self._storage.competitions()
        )

    def GetStandings(
        self, request: spb.CompetitionRef, context: grpc.ServicerContext
    ) -> spb.StandingsReply:
        self._competition(request.id, context)
        cached = self._standings.get(request.id)
        if cached is None:
            return wire.standings_reply("no match played yet")
        return wire.standings_reply(cached.text, cached.rows)

    def ListMatches(
        self, request: spb.CompetitionRef, context: grpc.ServicerContext
    ) -> spb.MatchList:
        self._competition(request.id, context)
        with competition_results(self._data, request.id) as store:
            if store is None:
                return wire.match_list([])
            running = trio.from_thread.run_sync(
                self._manager.running_matches, trio_token=self._trio_token
            )
            entries = store.matches()
        matches = [wire.listed_match(f"{request.id}/{e.id}", e, running) for e in entries]
        for match in matches:
            match.reason = self._public(match.reason)
        return wire.match_list(matches)

    def GetMatchLog(self, request: spb.MatchRef, context: grpc.ServicerContext) -> spb.MatchLog:
        comp_id, match_id = self._match_ref(request.id, context)
        with competition_results(self._data, comp_id) as store:
            entry = None if store is None else store.match(match_id)
        if entry is None:
            abort(context, grpc.StatusCode.NOT_FOUND, f"no match {request.id!r}")
        if entry.status is not MatchStatus.DONE or not entry.log_path:
            abort(
                context,
                grpc.StatusCode.FAILED_PRECONDITION,
                "the log is published when the match has ended; watch it meanwhile",
            )
        return wire.match_log(Path(entry.log_path).read_bytes())

    def AuditCompetition(
        self, request: spb.AuditRequest, context: grpc.ServicerContext
    ) -> spb.AuditReport:
        """The organiser's collusion audit of the finished matches (docs/audit.md):
        computed here, on demand, from the logs; it decides nothing."""
        from arena.audit.report import audit, dumps, render_text
        from arena.errors import RecordError

        self._access.require(context, Role.ORGANISER, "audit a competition")
        self._competition(request.id, context)
        try:
            logs = finished_logs(self._data, request.id)
        except ArenaError as e:  # a damaged store: its competition has failed and says why
            abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(e))
        if not logs:
            abort(context, grpc.StatusCode.FAILED_PRECONDITION, "no finished match to audit yet")
        samples = min(request.samples, MAX_AUDIT_SAMPLES)
        try:
            report = audit(logs, samples=max(samples, 2), values=samples > 0)
        except RecordError as e:  # a damaged log: the organiser should know which
            abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(e))
        except ArenaError as e:  # e.g. a game without partners
            abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(e))
        document = dumps(report, decisions=False)
        if report.values is not None:  # the site's audit page shows the last full one
            save_audit(self._data, request.id, document)
        return spb.AuditReport(
            competition=request.id, logs=len(logs), text=render_text(report), json=document
        )

    def ListBotMatches(
        self, request: spb.BotMatchesRequest, context: grpc.ServicerContext
    ) -> spb.BotMatchesReply:
        running = trio.from_thread.run_sync(
            self._manager.running_matches, trio_token=self._trio_token
        )
        version = request.version or None
        try:
            reply = authors.bot_matches(
                self._data, self._storage, request.competition, request.bot, version, running
            )
        except authors.ViewRefused as refused:
            abort(context, VIEW_STATUS[refused.refusal], str(refused))
        except ArenaError as e:  # a damaged store: its competition has failed and says why
            abort(context, grpc.StatusCode.FAILED_PRECONDITION, self._public(str(e)))
        for match in reply.matches:
            match.reason = self._public(match.reason)
            for fault in match.faults:
                fault.message = self._public(fault.message)
        return reply

    def GetBotOutput(
        self, request: spb.BotOutputRequest, context: grpc.ServicerContext
    ) -> spb.BotOutput:
        role, caller = self._access.holder(
            context, "download a bot's output", "its owner's or the organiser's token"
        )
        reader = caller if role is Role.PARTICIPANT else None
        try:
            return authors.bot_output(self._data, self._storage, request.match, request.bot, reader)
        except authors.ViewRefused as refused:
            abort(context, VIEW_STATUS[refused.refusal], str(refused))
        except ArenaError as e:
            abort(context, grpc.StatusCode.FAILED_PRECONDITION, self._public(str(e)))

    async def WatchMatch(
        self, request: spb.WatchRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[spb.SpectatorEvent]:
        client = _client_of(context.peer())
        limits = self._watch_limits
        if self._watchers.get(client, 0) >= limits.per_client:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"at most {limits.per_client} open watch streams per client",
            )
        if sum(self._watchers.values()) >= limits.total:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the server has {limits.total} open watch streams, its limit",
            )
        self._watchers[client] = self._watchers.get(client, 0) + 1
        try:
            refusal, least = await asyncio.to_thread(self._watch_refusal, request.id)
            if refusal is not None:
                await context.abort(*refusal)
            # A watcher may ask to be further behind, never closer than the
            # competition allows; the organiser, who runs it, may watch live.
            if self._access.is_organiser(cast(grpc.ServicerContext, context)):
                least = 0
            async for event in self._broker.watch(request.id, max(request.delay, least)):
                yield wire.public_event(event, self._public)
        finally:
            self._watchers[client] -= 1
            if not self._watchers[client]:
                del self._watchers[client]

    def _watch_refusal(self, key: str) -> tuple[tuple[grpc.StatusCode, str] | None, int]:
        """Why match ``key`` cannot be watched, or None: it must be scheduled in
        an existing competition, and not over unless its events are still kept;
        and its competition's spectator delay."""
        comp_id, _, match_id = key.partition("/")
        if not match_id:
            return (grpc.StatusCode.INVALID_ARGUMENT, "a match id looks like COMPETITION/MATCH"), 0
        competition = self._storage.competition(comp_id)
        if competition is None:
            return (grpc.StatusCode.NOT_FOUND, f"no competition {comp_id!r}"), 0
        delay = spectator_delay(competition, self._spectator_delay)
        with competition_results(self._data, comp_id) as store:
            entry = None if store is None else store.match(match_id)
        if entry is None:
            return (grpc.StatusCode.NOT_FOUND, f"no match {key!r}"), delay
        if entry.status is MatchStatus.DONE and not self._broker.has_ended(key):
            refusal = f"match {key!r} has ended; its log is published (GetMatchLog)"
            return (grpc.StatusCode.FAILED_PRECONDITION, refusal), delay
        if competition.status is CompetitionStatus.FAILED and entry.status is not MatchStatus.DONE:
            refusal = (
                f"competition {comp_id!r} failed ({self._public(competition.reason)}): "
                f"{key!r} will not be played"
            )
            return (grpc.StatusCode.FAILED_PRECONDITION, refusal), delay
        return None, delay

    def _competition(self, comp_id: str, context: grpc.ServicerContext) -> Competition:
        competition = self._storage.competition(comp_id)
        if competition is None:
            abort(context, grpc.StatusCode.NOT_FOUND, f"no competition {comp_id!r}")
        return competition

    def _competition_info(self, comp_id: str, context: grpc.ServicerContext) -> spb.CompetitionInfo:
        competition = self._competition(comp_id, context)
        info = competition_info(self._data, competition, self._spectator_delay)
        info.reason = self._public(info.reason)
        return info

    def _match_ref(self, key: str, context: grpc.ServicerContext) -> tuple[str, str]:
        """COMPETITION/MATCH split in two; the competition must exist."""
        comp_id, _, match_id = key.partition("/")
        if not match_id:
            abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                "a match id looks like COMPETITION/MATCH",
            )
        self._competition(comp_id, context)
        return comp_id, match_id


class _Refused(Exception):
    """A refusal raised on a worker thread, to be sent by the coroutine that owns the call."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _DeferredContext:
    """What the synchronous checks need of a call, for a coroutine's call run
    on a worker thread: its metadata, and an abort that raises _Refused."""

    def __init__(self, metadata: Any) -> None:
        self._metadata = tuple(metadata)

    def invocation_metadata(self) -> tuple[Any, ...]:
        return self._metadata

    def abort(self, code: grpc.StatusCode, message: str) -> NoReturn:
        raise _Refused(code, message)


def _as_context(deferred: _DeferredContext) -> grpc.ServicerContext:
    return cast(grpc.ServicerContext, deferred)


def _client_of(peer: str) -> str:
    """The network address of a peer such as ``ipv4:10.0.0.1:5000``, without its port."""
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6"):
        return f"{kind}:{rest.rsplit(':', 1)[0]}"
    return peer
