"""`arena sprt --cluster local`: batch by batch the same sets, the same
results and the same verdict as the SPRT run in one process."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.clusters import ray_env
from tests.support.logs import logs
from tests.support.paths import ARENA, ROOT
from tests.support.stores import faults, results

pytestmark = [pytest.mark.process, pytest.mark.timeout(300)]


def sprt(output: Path, env: dict[str, str], *more: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [
            ARENA,
            "sprt",
            "--engine",
            f"greedy=python {ROOT}/engines/greedy/bot.py",
            "--engine",
            "random=builtin:random",
            "--elo1",
            "100",
            "--max-sets",
            "24",
            "--concurrency",
            "8",
            "--seed",
            "sprt on a cluster",
            "--output",
            str(output),
            *more,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    return done


def llr_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if "LLR" in line or "accepted" in line]


def test_an_sprt_on_a_local_cluster_ends_as_in_one_process(tmp_path: Path, ray_temp: Path) -> None:
    env = ray_env(ray_temp)
    alone = sprt(tmp_path / "alone", env)
    clustered = sprt(tmp_path / "cluster", env, "--cluster", "local")
    assert "cluster local: 2 workers on 1 node" in clustered.stderr

    assert llr_lines(clustered.stdout) == llr_lines(alone.stdout)
    assert any("accepted" in line for line in llr_lines(alone.stdout)), alone.stdout
    store, expected = tmp_path / "cluster/results.sqlite", tmp_path / "alone/results.sqlite"
    assert results(store) == results(expected)
    assert faults(store) == faults(expected) == []
    assert logs(tmp_path / "cluster") == logs(tmp_path / "alone")
