"""The competition server's messages (server.proto), built from plain values.

The server's handlers pass names, numbers and strings; the messages they send
are built here and nowhere else. Spectator events are game values and are
converted in the sibling module arena.wire.convert.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from enum import Enum
from typing import Any, Protocol

from arena.wire.v1 import server_pb2 as spb


def participant_registered(name: str, token: str) -> spb.RegisterParticipantResponse:
    return spb.RegisterParticipantResponse(name=name, token=token)


def token_rotated(name: str, role: str, token: str) -> spb.RotateTokenResponse:
    return spb.RotateTokenResponse(name=name, role=role, token=token)


class BotRecord(Protocol):
    """A registered bot as the server keeps it (arena.server.storage.Bot)."""

    @property
    def name(self) -> str: ...
    @property
    def owner(self) -> str: ...
    @property
    def address(self) -> str: ...
    @property
    def engine_name(self) -> str: ...
    @property
    def engine_version(self) -> str: ...
    @property
    def withdrawn(self) -> bool: ...
    @property
    def liveness(self) -> str: ...
    @property
    def liveness_detail(self) -> str: ...
    @property
    def last_seen(self) -> str: ...
    @property
    def seen_version(self) -> str: ...


def bot_info(bot: BotRecord) -> spb.BotInfo:
    return spb.BotInfo(
        name=bot.name,
        owner=bot.owner,
        address=bot.address,
        engine_name=bot.engine_name,
        engine_version=bot.engine_version,
        withdrawn=bot.withdrawn,
        status=bot.liveness,
        status_detail=bot.liveness_detail,
        last_seen=bot.last_seen,
        seen_version=bot.seen_version,
    )


class SubmissionRecord(Protocol):
    """An uploaded bot as the server keeps it (arena.server.storage.SubmissionRecord)."""

    @property
    def bot(self) -> str: ...
    @property
    def owner(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def sha256(self) -> str: ...
    @property
    def submitted_at(self) -> str: ...
    @property
    def command(self) -> list[str]: ...
    @property
    def games(self) -> list[str]: ...
    @property
    def archive_bytes(self) -> int: ...
    @property
    def files(self) -> int: ...
    @property
    def unpacked_bytes(self) -> int: ...
    @property
    def check_passed(self) -> bool: ...
    @property
    def check_items(self) -> list[tuple[str, bool, str]]: ...
    @property
    def check_output(self) -> str: ...


def submission_info(record: SubmissionRecord, *, current: bool) -> spb.SubmissionInfo:
    return spb.SubmissionInfo(
        bot=record.bot,
        owner=record.owner,
        version=record.version,
        sha256=record.sha256,
        submitted_at=record.submitted_at,
        command=record.command,
        games=record.games,
        archive_bytes=record.archive_bytes,
        files=record.files,
        unpacked_bytes=record.unpacked_bytes,
        check=check_report(record.check_passed, record.check_items),
        check_output=record.check_output,
        current=current,
    )


def submission_history(
    submissions: Iterable[spb.SubmissionInfo], faults: Iterable[tuple[str, str, str, str]]
) -> spb.SubmissionHistory:
    """``faults``: (COMPETITION/MATCH, kind, message, what played) each."""
    return spb.SubmissionHistory(
        submissions=list(submissions),
        faults=[
            spb.BotFault(match=match, kind=kind, message=message, version=version)
            for match, kind, message, version in faults
        ],
    )


def bot_list(bots: Iterable[spb.BotInfo]) -> spb.ListBotsResponse:
    return spb.ListBotsResponse(bots=list(bots))


def check_report(passed: bool, items: Iterable[tuple[str, bool, str]]) -> spb.CheckReport:
    """``items``: (what was checked, passed, detail) per point of the check."""
    return spb.CheckReport(
        passed=passed,
        items=[spb.CheckItem(name=name, passed=ok, detail=detail) for name, ok, detail in items],
    )


def competition_info(
    *,
    id: str,
    name: str,
    status: str,
    bots: Sequence[str],
    matches_done: int = 0,
    matches_total: int = 0,
    seed_commitment: str = "",
    seed: str = "",
    reason: str = "",
    created_at: str = "",
    spectator_delay: int = 0,
    format: str = "",
    phase: str = "",
    final_seed_commitment: str = "",
    final_seed: str = "",
    probed: bool = False,
) -> spb.CompetitionInfo:
    return spb.CompetitionInfo(
        probed=probed,
        format=format,
        phase=phase,
        final_seed_commitment=final_seed_commitment,
        final_seed=final_seed,
        id=id,
        name=name,
        status=status,
        bots=list(bots),
        matches_done=matches_done,
        matches_total=matches_total,
        seed_commitment=seed_commitment,
        seed=seed,
        reason=reason,
        created_at=created_at,
        spectator_delay=spectator_delay,
    )


def competition_list(competitions: Iterable[spb.CompetitionInfo]) -> spb.ListCompetitionsResponse:
    return spb.ListCompetitionsResponse(competitions=list(competitions))


class StandingsLine(Protocol):
    """A leaderboard row (arena.tournament.standings.Row)."""

    @property
    def rank(self) -> int: ...
    @property
    def engine(self) -> str: ...
    @property
    def elo(self) -> float: ...
    @property
    def elo_low(self) -> float: ...
    @property
    def elo_high(self) -> float: ...
    @property
    def played(self) -> int: ...
    @property
    def wins(self) -> int: ...
    @property
    def losses(self) -> int: ...
    @property
    def draws(self) -> int: ...
    @property
    def faults(self) -> int: ...
    @property
    def baseline(self) -> bool: ...
    @property
    def sees_every_hand(self) -> bool: ...


def standings_reply(text: str, rows: Iterable[StandingsLine] = ()) -> spb.StandingsReply:
    return spb.StandingsReply(
        text=text,
        rows=[
            spb.StandingsRow(
                rank=r.rank,
                bot=r.engine,
                elo=r.elo,
                elo_low=r.elo_low,
                elo_high=r.elo_high,
                played=r.played,
                wins=r.wins,
                losses=r.losses,
                draws=r.draws,
                faults=r.faults,
                baseline=r.baseline,
                sees_every_hand=r.sees_every_hand,
            )
            for r in rows
        ],
    )


def match_summary(
    *,
    id: str,
    seats: Sequence[str],
    status: str,
    termination: str,
    reason: str,
    final_scores: Sequence[int] = (),
    winner_side: int | None = None,
    log_chain: str | None = None,
) -> spb.MatchSummary:
    """``final_scores`` and ``winner_side`` are left unset for a match without
    a result yet (and ``winner_side`` for a draw)."""
    summary = spb.MatchSummary(
        id=id,
        seats=list(seats),
        status=status,
        termination=termination,
        reason=reason,
        final_scores=list(final_scores),
        log_chain=log_chain or "",
    )
    if winner_side is not None:
        summary.winner_side = winner_side
    return summary


class StoredEntry(Protocol):
    """A match of a results store's schedule (arena.results.store.MatchEntry)."""

    @property
    def seats(self) -> Sequence[str]: ...
    @property
    def status(self) -> Enum: ...
    @property
    def termination(self) -> Enum | None: ...
    @property
    def reason(self) -> str: ...
    @property
    def scores(self) -> tuple[int, int] | None: ...
    @property
    def winner_side(self) -> int | None: ...
    @property
    def log_chain(self) -> str | None: ...


def listed_match(key: str, entry: StoredEntry, running: set[str]) -> spb.MatchSummary:
    """A stored match as ListMatches and the web site list it (``key``:
    COMPETITION/MATCH): its stored status, or "running" while it is played."""
    return match_summary(
        id=key,
        seats=entry.seats,
        status="running" if key in running else entry.status.value,
        termination="" if entry.termination is None else entry.termination.value,
        reason=entry.reason,
        final_scores=entry.scores or (),
        winner_side=entry.winner_side,
        log_chain=entry.log_chain,
    )


def match_list(matches: Iterable[spb.MatchSummary]) -> spb.MatchList:
    return spb.MatchList(matches=list(matches))


def match_log(data: bytes) -> spb.MatchLog:
    return spb.MatchLog(data=data)


def ladder_version(
    version: Any, live_rating: float = 0.0, live_sigma: float = 0.0, sets: int = 0
) -> spb.LadderVersion:
    """A ladder's version (arena.server.storage.LadderVersion) with its live estimate."""
    return spb.LadderVersion(
        competition=version.competition,
        player=version.player,
        bot=version.bot,
        number=version.number,
        owner=version.owner,
        address=version.address,
        entered_at=version.entered_at,
        state=str(version.state),
        reason=version.reason,
        changed_at=version.changed_at,
        live_rating=live_rating,
        live_sigma=live_sigma,
        sets=sets,
    )


def ladder_version_list(versions: Iterable[spb.LadderVersion]) -> spb.LadderVersionList:
    return spb.LadderVersionList(versions=list(versions))


class SideFaultValue(Protocol):
    """A bot's own fault in one of its seats (arena.tournament.sides.SeatFault)."""

    @property
    def seat(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def message(self) -> str: ...


class SideValue(Protocol):
    """A match from one player's side (arena.tournament.sides.SideView)."""

    @property
    def entry(self) -> StoredEntry: ...
    @property
    def player(self) -> str: ...
    @property
    def version(self) -> int | None: ...
    @property
    def seats(self) -> Sequence[int]: ...
    @property
    def side(self) -> int: ...
    @property
    def partners(self) -> Sequence[str]: ...
    @property
    def opponents(self) -> Sequence[str]: ...
    @property
    def outcome(self) -> Enum: ...
    @property
    def score(self) -> int | None: ...
    @property
    def opponent_score(self) -> int | None: ...
    @property
    def faults(self) -> Sequence[SideFaultValue]: ...


def bot_match(key: str, view: SideValue, running: set[str]) -> spb.BotMatch:
    """A match of a bot's from its side (``key``: COMPETITION/MATCH)."""
    entry = view.entry
    message = spb.BotMatch(
        match=key,
        player=view.player,
        version=view.version or 0,
        seats=list(view.seats),
        side=view.side,
        partners=list(view.partners),
        opponents=list(view.opponents),
        outcome=view.outcome.value,
        faults=[spb.SeatFault(seat=f.seat, kind=f.kind, message=f.message) for f in view.faults],
        termination="" if entry.termination is None else entry.termination.value,
        reason=entry.reason,
        status="running" if key in running else entry.status.value,
        log_chain=entry.log_chain or "",
    )
    if view.score is not None and view.opponent_score is not None:
        message.score = view.score
        message.opponent_score = view.opponent_score
    return message


def bot_matches_reply(
    competition: str, bot: str, players: Iterable[str], matches: Iterable[spb.BotMatch]
) -> spb.BotMatchesReply:
    return spb.BotMatchesReply(
        competition=competition, bot=bot, players=list(players), matches=list(matches)
    )


def bot_output(
    match: str, bot: str, seats: Iterable[tuple[int, str, bytes, bool, int]]
) -> spb.BotOutput:
    """``seats``: (seat, player, bytes sent, whether they were cut, bytes kept) each."""
    return spb.BotOutput(
        match=match,
        bot=bot,
        seats=[
            spb.SeatOutput(seat=seat, player=player, data=data, truncated=cut, kept_bytes=kept)
            for seat, player, data, cut, kept in seats
        ],
    )


def public_event(event: spb.SpectatorEvent, shown: Callable[[str], str]) -> spb.SpectatorEvent:
    """A spectator event with the free text of its match's end (the reason,
    each fault's message) through ``shown``: a copy when that changes it,
    since one event goes to every watcher."""
    if not event.HasField("match_end"):
        return event
    end = event.match_end
    texts = [end.reason, *(f.message for f in end.faults)]
    if all(shown(text) == text for text in texts):
        return event
    copy = spb.SpectatorEvent()
    copy.CopyFrom(event)
    copy.match_end.reason = shown(end.reason)
    for fault in copy.match_end.faults:
        fault.message = shown(fault.message)
    return copy
