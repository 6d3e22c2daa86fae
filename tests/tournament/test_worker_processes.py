"""`--cluster processes`: worker processes of this machine, without Ray. The
same tournament records the same results and logs as in one process, a worker
killed mid-match costs a replay and no bot a fault, and a head killed with
kill -9 leaves no worker or bot behind."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.support.logs import logs
from tests.support.paths import ARENA, ROOT
from tests.support.processes import Sessions, ended, live
from tests.support.stores import faults, results
from tests.support.waiting import until

pytestmark = [pytest.mark.process, pytest.mark.timeout(240)]

CONFIG = """
name = "processes"
seed = "processes test"
rounds = 2
concurrency = 4
output = "{output}"

[[engine]]
name = "greedy"
spec = "python {root}/engines/greedy/bot.py"

[[engine]]
name = "slow"
spec = "python {root}/tests/cluster/slow_greedy.py"

[[engine]]
name = "random"
spec = "builtin:random"
"""

WORKER = "arena.cluster.processes"
SLOW, GREEDY = f"{ROOT}/tests/cluster/slow_greedy.py", f"{ROOT}/engines/greedy/bot.py"


def tournament(tmp: Path, name: str) -> tuple[Path, Path]:
    output = tmp / name
    path = tmp / f"{name}.toml"
    path.write_text(CONFIG.format(output=output, root=ROOT))
    return path, output


def done(store: Path) -> int:
    try:
        return sum(1 for r in results(store).values() if r[0] == "done")
    except Exception:
        return 0


def workers_of(head: int) -> list[int]:
    """The live worker processes whose parent is ``head``."""
    found = []
    for pid in live(WORKER):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(stat[1]) == head:
            found.append(pid)
    return found


@pytest.fixture
def sessions():
    started = Sessions()
    yield started
    started.close()


def test_worker_processes_record_what_one_process_does_and_replay_a_killed_workers_match(
    tmp_path: Path, sessions: Sessions
) -> None:
    plain, plain_out = tournament(tmp_path, "plain")
    subprocess.run([ARENA, "tournament", str(plain)], check=True, capture_output=True)

    config, output = tournament(tmp_path, "pool")
    store = output / "results.sqlite"
    head = sessions.start(
        [ARENA, "tournament", str(config), "--cluster", "processes"],
        dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    workers = until(
        lambda: len(workers_of(head.pid)) == 2 and workers_of(head.pid), 60, "2 workers"
    )
    until(lambda: done(store) >= 2 or head.poll() is not None, 90, "two matches")
    assert head.poll() is None
    os.kill(workers[0], signal.SIGKILL)  # whatever it plays now is lost, and played again
    _, err = head.communicate(timeout=180)
    assert head.returncode == 0, err

    assert "2 worker processes on this machine" in err
    assert "playing it again from the start" in err and "no bot is charged" in err
    assert len(workers_of(head.pid)) == 0
    # The killed worker's bots died with it (each is launched to die with its parent).
    until(lambda: not live(SLOW) and not live(GREEDY), 10, "no bot left")
    ran, expected = results(store), results(plain_out / "results.sqlite")
    assert ran == expected and all(r[0] == "done" for r in ran.values())
    assert faults(store) == faults(plain_out / "results.sqlite") == []
    assert logs(output) == logs(plain_out)
    # The launched bots' output came back from the workers, named as a local run names it.
    assert sorted(p.name for p in (output / "bots").iterdir()) == sorted(
        p.name for p in (plain_out / "bots").iterdir()
    )


def test_a_head_killed_with_kill_9_leaves_no_worker_and_no_bot(
    tmp_path: Path, sessions: Sessions
) -> None:
    config, _ = tournament(tmp_path, "killed")
    head = sessions.start(
        [ARENA, "tournament", str(config), "--cluster", "processes"],
        dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    workers = until(
        lambda: len(workers_of(head.pid)) == 2 and workers_of(head.pid), 60, "2 workers"
    )
    bots = until(lambda: live(SLOW), 60, "a slow bot playing")
    head.send_signal(signal.SIGKILL)
    ended(head)
    # Their stdin ends with the head: each worker cancels its matches and exits.
    until(
        lambda: not any(Path(f"/proc/{pid}").exists() and pid in live(WORKER) for pid in workers),
        20,
        "the workers to exit",
    )
    until(
        lambda: not set(bots) & set(live(SLOW)),
        20,
        "their bots to stop",
    )
