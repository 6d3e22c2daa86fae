"""Spectating: the public events of every match fanned out to the gRPC threads
that watch it. Thread-safe; events come in from the trio loop."""

from __future__ import annotations

import collections
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass

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


class Broker:
    """The events of each match, kept for its whole life (and a while after,
    for the last ``keep`` matches), so a spectator who joins late sees the match
    from its start."""

    def __init__(self, keep: int = 500) -> None:
        self._lock = threading.Lock()
        self._history: collections.OrderedDict[str, list[Spectated]] = collections.OrderedDict()
        self._subscribers: dict[str, list[queue.SimpleQueue[Spectated]]] = {}
        self._keep = keep

    def publish(self, key: str, event: MatchEvent) -> None:
        """One event of match ``key`` (COMPETITION/MATCH), for every watcher."""
        item = Spectated(event, convert.spectator_event_to_pb(event))
        with self._lock:
            self._history.setdefault(key, []).append(item)
            while len(self._history) > self._keep:
                self._history.popitem(last=False)
            for q in self._subscribers.get(key, []):
                q.put(item)

    def watch(
        self, key: str, delay: int, is_active: Callable[[], bool]
    ) -> Iterator[spb.SpectatorEvent]:
        """The events of match ``key`` from its start, held back until ``delay``
        more plays have been made, until the match ends or ``is_active()`` is false."""
        past, q = self._subscribe(key)
        pending = collections.deque(past)
        held: collections.deque[Spectated] = collections.deque()
        try:
            while is_active():
                if pending:
                    item = pending.popleft()
                else:
                    try:
                        item = q.get(timeout=0.5)
                    except queue.Empty:
                        continue
                held.append(item)
                plays_after = sum(1 for e in held if e.is_play)
                while held and (item.ends_match or plays_after > delay):
                    first = held.popleft()
                    if first.is_play:
                        plays_after -= 1
                    yield first.message
                if item.ends_match:
                    return
        finally:
            self._unsubscribe(key, q)

    def _subscribe(self, key: str) -> tuple[list[Spectated], queue.SimpleQueue[Spectated]]:
        q: queue.SimpleQueue[Spectated] = queue.SimpleQueue()
        with self._lock:
            self._subscribers.setdefault(key, []).append(q)
            return list(self._history.get(key, [])), q

    def _unsubscribe(self, key: str, q: queue.SimpleQueue[Spectated]) -> None:
        with self._lock:
            subscribers = self._subscribers.get(key, [])
            if q in subscribers:
                subscribers.remove(q)
