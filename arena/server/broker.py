"""Spectating: the public events of every match fanned out to the streams
that watch it.

Events come in from the trio loop; watchers are coroutines on the gRPC
server's asyncio loop. A publish wakes the watchers of its match through
``call_soon_threadsafe``: no thread waits per stream and nothing polls, so
hundreds of open streams cost memory, not threads.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from arena.outcome import MatchEvent, MatchResult
from arena.rules import Play
from arena.wire import convert
from arena.wire.v1 import server_pb2 as spb


@dataclass(frozen=True)
class Spectated:
    """A public event and its message, converted once, on the loop that plays the match."""

    event: MatchEvent
    message: spb.SpectatorEvent

    @property
    def is_play(self) -> bool:
        return isinstance(self.event.what, Play)

    @property
    def ends_match(self) -> bool:
        return isinstance(self.event.what, MatchResult)


@dataclass
class _Match:
    """The events of one match so far, and whether it has ended (with a result or not)."""

    events: list[Spectated] = field(default_factory=list)
    ended: bool = False


@dataclass(eq=False)
class _Watcher:
    loop: asyncio.AbstractEventLoop
    wake: asyncio.Event


class Broker:
    """The events of each match, kept for its whole life (and a while after,
    for the last ``keep`` matches), so a spectator who joins late sees the match
    from its start. Thread-safe."""

    def __init__(self, keep: int = 500) -> None:
        self._lock = threading.Lock()
        self._matches: collections.OrderedDict[str, _Match] = collections.OrderedDict()
        self._watchers: dict[str, set[_Watcher]] = {}
        self._keep = keep

    def publish(self, key: str, event: MatchEvent) -> None:
        """One event of match ``key`` (COMPETITION/MATCH), for every watcher."""
        item = Spectated(event, convert.spectator_event_to_pb(event))
        with self._lock:
            match = self._match(key)
            match.events.append(item)
            match.ended = match.ended or item.ends_match
            self._wake(key)

    def close(self, key: str) -> None:
        """Match ``key`` is over, whether or not it published a result (a void
        match, a forfeit without play): its watchers' streams end."""
        with self._lock:
            self._match(key).ended = True
            self._wake(key)

    def has_ended(self, key: str) -> bool:
        """Whether the broker still holds match ``key`` and it has ended."""
        with self._lock:
            match = self._matches.get(key)
            return match is not None and match.ended

    def watching(self) -> int:
        """How many streams watch a match now."""
        with self._lock:
            return sum(len(w) for w in self._watchers.values())

    def subscribed_keys(self) -> int:
        """How many matches have a watcher now (each key is dropped with its last watcher)."""
        with self._lock:
            return len(self._watchers)

    async def watch(self, key: str, delay: int) -> AsyncIterator[spb.SpectatorEvent]:
        """The events of match ``key`` from its start, each held back until
        ``delay`` more plays have been made (none with 0: a deal's end is not
        kept waiting for the next play), until the match ends. Runs on an
        asyncio loop; cancelling it unsubscribes."""
        watcher = _Watcher(asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            match = self._match(key)
            self._watchers.setdefault(key, set()).add(watcher)
        seen = 0
        held: collections.deque[Spectated] = collections.deque()
        plays_held = 0
        try:
            while True:
                watcher.wake.clear()
                with self._lock:
                    fresh = match.events[seen:]
                    ended = match.ended
                seen += len(fresh)
                for item in fresh:
                    held.append(item)
                    plays_held += item.is_play
                    # The first held event goes once ``delay`` plays have followed it.
                    while held and plays_held - held[0].is_play >= delay:
                        first = held.popleft()
                        plays_held -= first.is_play
                        yield first.message
                if ended:
                    for item in held:
                        yield item.message
                    return
                await watcher.wake.wait()
        finally:
            with self._lock:
                watchers = self._watchers.get(key)
                if watchers is not None:
                    watchers.discard(watcher)
                    if not watchers:
                        del self._watchers[key]

    def _match(self, key: str) -> _Match:
        """The entry of match ``key``, made if new (the lock is held); the
        oldest entries beyond ``keep`` that nobody watches are dropped."""
        match = self._matches.get(key)
        if match is None:
            match = self._matches[key] = _Match()
            if len(self._matches) > self._keep:
                unwatched = [k for k in self._matches if k not in self._watchers and k != key]
                for old in unwatched[: len(self._matches) - self._keep]:
                    del self._matches[old]
        return match

    def _wake(self, key: str) -> None:
        """Wake every watcher of ``key``, with one call into each loop (the lock is held)."""
        by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Event]] = {}
        for watcher in self._watchers.get(key, ()):
            by_loop.setdefault(watcher.loop, []).append(watcher.wake)
        for loop, wakes in by_loop.items():
            with contextlib.suppress(RuntimeError):  # its loop has closed: stopping
                loop.call_soon_threadsafe(_set_all, wakes)


def _set_all(wakes: list[asyncio.Event]) -> None:
    for wake in wakes:
        wake.set()
