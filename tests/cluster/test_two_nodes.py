"""A real two-node Ray cluster on loopback (`ray start --head` and a second
`ray start --address=...`): the second node is killed mid-tournament; every
match is recorded once, no bot is charged for the lost node, and the results
and logs are those of a run without a cluster."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.clusters import free_port, ray_env
from tests.support.logs import logs
from tests.support.paths import ARENA, RAY, ROOT
from tests.support.processes import Sessions
from tests.support.stores import faults, results
from tests.support.waiting import until

# Ray starts in seconds, but slower on a loaded machine than the suite's default limit allows.
pytestmark = [pytest.mark.process, pytest.mark.timeout(300)]

CONFIG = """
name = "two nodes"
seed = "two nodes"
rounds = 2
concurrency = 4
output = "{output}"

[[engine]]
name = "slow"
spec = "python {root}/tests/cluster/slow_greedy.py"

[[engine]]
name = "random"
spec = "builtin:random"

[cluster]
address = "{address}"
workers = 2  # one per node: the run starts once the second node has joined
"""

# Two loopback addresses: Ray replaces 127.0.0.1 by the machine's network
# address, but leaves the rest of 127.0.0.0/8 alone.
HEAD_IP, NODE_IP = "127.0.0.2", "127.0.0.3"


def test_a_node_lost_mid_tournament_costs_replays_not_results(
    tmp_path: Path, ray_temp: Path, sessions: Sessions
) -> None:
    env = ray_env(ray_temp)
    port = free_port()
    address = f"{HEAD_IP}:{port}"
    common = ["--num-cpus=1", "--disable-usage-stats", "--block"]
    sessions.start(
        [RAY, "start", "--head", f"--port={port}", f"--node-ip-address={HEAD_IP}",
         "--include-dashboard=false", f"--temp-dir={ray_temp}", *common],
        env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    until(lambda: (ray_temp / "ray_current_cluster").exists(), 60, "the head node")
    node = sessions.start(
        [RAY, "start", f"--address={address}", f"--node-ip-address={NODE_IP}", *common],
        env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip

    output = tmp_path / "cluster"
    config = tmp_path / "cluster.toml"
    config.write_text(CONFIG.format(output=output, root=ROOT, address=address))
    arena = sessions.start(
        [ARENA, "tournament", str(config)],
        env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert arena.stdout is not None and arena.stderr is not None
    # Wait for the first result (both nodes are busy by then), then lose node two.
    while not arena.stdout.readline().startswith("[1/"):
        assert arena.poll() is None, arena.stderr.read()
    sessions.kill(node)
    _, err = arena.communicate(timeout=90)
    assert arena.returncode == 0, err
    assert "2 workers on 2 nodes" in err
    assert "was lost" in err and "playing it again from the start" in err, err

    store = output / "results.sqlite"
    ran = results(store)
    assert all(r[0] == "done" for r in ran.values())
    assert faults(store) == []  # the lost node is no bot's fault

    plain = tmp_path / "plain.toml"
    plain.write_text(
        CONFIG.format(output=tmp_path / "plain", root=ROOT, address="").split("[cluster]")[0]
    )
    subprocess.run([ARENA, "tournament", str(plain)], env=env, check=True, capture_output=True)
    assert ran == results(tmp_path / "plain" / "results.sqlite")
    assert logs(output) == logs(tmp_path / "plain")
