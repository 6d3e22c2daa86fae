"""`arena check` and `arena remote` as people use them."""

import os
import subprocess

import pytest

from tests.support.paths import ARENA
from tests.support.server import ORGANISER

pytestmark = [pytest.mark.process, pytest.mark.slow]


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([ARENA, *args], capture_output=True, text=True, timeout=120, env=env)


def test_check_prints_pass_or_fail_per_point(bots):
    ok = run("check", bots["greedy"])
    assert (
        ok.returncode == 0
        and "PASS  handshake: greedy" in ok.stdout
        and "all checks passed" in ok.stdout
    )
    bad = run("check", "127.0.0.1:1")
    assert bad.returncode == 1 and "FAIL  connection" in bad.stdout


def test_remote_commands_run_a_small_competition_and_watch_it(server, bots, tmp_path):
    env = {**os.environ, "ARENA_SERVER": server.address}
    token = run("remote", "participant", "carol", env=env).stdout.split()[-1]
    registered = run(
        "remote", "--token", token, "register", "carol-greedy", bots["greedy"], env=env
    )
    assert registered.returncode == 0 and "carol-greedy" in registered.stdout
    run("remote", "--token", token, "register", "carol-random", bots["random"], env=env)
    config = tmp_path / "cup.toml"
    config.write_text('name = "mini"\nbots = ["carol-greedy", "carol-random"]\nrounds = 1\n')
    denied = run("remote", "--token", token, "create", str(config), env=env)
    assert denied.returncode == 2 and "PERMISSION_DENIED" in denied.stderr
    created = run("remote", "--token", ORGANISER, "create", str(config), env=env)
    comp = created.stdout.split()[1]
    assert "0/1 matches" in created.stdout
    started = run("remote", "--token", ORGANISER, "start", comp, env=env)
    assert started.returncode == 0 and "/1 matches" in started.stdout  # never "0/0"
    bots = run("remote", "bots", env=env).stdout.splitlines()
    assert bots[0].split() == [
        "BOT",
        "OWNER",
        "ADDRESS",
        "ENGINE",
        "VERSION",
        "STATUS",
        "LAST",
        "SEEN",
        "DETAIL",
    ]
    assert {line.split()[0] for line in bots[1:]} == {"carol-greedy", "carol-random"}
    listed = run("remote", "list", env=env).stdout.splitlines()
    assert listed[0].split()[:4] == ["ID", "NAME", "STATUS", "MATCHES"]
    assert listed[1].split()[:2] == [comp, "mini"] and "/1" in listed[1].split()[3]
    bad = tmp_path / "bad.toml"
    bad.write_text(config.read_text() + '[policy]\nstrikes = "x"\n')
    refused = run("remote", "--token", ORGANISER, "create", str(bad), env=env)
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1
    assert "INVALID_ARGUMENT" in refused.stderr and "strikes must be an integer" in refused.stderr
    watched = run("remote", "watch", f"{comp}/carol-greedy~carol-random#0/0", env=env)
    assert (
        watched.returncode == 0
        and "== deal 1" in watched.stdout
        and "final score" in watched.stdout
    )
    assert " takes " in watched.stdout or " is laid" in watched.stdout
    status = run("remote", "status", comp, env=env)
    assert comp in status.stdout
    listing = run("remote", "matches", comp, env=env).stdout.splitlines()
    assert listing[0].split()[:3] == ["MATCH", "SEATS", "STATUS"]
    first = listing[1].split()[0]
    out = tmp_path / "first.log"
    import time

    for _ in range(100):
        got = run("remote", "log", first, "-o", str(out), env=env)
        if got.returncode == 0:
            break
        time.sleep(0.1)
    assert out.exists() and run("replay", str(out)).returncode == 0
    assert "it ends with the published chain value" in got.stdout
