"""The `arena` command as a user runs it: a real subprocess."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process

ARENA = [str(Path(sys.executable).parent / "arena")]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ARENA + list(args), capture_output=True, text=True, timeout=60, env=os.environ
    )


def test_help_lists_commands():
    out = run("--help")
    assert out.returncode == 0 and "demo" in out.stdout and "play" in out.stdout


@pytest.mark.slow
def test_demo_plays_real_bots_over_grpc(tmp_path):
    out = run("demo", "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("termination: completed") == 2
    assert (
        "capture-most" not in out.stderr and "scope carte denari settebello primiera" in out.stdout
    )
    assert len(list(tmp_path.glob("*.log"))) >= 2


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


ROOT = Path(__file__).resolve().parents[1]


def test_match_help_explains_every_option():
    out = run("match", "--help")
    assert out.returncode == 0
    for option in (
        "--engine",
        "--move-time",
        "--bank",
        "--increment",
        "--grace",
        "--on-fault",
        "--log",
    ):
        assert option in out.stdout


def test_match_with_launched_bots_prints_a_summary_and_writes_a_log(tmp_path):
    log = tmp_path / "m.log"
    greedy = f"{sys.executable} {ROOT / 'engines/greedy/bot.py'}"
    out = run(
        "match",
        "--engine",
        f"g={greedy}",
        "--engine",
        "r=builtin:random",
        "--seed",
        "3",
        "--log",
        str(log),
    )
    assert out.returncode == 0, out.stderr
    assert "final score" in out.stdout and "termination: completed" in out.stdout
    assert log.stat().st_size > 1000


def test_match_errors_are_clear():
    cases = [
        (("match", "--engine", "g=builtin:greedy"), "needs 2 --engine"),
        (("match", "--engine", "nospec", "--engine", "r=builtin:random"), "expected NAME=SPEC"),
        (
            ("match", "--engine", "g=builtin:smart", "--engine", "r=builtin:random"),
            "unknown 'builtin:smart'",
        ),
        (
            ("match", "--engine", "g=/no/such/program", "--engine", "r=builtin:random"),
            "cannot start g (seat 0): /no/such/program",
        ),
        (("match", "--move-time", "soon", "--engine", "a=builtin:random"), "not a duration"),
    ]
    for args, needle in cases:
        out = run(*args)
        assert out.returncode == 2, (args, out.stdout, out.stderr)
        assert needle in out.stderr and "Traceback" not in out.stderr, out.stderr


def test_a_closed_pipe_is_not_an_error(tmp_path):
    log = tmp_path / "m.log"
    made = run(
        "match",
        "--variant",
        "scopone",
        "--target",
        "61",
        "--engine",
        "a=builtin:greedy",
        "--engine",
        "b=builtin:random",
        "--log",
        str(log),
    )
    assert made.returncode == 0
    # The JSON of a whole match is far larger than a pipe's buffer: `head` closes it early.
    cmd = f"{ARENA[0]} replay --json {log} | head -1"
    out = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=60)
    assert (
        out.stdout.strip() == "{"
        and "Traceback" not in out.stderr
        and "BrokenPipe" not in out.stderr
    )
