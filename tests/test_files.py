"""What the arena writes is private to its user: 0600 files in 0700 directories."""

import os
import stat

import pytest

from arena.match.settings import MatchSettings
from arena.play import run_match_sync
from arena.results.store import open_store


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_logs_and_stores_are_created_private(tmp_path):
    log = tmp_path / "new" / "logs" / "m.log"
    run_match_sync(["g=builtin:greedy", "r=builtin:random"], MatchSettings(seed=1), log=log)
    assert mode(log) == 0o600
    assert mode(log.parent) == mode(log.parent.parent) == 0o700
    store = open_store(tmp_path / "results" / "r.sqlite", writer=True)
    store.close()
    assert mode(tmp_path / "results" / "r.sqlite") == 0o600
    assert mode(tmp_path / "results") == 0o700


@pytest.mark.process
def test_a_new_process_dir_removes_only_what_processes_now_gone_left(tmp_path):
    """An arena killed with kill -9 leaves its sandboxes' directories behind;
    the next one clears them, and never a live process's."""
    import subprocess

    from arena.files import process_dir

    gone = subprocess.Popen(["true"])
    gone.wait()
    alive = subprocess.Popen(["sleep", "30"])
    try:
        left = tmp_path / f"arena-bot-{gone.pid}-abc"
        kept = tmp_path / f"arena-bot-{alive.pid}-def"
        unnamed = tmp_path / "arena-bot-xyz"
        for directory in (left, kept, unnamed):
            (directory / "etc").mkdir(parents=True)
        made = process_dir("arena-bot-", tmp_path)
        assert not left.exists() and kept.exists() and unnamed.exists()
        assert made.is_dir() and made.name.startswith(f"arena-bot-{os.getpid()}-")
    finally:
        alive.kill()
        alive.wait()
