"""A cluster's workers run at normal priority and play many matches at once;
spectators get a match's events while it plays, all of them, in order, with
no hand; and a match whose worker is lost is not shown twice (its spectators
see it stop, then its result)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
import trio

from arena.cluster import open_cluster
from arena.match.outcome import DealBegan, MatchEvent, MatchResult, Termination
from arena.match.settings import ClockSettings, ClusterSettings, MatchSettings, engine_spec
from arena.rules import Game, Play, Variant
from tests.support.paths import ROOT

pytestmark = [pytest.mark.process, pytest.mark.timeout(300)]

SLOW = engine_spec("slow", f"python {ROOT}/tests/cluster/slow_greedy.py")
RANDOM = engine_spec("random", "builtin:random")
EIGHT_DEALS = Variant(Game.SCOPA, target=None, deal_limit=8)


def worker_niceness() -> list[int]:
    """The nice value of every cluster worker process on this machine."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and (proc / "cmdline").read_bytes().startswith(
                b"ray::MatchWorker"
            ):
                fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
                found.append(int(fields[16]))  # stat field 19: nice
        except OSError:
            continue
    return found


def settings(seed: int, variant: Variant | None = None) -> MatchSettings:
    clock = ClockSettings(move_time=2.0)
    return MatchSettings(variant or Variant(), seed=seed, clock=clock, match_id=f"m{seed}")


def test_workers_play_at_once_and_spectators_follow_their_matches(
    ray_temp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    cluster_settings = ClusterSettings("local", workers=2, attempts=2)

    async def main() -> None:
        async with open_cluster(cluster_settings, notice=lambda text: None, temp_dir=ray_temp) as c:
            # Ray starts workers at nice 15; the referee's clocks must not run below
            # the bots they time, or they cut them off late.
            assert worker_niceness() == [0, 0]

            # A whole match, followed: its events arrive before it ends, then the rest.
            seen: list[MatchEvent] = []

            async def follow() -> None:
                report = await c.play([SLOW, RANDOM], settings(1), spectate=seen.append)
                assert report.result.termination is Termination.COMPLETED
                plays = [e for e in seen if isinstance(e.what, Play)]
                assert len(plays) == len(report.decisions)
                moves = [(d.move.card, d.move.captures) for d in report.decisions if d.move]
                assert [(p.what.card, p.what.captures) for p in plays] == moves
                assert isinstance(seen[-1].what, MatchResult)
                assert all(e.view is None or set(e.view.hands) == {None} for e in seen)

            async with trio.open_nursery() as nursery:
                nursery.start_soon(follow)
                while not any(isinstance(e.what, Play) for e in seen):
                    await trio.sleep(0.05)
                before_end = len(seen)
            assert 0 < before_end < len(seen)

            # A worker plays the matches of bots it launched at once, not one by one:
            # of six on two workers, more than two are under way together (one by
            # one, a worker would begin a match only once its last had ended). Said
            # by the matches' own events, not by how long they took; matches of eight
            # deals last long enough that their bots' start-ups do not space them out.
            under_way: set[int] = set()
            most_at_once = 0

            def follower(seed: int) -> Callable[[MatchEvent], None]:
                def spectate(event: MatchEvent) -> None:
                    nonlocal most_at_once
                    if isinstance(event.what, MatchResult):
                        under_way.discard(seed)
                    else:
                        under_way.add(seed)
                        most_at_once = max(most_at_once, len(under_way))

                return spectate

            async with trio.open_nursery() as nursery:
                for seed in range(10, 16):
                    play = partial(c.play, spectate=follower(seed))
                    nursery.start_soon(play, [SLOW, RANDOM], settings(seed, EIGHT_DEALS))
            assert not under_way and most_at_once > 2, most_at_once
            print(f"six matches on two workers: {most_at_once} under way at once at most")

            # Its worker lost mid-match: played again elsewhere, not shown again.
            replayed: list[MatchEvent] = []
            async with trio.open_nursery() as nursery:

                async def play_it() -> None:
                    report = await c.play([SLOW, RANDOM], settings(2), spectate=replayed.append)
                    assert report.result.termination is Termination.COMPLETED

                nursery.start_soon(play_it)
                while sum(isinstance(e.what, Play) for e in replayed) < 5:
                    await trio.sleep(0.05)
                (followed,) = c._followed.values()
                c._pool.ray.kill(followed.worker.actor)
            assert c.replays == 1
            deals = [e.what.deal_number for e in replayed if isinstance(e.what, DealBegan)]
            assert deals and deals == sorted(set(deals))  # no deal begins twice
            assert not any(isinstance(e.what, MatchResult) for e in replayed)

    trio.run(main)
