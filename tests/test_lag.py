"""The arena's own lag is never charged to a bot, and a machine that cannot keep
up plays fewer matches at once (in-process strategies: no process needed)."""

import random
import re
import threading
import time

import trio

from arena.match.outcome import MatchResult
from arena.match.settings import ClockSettings, MatchSettings
from arena.play import run_match
from arena.players.strategies import greedy_strategy
from arena.rules import Game, Variant
from arena.tournament import runner as runner_module
from arena.tournament.config import config_from_dict
from arena.tournament.lifecycle import Run
from arena.tournament.runner import Runner
from arena.tournament.schedule import build_schedule
from arena.transport import in_process
from arena.transport.in_process import InProcessConnection


class StrategyClock:
    """The clock an in-process strategy is timed by, where it runs: a step of
    2**-10 s (exact in binary) each time it is read, so that every decision
    takes exactly one step, however loaded the machine."""

    STEP = 2.0**-10

    def __init__(self) -> None:
        self.reads = 0

    def perf_counter(self) -> float:
        self.reads += 1
        return self.reads * self.STEP


def test_an_event_loop_blocked_past_the_deadline_is_not_a_strategys_timeout(monkeypatch):
    """Three times, right as a strategy is asked for its move, the arena's event
    loop is busy elsewhere for 0.3 s, past the 0.2 s move time."""
    clock = StrategyClock()
    monkeypatch.setattr(in_process, "time", clock)
    asked = threading.Event()
    greedy = greedy_strategy(random.Random(1))

    def strategy(observation, legal):
        asked.set()
        return greedy(observation, legal)

    settings = MatchSettings(
        Variant(Game.SCOPA, target=None, deal_limit=1), seed=4, clock=ClockSettings(0.2, grace=0)
    )
    engines = [("slowed", InProcessConnection(strategy, name="slowed")), "r=builtin:random"]
    blocked = 0

    async def main():
        async def block_the_loop():
            nonlocal blocked
            for _ in range(3):
                asked.clear()
                while not asked.is_set():
                    await trio.sleep(0)
                time.sleep(0.3)  # blocks the event loop itself
                blocked += 1

        async with trio.open_nursery() as nursery:
            nursery.start_soon(block_the_loop)
            report = await run_match(engines, settings)
            nursery.cancel_scope.cancel()
        return report

    report = trio.run(main)
    assert not report.result.faults, report.result.faults
    assert blocked == 3
    # Each seat is charged the strategies' own time, as timed where they ran.
    assert {d.think_time for d in report.decisions} == {StrategyClock.STEP}


def test_the_runner_plays_fewer_matches_at_once_when_the_loop_runs_late(tmp_path, monkeypatch):
    monkeypatch.setattr(runner_module, "LAG_SAMPLE", 0.02)
    monkeypatch.setattr(runner_module, "LAG_LIMIT", -1.0)  # every sample counts as late
    cfg = config_from_dict(
        {
            "engine": [
                {"name": "a", "spec": "builtin:random"},
                {"name": "b", "spec": "builtin:greedy"},
            ],
            "rounds": 6,
            "concurrency": 4,
            "output": str(tmp_path),
        }
    )
    opened = Run.open(cfg)
    store, cfg = opened.store, opened.cfg
    store.schedule(build_schedule(cfg))
    notices: list[str] = []
    at_once: set[str] = set()
    alongside: list[int] = []  # matches in flight when one starts, once lowered to 1
    # Lowering the limit stops no match: those already started (a match is seen
    # here only from its first event, after its seats open) play on. Counted once
    # every match seen has ended after the limit reached 1.
    drained = [False]

    def spectate(match_id, event):
        if isinstance(event.what, MatchResult):
            at_once.discard(match_id)
            drained[0] = drained[0] or (len(notices) >= 3 and not at_once)
        elif match_id not in at_once:
            at_once.add(match_id)
            if drained[0]:
                alongside.append(len(at_once))

    runner = Runner(cfg, store, spectate=spectate, notice=notices.append)
    trio.run(runner.run, store.pending())
    assert store.counts() == (12, 12)
    store.close()
    lowered = [
        re.fullmatch(
            r"this machine cannot keep (\d+) matches at once \(its event loop "
            r"ran \d+ ms late\): now (\d+) at once",
            n,
        )
        for n in notices
    ]
    assert [m.groups() for m in lowered if m] == [("4", "3"), ("3", "2"), ("2", "1")]
    assert alongside and set(alongside) == {1}  # once lowered to 1, one match at a time
