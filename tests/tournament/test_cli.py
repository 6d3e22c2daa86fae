"""`arena tournament` and `arena sprt` as a user runs them."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process

ARENA = str(Path(sys.executable).parent / "arena")

SMALL = """
name = "small"
rounds = 2
output = "{out}"
[[engine]]
name = "g"
spec = "builtin:greedy"
[[engine]]
name = "r"
spec = "builtin:random"
"""


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ARENA, *args], capture_output=True, text=True, timeout=300)


def test_tournament_prints_progress_and_a_leaderboard_then_resumes_with_nothing_to_do(tmp_path):
    config = tmp_path / "t.toml"
    config.write_text(SMALL.format(out=tmp_path / "out"))
    first = run("tournament", str(config))
    assert first.returncode == 0, first.stderr
    assert (
        "[4/4]" in first.stdout
        and "95% interval" in first.stdout
        and "head to head" in first.stdout
    )
    second = run("tournament", str(config))
    assert second.returncode == 0 and "resuming (4 of 4 matches done)" in second.stdout


def test_tournament_errors_are_one_clear_line(tmp_path):
    config = tmp_path / "t.toml"
    config.write_text("concurency = 2\n" + SMALL.format(out=tmp_path / "out"))
    bad = run("tournament", str(config))
    assert (
        bad.returncode == 2
        and "did you mean 'concurrency'" in bad.stderr
        and "Traceback" not in bad.stderr
    )
    config.write_text(SMALL.format(out=tmp_path / "out"))
    assert run("tournament", str(config)).returncode == 0
    other = run("tournament", str(config), "--seed", "99")
    assert other.returncode == 2 and "played with seed = " in other.stderr
    missing = run("tournament", str(tmp_path / "nope.toml"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


@pytest.mark.slow
def test_sprt_command_stops_with_a_verdict(tmp_path):
    out = run(
        "sprt",
        "--engine",
        "g=builtin:greedy",
        "--engine",
        "r=builtin:random",
        "--elo1",
        "30",
        "--output",
        str(tmp_path),
        "--max-sets",
        "300",
    )
    assert out.returncode == 0, out.stderr
    assert "LLR" in out.stdout and "H1 accepted: g is stronger" in out.stdout
    wrong = run("sprt", "--engine", "g=builtin:greedy")
    assert wrong.returncode == 2 and "two --engine" in wrong.stderr
