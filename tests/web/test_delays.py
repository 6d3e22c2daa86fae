"""The spectator delay on a live local match's frames holds back exactly what
the server's broker holds back of the same match's events."""

from __future__ import annotations

import random

from arena.broker import Spectated, _Delayed
from arena.match.outcome import MatchEvent
from arena.rules import Play
from arena.web.local import _DelayedFrames
from arena.wire.v1 import server_pb2 as spb


def test_frames_are_held_back_as_the_broker_holds_events() -> None:
    rng = random.Random(7)
    for delay in (0, 1, 2, 3, 5):
        for _ in range(50):
            kinds = [
                rng.choice(["play"] * 6 + ["deal", "scored"]) for _ in range(rng.randrange(40))
            ]
            events = [
                Spectated(
                    MatchEvent(Play(0, 1, 0, False) if k == "play" else None, None, ()),  # type: ignore[arg-type]
                    spb.SpectatorEvent(),
                )
                for k in kinds
            ]
            number = {id(e): i for i, e in enumerate(events)}
            frames = [{"kind": k, "n": i} for i, k in enumerate(kinds)]
            broker, site = _Delayed(delay), _DelayedFrames(delay)
            chunks = []
            i = 0
            while i < len(kinds):  # fed in random chunks, as polls and wakes find them
                step = rng.randrange(1, 5)
                chunks.append((i, i + step))
                i += step
            for a, b in chunks:
                sent = [number[id(e)] for e in broker.feed(events[a:b])]
                shown = [f["n"] for f in site.feed(frames[a:b])]
                assert shown == sent, (delay, kinds, a, b)
            assert [f["n"] for f in site.flush()] == [number[id(e)] for e in broker.flush()]
