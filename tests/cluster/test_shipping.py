"""How launched engines reach a node: a directory of the engine's own goes as a
content-addressed archive; commands under ``working_dir`` are found in Ray's
copy of it on the node. What a killed worker leaves on its node is cleared
by the next one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from arena.cluster import WORKER_DIR_PREFIX, open_cluster, pack_directory
from arena.errors import ConfigError
from arena.files import remove_dirs_of_the_dead
from arena.match.outcome import Termination
from arena.match.settings import ClusterSettings, MatchSettings, command_engine, engine_spec
from tests.support.paths import ROOT

# Ray starts in seconds, but slower on a loaded machine than the suite's default limit allows.
pytestmark = [pytest.mark.process, pytest.mark.timeout(300)]


def test_a_packed_directory_depends_only_on_its_files(tmp_path: Path) -> None:
    for name in ("a", "b"):
        shutil.copytree(ROOT / "engines" / "greedy", tmp_path / name)
    (tmp_path / "b" / "bot.py").touch()  # another time stamp, the same bytes
    assert pack_directory(tmp_path / "a") == pack_directory(tmp_path / "b")


def test_a_new_worker_removes_what_dead_workers_left_and_keeps_live_ones(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead_dir = tmp_path / f"arena-worker-{gone.pid}-abc_12"
        (dead_dir / "tmpmatch").mkdir(parents=True)
        (dead_dir / "tmpmatch" / "half.log").write_bytes(b"x")
        live_dir = tmp_path / f"arena-worker-{live.pid}-def_34"
        own_dir = tmp_path / f"arena-worker-{os.getpid()}-ghi_56"
        other = tmp_path / "arena-worker-old"  # no process id in its name: not ours to judge
        for kept in (live_dir, own_dir, other):
            kept.mkdir()
        assert remove_dirs_of_the_dead(WORKER_DIR_PREFIX, tmp_path) == [dead_dir]
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            p.name for p in (live_dir, own_dir, other)
        )
    finally:
        live.kill()
        live.wait()


def test_engines_reach_the_workers_by_archive_and_by_working_dir(
    tmp_path: Path, ray_temp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    own = tmp_path / "own"  # an engine with a directory of its own, like an upload
    shutil.copytree(ROOT / "engines" / "greedy", own)
    shipped = tmp_path / "shipped"
    shutil.copytree(ROOT / "engines" / "random", shipped)
    archived = command_engine("own", ["python", "bot.py"], workdir=own.resolve())
    under = engine_spec("shipped", f"python {shipped.resolve()}/bot.py")
    settings = ClusterSettings("local", workers=1, working_dir=shipped.resolve())

    async def main() -> None:
        async with open_cluster(settings, notice=lambda text: None, temp_dir=ray_temp) as c:
            # Past the idle time of trio's cached threads: Ray's processes must
            # outlive whichever thread started them (they were killed with it).
            await trio.sleep(11)
            log = tmp_path / "logs" / "m.log"
            report = await c.play([archived, under], MatchSettings(seed=7), log=log)
            assert report.result.termination is Termination.COMPLETED, report.result
            assert [e.engine_name for e in report.engines] == ["greedy", "random"]
            assert log.read_bytes().startswith(b"") and log.stat().st_size > 1000
            # A match that cannot be set up fails as it does in one process.
            missing = engine_spec("missing", f"python {tmp_path}/no-such-bot.py")
            with pytest.raises(ConfigError, match=r"no-such-bot\.py"):
                await c.play([missing, under], MatchSettings(seed=8))
            (archive,) = {a for _, a in c._shipping.archives_of([archived, under])}
            assert archive.sha256 == __import__("hashlib").sha256(pack_directory(own)).hexdigest()

    trio.run(main)
