"""The web site's source for a local tournament's output directory (`arena
web DIR`): its store, its logs followed as they grow while another process
plays, and the standings cache with the directory as its one competition."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import trio

from arena.errors import ArenaError
from arena.logs.replay import replay_log
from arena.logs.viewer import frames
from arena.results.layout import Layout
from arena.results.store import MatchStatus, Store, reading_store
from arena.rules import Variant
from arena.tournament.standings_cache import StandingsCache
from arena.web.data import LiveItem, StoreSource
from arena.wire import service as wire
from arena.wire.v1 import server_pb2 as spb

# A local tournament run by another process is followed through its logs,
# written and flushed record by record: a match not yet recorded whose log
# grew within LIVE_IDLE_SECONDS is being played (an older partial log is a
# stopped run's, played again on resume). Matches start in schedule order, so
# only the first LIVE_LOOKAHEAD matches still pending are looked at.
LIVE_IDLE_SECONDS = 120.0
LIVE_LOOKAHEAD = 256
TAIL_SECONDS = 0.1  # how often a live local match's log, or its store, is looked at again
# Keys of a frame that only a log knows (a spectator event carries none of them):
# a live frame leaves them blank.
LOG_ONLY = {"think_ms": None, "comment": "", "fault": None}


class LocalSource(StoreSource):
    """A local tournament's output directory: one competition, whose id is
    the directory's name; it shows the tournament's own name."""

    def __init__(self, directory: Path, delay: int = 0) -> None:
        self.directory = directory.resolve()
        self.id = self.directory.name
        self.title = f"Scopa Arena — {self.id}"
        self.delay = delay
        self.files = Layout.read(self.directory)
        # The server's cache, with the directory as its one competition.
        self._cache = StandingsCache(self.directory.parent)
        super().__init__(self._cache)

    def warm(self) -> None:
        """Compute the standings (a bootstrap: seconds for a large tournament),
        the crosstable and the rating series now, before anyone asks."""
        self.overview(self.id)

    def close(self) -> None:
        self._cache.close()

    def _open(self, cid: str) -> contextlib.AbstractContextManager[Store | None]:
        if cid != self.id:
            return contextlib.nullcontext()
        return reading_store(self.files.store)

    def _layout(self, cid: str) -> Layout:
        return self.files

    def _live_log(self, mid: str) -> Path:
        """Where the tournament writes match ``mid``'s log while it plays it."""
        return self.files.log_of(mid)

    def _is_growing(self, mid: str) -> bool:
        try:
            return time.time() - self._live_log(mid).stat().st_mtime < LIVE_IDLE_SECONDS
        except OSError:
            return False

    def _running(self, cid: str) -> set[str]:
        with self._open(cid) as store:
            pending = [] if store is None else store.pending()[:LIVE_LOOKAHEAD]
        return {f"{cid}/{m.id}" for m in pending if self._is_growing(m.id)}

    def spectator_delay(self, cid: str) -> int:
        return self.delay

    def watchable(self, cid: str, mid: str) -> tuple[Variant, list[str]] | None:
        """A match not yet recorded whose log is growing."""
        with self._open(cid) as store:
            entry = None if store is None else store.match(mid)
        if entry is None or entry.status is MatchStatus.DONE or not self._is_growing(mid):
            return None
        return self.seats(cid, mid)

    def live(
        self, key: str, seats: tuple[Variant, list[str]], delay: int
    ) -> AsyncIterator[LiveItem]:
        """The match's log read again as it grows, replayed and shown as a
        spectator sees it; ends with the match, or when the log stops growing
        (the run stopped) or is started again (the match is replayed)."""
        path = self._live_log(key.partition("/")[2])

        async def items() -> AsyncIterator[LiveItem]:
            sent, size, quiet = 0, -1, 0.0
            delayed = _DelayedFrames(delay)
            while quiet < LIVE_IDLE_SECONDS:
                now = await trio.to_thread.run_sync(_file_size, path)
                if now == size:
                    quiet += TAIL_SECONDS
                    await trio.sleep(TAIL_SECONDS)
                    continue
                if now < size:
                    break  # written again from the start: a new attempt at the match
                size, quiet = now, 0.0
                shown = await trio.to_thread.run_sync(_public_frames, path)
                if shown is None:
                    await trio.sleep(TAIL_SECONDS)
                    continue
                frames, ended = shown
                fresh = frames[sent:]
                sent = len(frames)
                released = delayed.feed(fresh)
                if ended:
                    released += delayed.flush()
                if released:
                    yield None, released
                if ended:
                    return

        return items()

    def results(self, cid: str) -> AsyncIterator[int]:
        """The store's count of recorded matches, looked at again whenever its
        files change (the tournament writing them is another process)."""

        async def counts() -> AsyncIterator[int]:
            done, stamp = -1, None
            while True:
                now = await trio.to_thread.run_sync(_stamp, self.files.store)
                if now != stamp:
                    stamp = now
                    info = await trio.to_thread.run_sync(self.competition, cid)
                    count = 0 if info is None else info.matches_done
                    if count != done:
                        if done >= 0:
                            yield count
                        done = count
                await trio.sleep(TAIL_SECONDS * 5)

        return counts()

    def competitions(self) -> list[spb.CompetitionInfo]:
        info = self.competition(self.id)
        return [] if info is None else [info]

    def competition(self, cid: str) -> spb.CompetitionInfo | None:
        if cid != self.id:
            return None
        with self._open(cid) as store:
            if store is None:
                return wire.competition_info(id=cid, name=cid, status="created", bots=[])
            done, total = store.counts()
            bots = [n for n, *_ in store.engines()]
            commitment = store.meta("seed_commitment") or ""
            name = store.meta("name") or cid  # a store of an older arena has none
            seed = store.revealed_seed()
            created = store.meta("created_at") or ""
            ladder = isinstance(store.kept_json("ladder"), dict)  # a server's ladder's store
            if ladder:  # its entrants are its baselines, as the server lists them
                kept = store.kept_json("baselines")
                bots = [b for b in bots if isinstance(kept, list) and b in kept]
            settings = store.kept_json("config")
            final_commitment = store.meta("final_seed_commitment") or ""
            final_seed = store.meta("final_seed") if store.meta("final_seed_revealed") else ""
        # The run reveals its seed when, and only when, it is complete.
        status = "finished" if seed is not None else "running"
        file_format = settings.get("format", "") if isinstance(settings, dict) else ""
        phase = ""
        if ladder:
            file_format = "ladder"
            phase = "finished" if final_seed else "final" if final_commitment else "ladder"
        return wire.competition_info(
            id=cid,
            name=name,
            status=status,
            bots=bots,
            matches_done=done,
            matches_total=total,
            seed_commitment=commitment,
            seed=seed or "",
            created_at=created,
            format=str(file_format),
            phase=phase,
            final_seed_commitment=final_commitment,
            final_seed=final_seed or "",
        )


class _DelayedFrames:
    """Holds live frames back until ``delay`` more plays have followed them,
    as the broker holds events (a deal's start and end wait for the next play)."""

    def __init__(self, delay: int) -> None:
        self.delay = delay
        self.held: list[dict[str, Any]] = []

    def feed(self, fresh: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self.held += fresh
        plays = [i for i, f in enumerate(self.held) if f["kind"] == "play"]
        if len(plays) < self.delay:
            return []
        # Everything before the (delay)-th play from the end goes; that play too when delay is 0.
        cut = len(self.held) if self.delay == 0 else plays[-self.delay]
        out, self.held = self.held[:cut], self.held[cut:]
        return out

    def flush(self) -> list[dict[str, Any]]:
        out, self.held = self.held, []
        return out


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return -1


def _stamp(path: Path) -> tuple[float, ...]:
    """When the store or its write-ahead log last changed."""
    out = []
    for name in (path, path.with_name(path.name + "-wal")):
        try:
            st = name.stat()
            out += [st.st_mtime, st.st_size]
        except OSError:
            out += [0.0, 0]
    return tuple(out)


def _public_frames(path: Path) -> tuple[list[dict[str, Any]], bool] | None:
    """The frames a spectator sees of the log so far (no hand, nothing only
    the log knows), and whether the match has ended; None while the log
    cannot be read yet."""
    try:
        replay = replay_log(path)
    except (ArenaError, OSError):
        return None
    shown = [{**f, **LOG_ONLY} for f in frames(replay, public=True) if f["kind"] != "fault"]
    return shown, replay.complete
