"""`arena web DIR` while the tournament writing DIR runs in another process:
a match being played is followed live from its growing log, as a spectator
sees it, and the competition's page is told each time a match ends."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from arena.logs.replay import replay_log
from arena.logs.viewer import frames
from arena.web.local import LOG_ONLY
from arena.web.pages import match_url
from tests.support import processes
from tests.support.paths import ARENA
from tests.support.sites import HOSTILE, start_web
from tests.support.waiting import until

from .test_server_site import read_sse

pytestmark = pytest.mark.process

LIVE = """
name = "live"
variant = "scopa"
target = 6
rounds = 1
duplicate = true
concurrency = 1
output = "{output}"
[clock]
move_time = "2s"
[[engine]]
name = "greedy"
spec = "builtin:greedy"
[[engine]]
name = "slow"
spec = "{python} {hostile} --think 0.05"
sandbox = "off"
"""


def test_a_running_local_match_is_followed_from_its_log(tmp_path: Path) -> None:
    output = tmp_path / "live-out"  # the competition's id; its name is the file's
    config = tmp_path / "live.toml"
    config.write_text(LIVE.format(output=output, python=sys.executable, hostile=HOSTILE))
    tour = subprocess.Popen(
        [ARENA, "tournament", str(config)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    site = None
    try:
        until(lambda: (output / "results.sqlite").exists(), 30, "the tournament never started")
        site = start_web(output)
        cid = "live-out"
        ended: list[tuple[float, str, dict]] = []
        results_open = threading.Event()
        results = threading.Thread(
            target=read_sse,
            args=(site.base + f"/api/c/{cid}/results", ended, results_open),
            daemon=True,
        )
        results.start()
        assert results_open.wait(30)

        def running() -> list[str]:
            listed = site.json(f"/api/c/{cid}/matches?result=running")["matches"]
            return [m["id"] for m in listed]

        key = until(running, 60, "no match was ever seen running")[0]
        page = site.json(match_url(key) + "?format=json")
        assert page["match"]["status"] == "running" and page["events"]
        sse: list[tuple[float, str, dict]] = []
        opened = threading.Event()
        read_sse(site.base + page["events"], sse, opened)
        assert sse[-1][1] == "end"
        shown = [d for _, name, d in sse if name == "frame"]

        assert processes.ended(tour, 120) == 0
        assert site.json(f"/api/c/{cid}")["competition"]["name"] == "live"
        # The frames followed live are the finished log's, as a spectator sees
        # them: no hand, and nothing only the log knows (think times, comments).
        replay = replay_log(output / "logs" / f"{key.partition('/')[2].replace('/', '_')}.log")
        expected = [{**f, **LOG_ONLY} for f in frames(replay, public=True)]
        assert shown == expected and len(shown) > 20
        assert all(isinstance(h, int) for f in shown for h in f["hands"])
        assert not any(f["comment"] or f["think_ms"] is not None for f in shown)

        # The matches' ends reached the competition's page, the last one too.
        until(lambda: ended and ended[-1][2]["ended"] == 2, 10, "no word of the last result")
        assert all(name == "result" for _, name, _ in ended)
        status, _, _ = site.get(page["events"])
        assert status == 404  # over: its log is the replay now
    finally:
        if tour.poll() is None:
            tour.kill()
            processes.ended(tour)
        if site is not None:
            site.stop()
