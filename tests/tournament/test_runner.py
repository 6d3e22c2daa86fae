"""Tournaments run for real: a store, logs, warm bot processes, suspension, SPRT."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from arena.logs.record import read_log
from arena.match.outcome import Termination
from arena.tournament.config import config_from_dict
from arena.tournament.lifecycle import Run
from arena.tournament.standings import compute_standings
from tests.support.processes import live_pids

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")


def run(cfg):
    opened = Run.open(cfg)
    store, cfg = opened.store, opened.cfg
    trio.run(opened.play)
    return store


@pytest.mark.process
def test_round_robin_with_warm_bots_stores_everything(tmp_path, tag):
    cfg = config_from_dict(
        {
            "engine": [
                {"name": "greedy", "spec": f"python {ROOT / 'engines/greedy/bot.py'} {tag}"},
                {"name": "random", "spec": f"python {ROOT / 'engines/random/bot.py'} {tag}"},
                {"name": "builtin", "spec": "builtin:greedy"},
            ],
            "rounds": 2,
            "concurrency": 4,
            "output": str(tmp_path),
            "keep_warm": True,
        }
    )
    store = run(cfg)
    assert store.counts() == (12, 12)
    matches = store.finished()
    assert all(m.termination is Termination.COMPLETED for m in matches)
    assert live_pids(tag) == []  # warm bots were stopped with the tournament
    # One process per engine and slot served every match.
    assert len(list((tmp_path / "bots").glob("greedy.slot0.*.log"))) == 1
    logs = list((tmp_path / "logs").glob("*.log"))
    assert len(logs) == 12 and all(read_log(p).complete for p in logs)
    standings = compute_standings(store, resamples=50)
    assert {r.engine for r in standings.rows} == {"greedy", "random", "builtin"}
    assert standings.rows[-1].engine == "random"
    assert all(h.matches_per_set == 2 for h in standings.head_to_head)
    store.close()


def test_scopone_teams_and_partnership(tmp_path):
    teams = config_from_dict(
        {
            "engine": [
                {"name": "g", "spec": "builtin:greedy"},
                {"name": "r", "spec": "builtin:random"},
            ],
            "variant": "scopone",
            "format": "teams",
            "rounds": 2,
            "output": str(tmp_path / "t"),
        }
    )
    store = run(teams)
    assert store.counts() == (4, 4)
    store.close()
    names = ["a", "b", "c", "d"]
    partnership = config_from_dict(
        {
            "engine": [
                {"name": n, "spec": "builtin:greedy" if n in "ab" else "builtin:random"}
                for n in names
            ],
            "variant": "scopa4",
            "format": "partnership",
            "output": str(tmp_path / "p"),
        }
    )
    store = run(partnership)
    assert store.counts() == (12, 12)
    rows = {r.engine: r for r in compute_standings(store, resamples=20).rows}
    assert all(rows[n].played == 12 for n in names)  # everyone rated individually
    store.close()


@pytest.mark.process
def test_a_failing_engine_is_suspended_and_its_matches_recorded_as_forfeits(tmp_path, tag):
    crash = f"python {ROOT / 'tests/bots/misbehave.py'} --mode crash --at 0 {tag}"
    cfg = config_from_dict(
        {
            "engine": [
                {"name": "crashy", "spec": crash},
                {"name": "good", "spec": "builtin:greedy"},
            ],
            "rounds": 4,
            "suspend_after": 2,
            "output": str(tmp_path),
            "keep_warm": False,
        }
    )
    store = run(cfg)
    matches = store.finished()
    assert len(matches) == 8  # nothing silently dropped
    assert all(m.winner_side is not None and m.seats[m.winner_side] == "good" for m in matches)
    played = [m for m in matches if "suspended" not in m.reason]
    assert len(played) == 2 and all("crash" in m.reason for m in played)
    assert sum("crashy suspended" in m.reason for m in matches) == 6
    assert "crashy" in store.suspended() and live_pids(tag) == []
    store.close()


@pytest.mark.slow
def test_sprt_stops_by_itself_when_the_answer_is_clear(tmp_path):
    cfg = config_from_dict(
        {
            "format": "sprt",
            "concurrency": 8,
            "output": str(tmp_path),
            "engine": [
                {"name": "greedy", "spec": "builtin:greedy"},
                {"name": "random", "spec": "builtin:random"},
            ],
            "sprt": {"test": "greedy", "base": "random", "elo0": 0, "elo1": 30, "max_sets": 400},
        }
    )
    opened = Run.open(cfg)
    cfg = opened.cfg
    seen = []
    assert trio.run(lambda: opened.play(report=seen.append))  # complete: a bound was crossed
    status = opened.sprt_status()
    assert status.verdict == "H1" and status.llr >= status.upper
    assert status.sets < 400 and len(seen) >= 2
    assert [s.sets for s in seen] == sorted(s.sets for s in seen)
    opened.store.close()


@pytest.mark.process
def test_ratings_command_prints_a_table_and_json(tmp_path):
    cfg = config_from_dict(
        {
            "engine": [
                {"name": "g", "spec": "builtin:greedy"},
                {"name": "r", "spec": "builtin:random"},
            ],
            "rounds": 3,
            "output": str(tmp_path),
        }
    )
    run(cfg).close()
    table = subprocess.run(
        [ARENA, "ratings", str(cfg.store_path)], capture_output=True, text=True, timeout=60
    )
    assert (
        table.returncode == 0 and "95% interval" in table.stdout and "head to head" in table.stdout
    )
    data = json.loads(
        subprocess.run(
            [ARENA, "ratings", str(cfg.store_path), "--json"], capture_output=True, text=True
        ).stdout
    )
    assert data["matches"] == 6 and {r["engine"] for r in data["leaderboard"]} == {"g", "r"}
    missing = subprocess.run(
        [ARENA, "ratings", str(tmp_path / "nope.sqlite")], capture_output=True, text=True
    )
    assert missing.returncode == 2 and "no such results database" in missing.stderr
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database")
    bad = subprocess.run([ARENA, "ratings", str(junk)], capture_output=True, text=True)
    assert bad.returncode == 2 and "not a SQLite database" in bad.stderr


def test_live_elo_moves_by_k(tmp_path):
    from arena.tournament.standings import live_elo

    cfg = config_from_dict(
        {
            "engine": [
                {"name": "g", "spec": "builtin:greedy"},
                {"name": "r", "spec": "builtin:random"},
            ],
            "rounds": 1,
            "output": str(tmp_path),
        }
    )
    store = run(cfg)
    first = store.finished()[:1]  # from 1500 each, one match moves Elo by K/2 exactly
    small, large = live_elo(first, 8), live_elo(first, 32)
    assert abs(small["g"] - 1500) in (0, 4) and abs(large["g"] - 1500) in (0, 16)
    assert abs(large["g"] - 1500) == 4 * abs(small["g"] - 1500)
    store.close()


def test_fault_runs_survive_a_resume(tmp_path):
    from arena.errors import FaultKind
    from arena.match.outcome import Fault, MatchResult, Termination
    from arena.tournament.runner import Runner
    from arena.tournament.schedule import build_schedule

    cfg = config_from_dict(
        {
            "engine": [
                {"name": "bad", "spec": "builtin:random"},
                {"name": "good", "spec": "builtin:greedy"},
            ],
            "rounds": 3,
            "suspend_after": 3,
            "output": str(tmp_path),
        }
    )
    opened = Run.open(cfg)
    store, cfg = opened.store, opened.cfg
    schedule = build_schedule(cfg)
    store.schedule(schedule)
    for match in schedule[:2]:  # two faulty matches of "bad" before a crash
        seat = match.seats.index("bad")
        fault = Fault(seat, FaultKind.TIMEOUT, 0, 0, "too slow")
        store.record(
            match,
            MatchResult((0, 0), 1 - (seat & 1), Termination.FORFEIT, "forfeit", (fault,)),
            None,
        )
    runner = Runner(cfg, store)  # as a resumed run builds it
    assert runner.consecutive_faults == {"bad": 2, "good": 0}
    store.close()


def test_the_progress_line_keeps_the_live_elo_match_by_match(tmp_path):
    """The leader is updated with each result, and equals the live Elo of the
    whole store recomputed (which the line no longer does after every match)."""
    from arena.tournament.progress import ProgressLine
    from arena.tournament.runner import Runner
    from arena.tournament.standings import live_elo

    cfg = config_from_dict(
        {
            "engine": [
                {"name": "greedy", "spec": "builtin:greedy"},
                {"name": "random", "spec": "builtin:random"},
                {"name": "greedy2", "spec": "builtin:greedy"},
            ],
            "rounds": 2,
            "elo_k": 24,
            "output": str(tmp_path),
        }
    )
    with Run.open(cfg) as run:
        run.schedule()
        store = run.store
        half = store.pending()[:6]
        line = ProgressLine.resumed(store, run.cfg.elo_k)
        line.tty = False
        trio.run(Runner(run.cfg, store, progress=line).run, half)
        assert line.live == live_elo(store.finished(), 24)
        resumed = ProgressLine.resumed(store, 24)  # a resumed run starts from the store
        assert resumed.live == line.live and resumed.done == 6
        resumed.tty = False
        trio.run(Runner(run.cfg, store, progress=resumed).run, store.pending())
        assert resumed.live == pytest.approx(live_elo(store.finished(), 24))
        assert resumed.done == resumed.total == 12
        best = max(resumed.live, key=lambda n: resumed.live[n])
        assert resumed.leader() == f"{best} {resumed.live[best]:.0f}"
