"""The competition server's messages (server.proto), built from plain values.

The server's handlers pass names, numbers and strings; the messages they send
are built here and nowhere else. Spectator events are game values and are
converted in the sibling module arena.wire.convert.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.wire.v1 import server_pb2 as spb


def participant_registered(name: str, token: str) -> spb.RegisterParticipantResponse:
    return spb.RegisterParticipantResponse(name=name, token=token)


def bot_info(
    *,
    name: str,
    owner: str,
    address: str,
    engine_name: str,
    engine_version: str,
    withdrawn: bool,
) -> spb.BotInfo:
    return spb.BotInfo(
        name=name,
        owner=owner,
        address=address,
        engine_name=engine_name,
        engine_version=engine_version,
        withdrawn=withdrawn,
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
) -> spb.CompetitionInfo:
    return spb.CompetitionInfo(
        id=id,
        name=name,
        status=status,
        bots=list(bots),
        matches_done=matches_done,
        matches_total=matches_total,
    )


def standings_row(
    *,
    rank: int,
    bot: str,
    elo: float,
    elo_low: float,
    elo_high: float,
    played: int,
    wins: int,
    losses: int,
    draws: int,
    faults: int,
) -> spb.StandingsRow:
    return spb.StandingsRow(
        rank=rank,
        bot=bot,
        elo=elo,
        elo_low=elo_low,
        elo_high=elo_high,
        played=played,
        wins=wins,
        losses=losses,
        draws=draws,
        faults=faults,
    )


def standings_reply(text: str, rows: Iterable[spb.StandingsRow] = ()) -> spb.StandingsReply:
    return spb.StandingsReply(text=text, rows=list(rows))


def match_summary(
    *,
    id: str,
    seats: Sequence[str],
    status: str,
    termination: str,
    reason: str,
    final_scores: Sequence[int] = (),
    winner_side: int | None = None,
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
    )
    if winner_side is not None:
        summary.winner_side = winner_side
    return summary


def match_list(matches: Iterable[spb.MatchSummary]) -> spb.MatchList:
    return spb.MatchList(matches=list(matches))


def match_log(data: bytes) -> spb.MatchLog:
    return spb.MatchLog(data=data)
