"""The `arena` command as a user runs it: a real subprocess."""

import os
import subprocess
import sys
from pathlib import Path

ARENA = [str(Path(sys.executable).parent / "arena")]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ARENA + list(args), capture_output=True, text=True, timeout=60, env=os.environ
    )


def test_help_lists_commands():
    out = run("--help")
    assert out.returncode == 0 and "demo" in out.stdout and "play" in out.stdout


def test_demo_plays_a_whole_match():
    out = run("demo")
    assert out.returncode == 0, out.stderr
    assert "final score" in out.stdout and "wins" in out.stdout
    assert "scope carte denari settebello primiera" in out.stdout


def test_play_each_game_deterministically():
    for game in ("scopa", "scopa4", "scopone", "scientifico"):
        a = run("play", "--variant", game, "--seed", "4")
        b = run("play", "--variant", game, "--seed", "4")
        assert a.returncode == 0 and a.stdout == b.stdout and "final score" in a.stdout


def test_deal_limit_and_options():
    out = run("play", "--deals", "1", "--target", "50", "--fewest-cards")
    assert out.returncode == 0 and "after 1 deal(s)" in out.stdout


def test_user_errors_are_one_line_without_traceback():
    for args, needle in [
        (("play", "--variant", "briscola"), "unknown game 'briscola'"),
        (("play", "--seat", "random", "--seat", "smart"), "unknown strategy 'smart'"),
        (("play", "--variant", "scopone", "--seat", "random"), "needs 4 --seat"),
    ]:
        out = run(*args)
        assert out.returncode == 2 and needle in out.stderr and "Traceback" not in out.stderr
    bad = run("play", "--target", "0")
    assert bad.returncode == 2 and "must be at least 1" in bad.stderr
