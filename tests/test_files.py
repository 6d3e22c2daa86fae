"""What the arena writes is private to its user: 0600 files in 0700 directories."""

import stat

from arena.play import run_match_sync
from arena.settings import MatchSettings
from arena.store import open_store


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
