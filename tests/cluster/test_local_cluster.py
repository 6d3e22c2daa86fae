"""`--cluster local`: the same tournament with and without a cluster records the
same results and logs; the head killed with kill -9 resumes like today."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from tests.support.clusters import ray_env
from tests.support.logs import logs
from tests.support.paths import ARENA, ROOT
from tests.support.processes import Sessions
from tests.support.stores import faults, matches_done, results
from tests.support.waiting import until

# Ray starts in seconds, but slower on a loaded machine than the suite's default limit allows.
pytestmark = [pytest.mark.process, pytest.mark.timeout(300)]

CONFIG = """
name = "cluster"
seed = "cluster test"
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


def tournament(tmp: Path, name: str) -> tuple[Path, Path]:
    output = tmp / name
    path = tmp / f"{name}.toml"
    path.write_text(CONFIG.format(output=output, root=ROOT))
    return path, output


def test_a_local_cluster_records_what_one_process_does_and_resumes_after_kill_9(
    tmp_path: Path, ray_temp: Path, sessions: Sessions
) -> None:
    env = ray_env(ray_temp)
    plain, plain_out = tournament(tmp_path, "plain")
    subprocess.run([ARENA, "tournament", str(plain)], env=env, check=True, capture_output=True)

    config, output = tournament(tmp_path, "cluster")
    store = output / "results.sqlite"
    head = sessions.start(
        [ARENA, "tournament", str(config), "--cluster", "local"],
        env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    until(lambda: matches_done(store) >= 3 or head.poll() is not None, 60, "three matches")
    assert head.poll() is None, head.stderr.read() if head.stderr else ""
    head.send_signal(signal.SIGKILL)  # the head only: its Ray processes are left orphaned
    head.wait()
    sessions.kill(head)  # then those too, as the machine's owner would
    interrupted = matches_done(store)
    assert 3 <= interrupted < len(results(store))

    again = subprocess.run(
        [ARENA, "tournament", str(config), "--cluster", "local"],
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert again.returncode == 0, again.stderr
    assert f"resuming ({interrupted} of 12 matches done)" in again.stdout
    assert "cluster local: 2 workers on 1 node" in again.stderr

    ran, expected = results(output / "results.sqlite"), results(plain_out / "results.sqlite")
    assert ran == expected
    assert all(r[0] == "done" for r in ran.values())
    assert faults(output / "results.sqlite") == faults(plain_out / "results.sqlite") == []
    assert logs(output) == logs(plain_out)
    # The launched bots' output came back from the workers, named as a local run names it.
    assert sorted(p.name for p in (output / "bots").iterdir()) == sorted(
        p.name for p in (plain_out / "bots").iterdir()
    )
