"""`arena verify-seed` on real logs of `arena tournament` and `arena match`."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.logs.record import read_log
from arena.rules import commitment, set_seed

pytestmark = pytest.mark.process

ARENA = str(Path(sys.executable).parent / "arena")

CONFIG = """
name = "seeded"
rounds = 2
seed = {seed}
output = "{out}"
[[engine]]
name = "g"
spec = "builtin:greedy"
[[engine]]
name = "r"
spec = "builtin:random"
"""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARENA, *args], capture_output=True, text=True, timeout=300)


def tournament_logs(tmp_path: Path, seed: int) -> list[Path]:
    out = tmp_path / f"t{seed}"
    config = tmp_path / f"t{seed}.toml"
    config.write_text(CONFIG.format(seed=seed, out=out))
    done = run("tournament", str(config))
    assert done.returncode == 0, done.stderr
    logs = sorted((out / "logs").glob("*.log"))
    assert len(logs) == 4
    return logs


def log_lines(out: subprocess.CompletedProcess[str]) -> list[str]:
    return out.stdout.splitlines()[1:]


def test_a_tournaments_logs_follow_from_its_seed_and_from_no_other(tmp_path):
    logs = tournament_logs(tmp_path, 5)
    ok = run("verify-seed", "5", *map(str, logs))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.splitlines()[0] == f"commitment of SEED: {commitment('5')}"
    lines = log_lines(ok)
    assert len(lines) == 4 and all(": OK (" in line for line in lines)
    for log, line in zip(logs, lines, strict=True):
        header = read_log(log).header
        set_id = header.schedule_id.rsplit("/", 1)[0]
        assert header.seed == set_seed("5", set_id)
        assert line.startswith(f"{log}: OK ({header.schedule_id}, seed {header.seed}, ")

    wrong = run("verify-seed", "6", *map(str, logs))
    assert wrong.returncode == 1 and wrong.stderr == ""
    assert all("DIFFERS" in line and "SEED gives" in line for line in log_lines(wrong))

    # One log of another tournament among them: only its line differs.
    stranger = tournament_logs(tmp_path, 6)[0]
    mixed = run("verify-seed", "5", str(logs[0]), str(stranger), str(logs[1]))
    assert mixed.returncode == 1
    first, second, third = log_lines(mixed)
    assert ": OK (" in first and ": OK (" in third
    assert second.startswith(f"{stranger}: DIFFERS: ")


def test_a_match_without_a_seed_draws_one_prints_it_and_its_log_verifies(tmp_path):
    seeds = []
    for name in ("a", "b"):
        log = tmp_path / f"{name}.log"
        out = run(
            "match",
            "--engine",
            "g=builtin:greedy",
            "--engine",
            "r=builtin:random",
            "--log",
            str(log),
        )
        assert out.returncode == 0, out.stderr
        found = re.match(r"seed (\d+)\n", out.stdout)
        assert found, out.stdout
        seed = int(found[1])
        header = read_log(log).header
        assert header.seed == seed and header.schedule_id == ""
        assert str(seed) not in header.match_id  # what bots are told does not give the decks
        seeds.append(seed)
        ok = run("verify-seed", str(seed), str(log))
        assert ok.returncode == 0 and f"{log}: OK (single match, seed {seed}, " in ok.stdout
        other = run("verify-seed", str(seed + 1), str(log))
        assert other.returncode == 1
        assert f"the log's seed is {seed}, SEED gives {seed + 1}" in other.stdout
    assert seeds[0] != seeds[1]  # 63 random bits each


def test_a_given_seed_is_printed_and_decides_the_decks(tmp_path):
    log = tmp_path / "m.log"
    out = run(
        "match",
        "--engine",
        "g=builtin:greedy",
        "--engine",
        "r=builtin:random",
        "--seed",
        "42",
        "--log",
        str(log),
    )
    assert out.returncode == 0 and out.stdout.startswith("seed 42\n")
    assert run("verify-seed", "42", str(log)).returncode == 0
    text = run("verify-seed", "forty-two", str(log))
    assert text.returncode == 1 and "a single match's seed is an integer" in text.stdout


def test_unreadable_logs_are_one_line_and_exit_2(tmp_path):
    good = tmp_path / "m.log"
    assert (
        run(
            "match",
            "--engine",
            "g=builtin:greedy",
            "--engine",
            "r=builtin:random",
            "--seed",
            "3",
            "--log",
            str(good),
        ).returncode
        == 0
    )
    junk = tmp_path / "junk.log"
    junk.write_text("not a log\n")
    out = run("verify-seed", "3", str(good), str(junk), str(tmp_path / "missing.log"))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"{good}: OK" in out.stdout
    errors = out.stderr.splitlines()
    assert len(errors) == 2 and all(e.startswith("arena: error: ") for e in errors)
    assert "missing.log: cannot read" in errors[1]
    usage = run("verify-seed", "3")
    assert usage.returncode == 2 and "LOG" in usage.stderr
