"""`arena gauntlet`: a new bot measured against the built-in opponents."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")


def test_a_bot_gets_its_elo_against_each_opponent(tmp_path):
    out = subprocess.run(
        [ARENA, "gauntlet", "--engine", "mine=builtin:random", "--sets", "2", "--seed", "g1",
         "--output", str(tmp_path / "g"), "--concurrency", "4"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )  # fmt: skip
    assert out.returncode == 0, out.stdout + out.stderr
    rows = re.findall(
        r"^  (random|greedy|traditional|ismcts) +(\d+) +([\d.]+) +([+-]\d+) ± (\d+)",
        out.stdout,
        re.M,
    )
    assert [r[0] for r in rows] == ["random", "greedy", "traditional", "ismcts"], out.stdout
    assert all(int(r[1]) == 2 for r in rows)
    assert (tmp_path / "g" / "results.sqlite").exists()


def test_the_bot_must_not_take_an_opponents_name():
    out = subprocess.run(
        [ARENA, "gauntlet", "--engine", "greedy=builtin:greedy"],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
    )  # fmt: skip
    assert out.returncode == 2 and "other than random, greedy" in out.stderr


def test_opponents_are_built_in_fair_players():
    for bad in ("cheating-mcts", "stockfish"):
        out = subprocess.run(
            [ARENA, "gauntlet", "--engine", "mine=builtin:random", "--opponents", f"greedy,{bad}"],
            capture_output=True, text=True, timeout=60, cwd=ROOT,
        )  # fmt: skip
        assert out.returncode == 2 and f"no built-in opponent {bad!r}" in out.stderr, out.stderr
