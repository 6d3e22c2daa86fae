"""A bot author's view of a competition: the bot's matches with each result
named from its side (public), and what the bot itself printed in a match,
for its owner alone. In a ladder each version is a player, ``BOT@N``
(versions.py); a bot is all of its players."""

from __future__ import annotations

import enum
import os
from pathlib import Path

from arena.errors import ArenaError
from arena.results.layout import Layout, competition_layout
from arena.results.store import MatchEntry, MatchStatus
from arena.server.competitions import competition_results
from arena.server.storage import Competition, ServerStorage
from arena.server.submissions import submission_digest
from arena.server.versions import bot_of, version_player
from arena.tournament import sides
from arena.wire import service as wire
from arena.wire.protocol import MAX_BOT_OUTPUT_REPLY_BYTES
from arena.wire.v1 import server_pb2 as spb


class Refusal(enum.Enum):
    """Why a view is not given, as the caller can act on it."""

    INVALID = "invalid"  # a malformed request
    NOT_FOUND = "not found"  # no such competition, match, bot or version
    NOT_OWNER = "not owner"  # another participant's bot
    NOT_KEPT = "not kept"  # the match has not ended, or the arena did not launch the bot


class ViewRefused(ArenaError):
    """An author's view the server does not give, with the reason for the caller."""

    def __init__(self, refusal: Refusal, message: str) -> None:
        super().__init__(message)
        self.refusal = refusal


def bot_matches(
    data: Path,
    storage: ServerStorage,
    comp_id: str,
    bot: str,
    version: int | None,
    running: set[str],
) -> spb.BotMatchesReply:
    """``bot``'s matches in competition ``comp_id`` from its side, only its
    version ``version``'s when given; ``running``: COMPETITION/MATCH keys
    being played now."""
    competition = _competition(storage, comp_id)
    with competition_results(data, comp_id) as store:
        # Every seat is one of the store's engines (a ladder adds each version's
        # before it is scheduled), so the players are found without the schedule.
        names = list(competition.bots) if store is None else [n for n, *_ in store.engines()]
        players = sides.players_of(names, bot, bot_of)
        if not players:
            raise ViewRefused(Refusal.NOT_FOUND, _absent(storage, competition, bot))
        if version is not None and version_player(bot, version) not in players:
            raise ViewRefused(
                Refusal.NOT_FOUND,
                f"bot {bot!r} has no version {version} in competition {comp_id}; "
                f"it plays there as {', '.join(players)}",
            )
        entries = [] if store is None else store.matches_of(players)
        faults = [] if store is None else store.seat_faults(players)
    ids = {key.partition("/")[2] for key in running if key.startswith(f"{comp_id}/")}
    views = sides.bot_matches(entries, faults, bot, bot_of, version=version, running=ids)
    return wire.bot_matches_reply(
        comp_id,
        bot,
        players,
        (wire.bot_match(f"{comp_id}/{v.entry.id}", v, running) for v in views),
    )


def bot_output(
    data: Path, storage: ServerStorage, key: str, bot: str, reader: str | None
) -> spb.BotOutput:
    """What ``bot`` printed in match ``key`` (COMPETITION/MATCH), one part per
    seat it sat in; ``reader``: the participant asking (None: the organiser),
    who must own the bot."""
    comp_id, _, match_id = key.partition("/")
    if not match_id:
        raise ViewRefused(Refusal.INVALID, "a match id looks like COMPETITION/MATCH")
    competition = _competition(storage, comp_id)
    record = storage.bot(bot)
    if record is None:
        raise ViewRefused(Refusal.NOT_FOUND, f"no bot named {bot!r}")
    if reader is not None and record.owner != reader:
        raise ViewRefused(
            Refusal.NOT_OWNER,
            f"bot {bot!r} belongs to another participant: only its owner (or the organiser) "
            "may download its output",
        )
    with competition_results(data, comp_id) as store:
        entry = None if store is None else store.match(match_id)
    if entry is None:
        raise ViewRefused(Refusal.NOT_FOUND, f"no match {key!r}")
    seated = [(seat, name) for seat, name in enumerate(entry.seats) if bot_of(name)[0] == bot]
    if not seated:
        raise ViewRefused(
            Refusal.NOT_FOUND,
            f"bot {bot!r} did not play in match {key} (its seats: {', '.join(entry.seats)})",
        )
    _refuse_unplayed(entry, key)
    layout = competition_layout(data, comp_id)
    found = [
        (seat, player, *part)
        for seat, player in seated
        if (part := _seat_output(layout, match_id, seat, player)) is not None
    ]
    if not found:
        played = [_played_from(storage, competition, player) for _, player in seated]
        address = next((a for a in played if a), competition.engines.get(bot, record.address))
        raise ViewRefused(Refusal.NOT_KEPT, _not_launched(address, bot, key))
    return wire.bot_output(key, bot, found)


def _refuse_unplayed(entry: MatchEntry, key: str) -> None:
    if entry.status is not MatchStatus.DONE:
        raise ViewRefused(
            Refusal.NOT_KEPT,
            f"match {key} has not ended: its bots' output is given once it has",
        )
    if not entry.log_path:
        raise ViewRefused(
            Refusal.NOT_KEPT,
            f"match {key} was forfeited unplayed ({entry.reason}): no bot was launched for it",
        )


def _seat_output(
    layout: Layout, match_id: str, seat: int, player: str
) -> tuple[bytes, bool, int] | None:
    """(the bytes sent, whether they were cut, the bytes kept) of the process
    that played ``seat``, as the launcher wrote it (arena/transport/seats.py);
    None when the arena kept none (it did not launch that seat's bot)."""
    stem = layout.log_of(match_id).stem
    path = layout.bot_output / f"{stem}.seat{seat}.{player}.log"
    try:
        with path.open("rb") as file:
            kept = os.fstat(file.fileno()).st_size
            data = file.read(MAX_BOT_OUTPUT_REPLY_BYTES)
    except FileNotFoundError:
        return None
    return data, kept > len(data), kept


def _played_from(storage: ServerStorage, competition: Competition, player: str) -> str | None:
    """Where a player was reached from: a ladder's version as it entered, else
    the competition's snapshot; None if neither says."""
    version = storage.version(competition.id, player)
    return version.address if version is not None else competition.engines.get(player)


def _not_launched(address: str, bot: str, key: str) -> str:
    """Why there is no output of ``bot``, which played from ``address``."""
    if address.startswith("builtin:"):
        return f"bot {bot!r} is a built-in strategy, played inside the arena: it has no output"
    if submission_digest(address) is None:
        return (
            f"the arena did not launch bot {bot!r} in match {key}: it ran at {address}, "
            "on its owner's machine, where its output is"
        )
    return f"the arena kept no output of bot {bot!r} in match {key}"


def _competition(storage: ServerStorage, comp_id: str) -> Competition:
    competition = storage.competition(comp_id)
    if competition is None:
        raise ViewRefused(Refusal.NOT_FOUND, f"no competition {comp_id!r}")
    return competition


def _absent(storage: ServerStorage, competition: Competition, bot: str) -> str:
    if storage.bot(bot) is None:
        return f"no bot named {bot!r}"
    return (
        f"bot {bot!r} does not play in competition {competition.id} "
        f"(its bots: {', '.join(competition.bots)})"
    )
