"""The player that sees every hand is marked wherever it plays: its log's
header, the replay, the standings table (text and the site's), and it is never
shown the hands over the wire."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.logs.replay import replay_log
from arena.results.store import open_store
from arena.tournament.standings import compute_standings
from arena.web.pages import standings_table
from arena.wire.service import standings_reply

pytestmark = pytest.mark.process

ARENA = str(Path(sys.executable).parent / "arena")
CONFIG = """
name = "bound"
variant = "scopa"
format = "round-robin"
rounds = 1
target = 3
seed = 7
output = "{out}"
[[engine]]
name = "seer"
spec = "builtin:cheating-mcts --iterations 30"
[[engine]]
name = "honest"
spec = "builtin:greedy"
"""


def test_the_seeing_player_is_marked_in_logs_replays_and_standings(tmp_path):
    out = tmp_path / "out"
    config = tmp_path / "t.toml"
    config.write_text(CONFIG.format(out=out))
    run = subprocess.run([ARENA, "tournament", str(config)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    logs = sorted(out.rglob("*.log"))
    assert logs
    header = replay_log(logs[0]).header
    seeing = {e.name: e.sees_every_hand for e in header.engines}
    assert seeing == {"seer": True, "honest": False}
    replay = subprocess.run([ARENA, "replay", str(logs[0])], capture_output=True, text=True)
    assert replay.returncode == 0 and "(seer) SEES EVERY HAND" in replay.stdout
    store = open_store(out / "results.sqlite")
    try:
        table = compute_standings(store)
    finally:
        store.close()
    rows = {r.engine: r for r in table.rows}
    assert rows["seer"].sees_every_hand and not rows["honest"].sees_every_hand
    text = table.table()
    assert "seer !" in text and "sees every hand (builtin:cheating-mcts)" in text
    assert "honest !" not in text
    page = standings_table("bound", standings_reply(text, table.rows))
    assert page.count("sees every hand</span>") == 1
