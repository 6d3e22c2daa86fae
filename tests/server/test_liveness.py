"""Liveness: the server notices a registered bot that stopped, says so in the
bot list, and a competition forfeits its matches at once, with the reason."""

import os
import subprocess
import sys

import pytest

from arena.wire.v1 import server_pb2 as spb
from tests.support.paths import ARENA, ROOT
from tests.support.processes import ended
from tests.support.server import ORGANISER, Server, auth, register, wait_for
from tests.support.waiting import until

from .test_server import create

pytestmark = pytest.mark.process


def bots_by_name(stub) -> dict[str, spb.BotInfo]:
    return {b.name: b for b in stub.ListBots(spb.ListBotsRequest(), timeout=10).bots}


def test_a_stopped_bot_is_seen_dead_and_its_matches_forfeit_with_the_reason(tmp_path, bots, tag):
    token_file = tmp_path / "organiser.token"
    token_file.write_text(ORGANISER)
    options = ("--liveness-interval", "0.5", "--absent-grace", "1")
    server = Server(tmp_path / "data", token_file, options=options)
    server.start()
    bob_bot = subprocess.Popen(
        [sys.executable, str(ROOT / "engines/random/bot.py"), tag],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        stub = server.stub()
        register(stub, "alice", "alice-greedy", bots["greedy"])
        register(stub, "bob", "bob-random", bob_bot.stdout.readline().split()[1])
        alive = until(
            lambda: (
                all(b.status == "alive" for b in bots_by_name(stub).values()) and bots_by_name(stub)
            ),
            30,
            "both bots seen alive",
        )
        assert alive["bob-random"].last_seen and alive["bob-random"].seen_version
        assert alive["alice-greedy"].status_detail.startswith("greedy")
        bob_bot.terminate()
        bob_bot.wait(10)
        dead = until(
            lambda: bots_by_name(stub)["bob-random"].status == "dead" and bots_by_name(stub),
            30,
            "bob's bot seen dead",
        )
        bob = dead["bob-random"]
        # Dead now, and the last time it answered is kept.
        assert bob.status_detail and bob.last_seen >= alive["bob-random"].last_seen
        assert dead["alice-greedy"].status == "alive"

        comp = create(stub, rounds=3)  # 6 matches, each would wait out a start-up timeout
        stub.StartCompetition(spb.CompetitionRef(id=comp), metadata=auth(ORGANISER), timeout=10)
        info = wait_for(stub, comp, "finished", seconds=60)
        assert (info.matches_done, info.matches_total) == (6, 6)
        matches = stub.ListMatches(spb.CompetitionRef(id=comp), timeout=10).matches
        for m in matches:
            # The grace and one probe, not 6 start-up timeouts: forfeit unplayed (no log).
            assert m.termination == "forfeit" and m.log_chain == "", m
            assert "bob-random absent (no answer within the 1s grace" in m.reason, m.reason
            assert m.winner_side == list(m.seats).index("alice-greedy") % 2
        standings = {r.bot: r for r in stub.GetStandings(spb.CompetitionRef(id=comp)).rows}
        assert standings["alice-greedy"].wins == 6

        env = {**os.environ, "ARENA_SERVER": server.address}
        listed = subprocess.run(
            [ARENA, "remote", "bots"], capture_output=True, text=True, timeout=60, env=env
        ).stdout.splitlines()
        assert listed[0].split()[:6] == ["BOT", "OWNER", "ADDRESS", "ENGINE", "VERSION", "STATUS"]
        rows = {line.split()[0]: line.split() for line in listed[1:]}
        assert rows["bob-random"][5] == "dead" and rows["alice-greedy"][5] == "alive"
        shown = subprocess.run(
            [ARENA, "remote", "matches", comp], capture_output=True, text=True, timeout=60, env=env
        ).stdout
        assert shown.splitlines()[0].split()[5:7] == ["TERMINATION", "REASON"]
        assert shown.count("bob-random absent") == 6
    finally:
        bob_bot.kill()
        ended(bob_bot, 10)
        server.stop()
