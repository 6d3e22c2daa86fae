"""Kill -9 in the middle of a tournament, run the same command again: it resumes,
replays no finished match, loses none, and ends with the results of an
uninterrupted run."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.process, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")

CONFIG = """
name = "resume"
variant = "scopa"
rounds = 8
concurrency = 3
seed = 5
output = "{output}"

[[engine]]
name = "greedy"
spec = "python {root}/engines/greedy/bot.py {tag}"

[[engine]]
name = "random"
spec = "python {root}/engines/random/bot.py {tag}"

[[engine]]
name = "g2"
spec = "builtin:greedy"
"""


def results(store: Path) -> dict[str, tuple]:
    db = sqlite3.connect(store)
    rows = db.execute(
        "SELECT id, status, winner_side, score0, score1, deals FROM matches"
    ).fetchall()
    db.close()
    return {r[0]: r[1:] for r in rows}


def done(store: Path) -> int:
    if not store.exists():
        return 0
    try:
        return sum(1 for r in results(store).values() if r[0] == "done")
    except sqlite3.Error:
        return 0


def write(tmp_path: Path, name: str, tag: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(CONFIG.format(output=tmp_path / name, root=ROOT, tag=tag))
    return path


def test_kill_9_then_resume_equals_an_uninterrupted_run(tmp_path, tag):
    from tests.support.processes import ended, live_pids

    reference = write(tmp_path, "reference", tag)
    out = subprocess.run(
        [ARENA, "tournament", str(reference)], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    expected = results(tmp_path / "reference/results.sqlite")
    assert len(expected) == 48

    config = write(tmp_path, "killed", tag)
    store = tmp_path / "killed/results.sqlite"
    proc = subprocess.Popen(
        [ARENA, "tournament", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 120
    while done(store) < 15 and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    ended(proc)
    before = results(store)
    finished_before = {k: v for k, v in before.items() if v[0] == "done"}
    assert 15 <= len(finished_before) < 48, len(finished_before)
    deadline = time.monotonic() + 10
    while live_pids(tag) and time.monotonic() < deadline:  # the warm bots die with the arena
        time.sleep(0.05)
    assert live_pids(tag) == []

    again = subprocess.run(
        [ARENA, "tournament", str(config)], capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0, again.stderr
    assert f"resuming ({len(finished_before)} of 48 matches done)" in again.stdout
    after = results(store)
    # Nothing finished was played again (its row is untouched) and nothing is lost.
    assert all(after[k] == v for k, v in finished_before.items())
    assert after == expected
