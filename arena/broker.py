"""Spectating: the public events of every match fanned out to the streams
that watch it.

Events come in from the trio loop; watchers are coroutines on the gRPC
server's asyncio loop (``watch``), or on the trio loop itself for the web
site's event streams (``watch_trio``). A publish wakes the watchers of its
match through their loop's thread-safe call (``call_soon_threadsafe``, or a
trio token's ``run_sync_soon``): no thread waits per stream and nothing polls,
so hundreds of open streams cost memory, not threads.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import trio

from arena.match.outcome import MatchEvent, MatchResult
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
    """A waiting stream: ``loop`` is what its wake is scheduled through (an
    asyncio loop or a trio token), ``schedule`` that thread-safe call, ``wake``
    what it runs there."""

    loop: object
    schedule: Callable[[Callable[..., Any], list[Callable[[], None]]], Any]
    wake: Callable[[], None]


def _trio_watcher() -> tuple[_Watcher, list[trio.Event]]:
    """A watcher on the running trio loop, and the one-item list holding the
    event its wake sets (replaced by the waiter before each wait)."""
    token = trio.lowlevel.current_trio_token()
    wakes = [trio.Event()]
    return _Watcher(token, token.run_sync_soon, lambda: wakes[0].set()), wakes


class _Delayed:
    """Holds events back until ``delay`` more plays have followed them."""

    def __init__(self, delay: int) -> None:
        self.delay = delay
        self.held: collections.deque[Spectated] = collections.deque()
        self.plays_held = 0

    def feed(self, fresh: Iterable[Spectated]) -> Iterator[Spectated]:
        for item in fresh:
            self.held.append(item)
            self.plays_held += item.is_play
            # The first held event goes once ``delay`` plays have followed it.
            while self.held and self.plays_held - self.held[0].is_play >= self.delay:
                first = self.held.popleft()
                self.plays_held -= first.is_play
                yield first

    def flush(self) -> Iterator[Spectated]:
        while self.held:
            yield self.held.popleft()


class Broker:
    """The events of each match, kept for its whole life (and a while after,
    for the last ``keep`` matches), so a spectator who joins late sees the match
    from its start. Thread-safe."""

    def __init__(self, keep: int = 500) -> None:
        self._lock = threading.Lock()
        self._matches: collections.OrderedDict[str, _Match] = collections.OrderedDict()
        self._watchers: dict[str, set[_Watcher]] = {}
        self._ended: collections.Counter[str] = collections.Counter()  # per competition
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
        competition = key.partition("/")[0]
        with self._lock:
            self._match(key).ended = True
            self._wake(key)
            self._ended[competition] += 1
            self._wake(competition)

    def end_unfinished(self, competition: str) -> int:
        """``competition`` stopped for good (it failed): the streams of its
        matches that never ended end now, instead of waiting for plays that
        will not come, and those matches are forgotten, so that a later run of
        them starts afresh. How many were ended."""
        prefix = competition + "/"
        with self._lock:
            keys = [k for k, m in self._matches.items() if k.startswith(prefix) and not m.ended]
            for key in keys:
                self._matches.pop(key).ended = True
                self._wake(key)
        return len(keys)

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
        loop = asyncio.get_running_loop()
        event = asyncio.Event()
        watcher = _Watcher(loop, loop.call_soon_threadsafe, event.set)
        match = self._subscribe(key, watcher)
        seen = 0
        delayed = _Delayed(delay)
        try:
            while True:
                event.clear()
                with self._lock:
                    fresh = match.events[seen:]
                    ended = match.ended
                seen += len(fresh)
                for item in delayed.feed(fresh):
                    yield item.message
                if ended:
                    for item in delayed.flush():
                        yield item.message
                    return
                await event.wait()
        finally:
            self._unsubscribe(key, watcher)

    async def watch_trio(self, key: str, delay: int) -> AsyncIterator[Spectated]:
        """As ``watch``, on a trio loop (the web site's), yielding the events
        themselves with their messages."""
        watcher, wakes = _trio_watcher()
        match = self._subscribe(key, watcher)
        seen = 0
        delayed = _Delayed(delay)
        try:
            while True:
                wakes[0] = trio.Event()
                with self._lock:
                    fresh = match.events[seen:]
                    ended = match.ended
                seen += len(fresh)
                for item in delayed.feed(fresh):
                    yield item
                if ended:
                    for item in delayed.flush():
                        yield item
                    return
                await wakes[0].wait()
        finally:
            self._unsubscribe(key, watcher)

    async def results_trio(self, competition: str) -> AsyncIterator[int]:
        """How many matches of ``competition`` have ended since the server
        started, each time one more has (on a trio loop: the web site's
        standings). A competition's key has no "/", so never a match's."""
        watcher, wakes = _trio_watcher()
        with self._lock:
            self._watchers.setdefault(competition, set()).add(watcher)
            seen = self._ended[competition]
        try:
            while True:
                wakes[0] = trio.Event()
                with self._lock:
                    now = self._ended[competition]
                if now != seen:
                    seen = now
                    yield now
                await wakes[0].wait()
        finally:
            self._unsubscribe(competition, watcher)

    def _subscribe(self, key: str, watcher: _Watcher) -> _Match:
        with self._lock:
            match = self._match(key)
            self._watchers.setdefault(key, set()).add(watcher)
        return match

    def _unsubscribe(self, key: str, watcher: _Watcher) -> None:
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
        by_loop: dict[object, tuple[_Watcher, list[Callable[[], None]]]] = {}
        for watcher in self._watchers.get(key, ()):
            by_loop.setdefault(watcher.loop, (watcher, []))[1].append(watcher.wake)
        for first, wakes in by_loop.values():
            # Its loop has closed: stopping.
            with contextlib.suppress(RuntimeError, trio.RunFinishedError):
                first.schedule(_set_all, wakes)


def _set_all(wakes: list[Callable[[], None]]) -> None:
    for wake in wakes:
        wake()
