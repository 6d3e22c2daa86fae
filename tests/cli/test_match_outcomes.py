"""`arena match` as a script sees it: exit 0 only for a match played to its
end, a status of its own for a forfeit and for no contest, each fault on a
line of its own, and the arena's own set-up errors as one line before any
match. Real `arena` processes and real bot processes."""

import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli import exits

pytestmark = pytest.mark.process

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")
MISBEHAVE = f"{sys.executable} {ROOT / 'tests/bots/misbehave.py'}"
GREEDY = f"{sys.executable} {ROOT / 'engines/greedy/bot.py'}"


def match(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ARENA, "match", "--move-time", "1s", *args], capture_output=True, text=True, timeout=60
    )


def fault_lines(out: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in out.stdout.splitlines() if line.startswith("fault: ")]


def one_error_line(out: subprocess.CompletedProcess[str]) -> str:
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    return lines[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_match_played_to_its_end_exits_0(tmp_path: Path) -> None:
    out = match("--engine", "g=builtin:greedy", "--engine", "r=builtin:random")
    assert out.returncode == exits.OK, out.stderr
    assert "termination: completed (played to the end)" in out.stdout
    assert fault_lines(out) == [] and out.stderr == ""


def test_nothing_listening_at_an_address_is_no_contest_not_a_win() -> None:
    port = free_port()
    out = match(
        "--engine",
        f"mine=127.0.0.1:{port}",
        "--engine",
        "b=builtin:random",
        "--startup-timeout",
        "0.5s",
    )
    assert out.returncode == exits.MATCH_NO_CONTEST, (out.stdout, out.stderr)
    assert "after 0 deal(s): no contest" in out.stdout and "wins" not in out.stdout
    assert fault_lines(out) == [
        f"fault: seat 0 (mine) stall at start-up: no connection to 127.0.0.1:{port} within 0.5s"
    ]


def test_a_bot_that_exits_at_start_up_is_no_contest(tmp_path: Path) -> None:
    log = tmp_path / "m.log"
    out = match(
        "--engine",
        "g=builtin:greedy",
        "--engine",
        f"dead={MISBEHAVE} --mode die-at-start",
        "--log",
        str(log),
    )
    assert out.returncode == exits.MATCH_NO_CONTEST, (out.stdout, out.stderr)
    assert "termination: no_contest\n" in out.stdout and "wins" not in out.stdout
    (line,) = fault_lines(out)
    assert line.startswith(
        "fault: seat 1 (dead) crash at start-up: exited with code 4 before it was ready "
        "(its output is in "
    ), line
    assert line.endswith(".seat1.dead.log; its last lines:)"), line
    assert "\n  | misbehave: cannot load my weights\n" in out.stdout
    replay = subprocess.run([ARENA, "replay", str(log)], capture_output=True, text=True)
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout.endswith("final score 0 - 0: no contest (seat 1 crash at start-up)\n")


def test_a_fault_during_play_is_a_forfeit_with_its_own_status(tmp_path: Path) -> None:
    log = tmp_path / "m.log"
    out = match(
        "--engine",
        f"bad={MISBEHAVE} --mode crash --at 2",
        "--engine",
        "r=builtin:random",
        "--log",
        str(log),
    )
    assert out.returncode == exits.MATCH_FORFEIT, (out.stdout, out.stderr)
    assert "r#1 wins" in out.stdout and "termination: forfeit\n" in out.stdout
    (line,) = fault_lines(out)
    found = re.fullmatch(
        r"fault: seat 0 \(bad\) crash at deal 1, decision (\d+) \(the (\d+)(st|nd|rd|th)\): "
        r"exited with code 3 \(its output is in \S+\.seat0\.bad\.log; its last lines:\)",
        line,
    )
    assert "\n  | misbehave: crashing on purpose\n" in out.stdout
    assert found is not None, line
    decision = int(found.group(1))
    assert int(found.group(2)) == decision + 1
    # The replay says the same, each thing once.
    replay = subprocess.run([ARENA, "replay", str(log)], capture_output=True, text=True)
    assert f"FAULT crash at decision {decision} (the " in replay.stdout
    assert f"r#1 wins (forfeit: seat 0 crash at deal 1, decision {decision} (the " in replay.stdout
    assert "forfeit: forfeit" not in replay.stdout and "(pid" not in replay.stdout


def test_a_bot_that_stops_serving_is_a_crash_said_on_stdout_alone() -> None:
    out = match(
        "--engine", f"bad={MISBEHAVE} --mode unserve --at 2", "--engine", "r=builtin:random"
    )
    assert out.returncode == exits.MATCH_FORFEIT, (out.stdout, out.stderr)
    (line,) = fault_lines(out)
    assert " crash at deal 1, " in line and line.endswith("connection lost (Cancelling all calls)")
    assert out.stderr == ""  # no library's log lines


def test_substitute_faults_that_let_the_match_finish_exit_0_and_are_printed() -> None:
    out = match(
        "--engine",
        f"bad={MISBEHAVE} --mode notheld --at 1",
        "--engine",
        "r=builtin:random",
        "--on-fault",
        "substitute",
        "--strikes",
        "1000",
    )
    assert out.returncode == exits.OK, (out.stdout, out.stderr)
    assert "termination: completed (played to the end)" in out.stdout
    lines = fault_lines(out)
    assert lines and all(line.startswith("fault: seat 0 (bad) illegal at deal ") for line in lines)


def test_an_unwritable_bot_output_stops_the_run_before_any_match(tmp_path: Path) -> None:
    log = tmp_path / "m.log"
    out = match(
        "--engine",
        f"g={GREEDY}",
        "--engine",
        "r=builtin:random",
        "--bot-output",
        "/proc/nope",
        "--log",
        str(log),
    )
    assert out.returncode == exits.USAGE and out.stdout.startswith("seed ")
    assert out.stdout.count("\n") == 1  # the seed, then nothing: no match was played
    assert one_error_line(out).startswith("arena: error: /proc/nope/m.seat0.g.log: cannot")
    assert not log.exists()  # no match recorded


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("/no/such/program --fast", "cannot start bad (seat 0): /no/such/program: No such file"),
        (
            f"{sys.executable} /no/such/bot.py",
            "cannot start bad (seat 0): /no/such/bot.py: No such",
        ),
    ],
)
def test_a_bot_program_that_does_not_exist_is_the_organisers_error(
    spec: str, words: str, tmp_path: Path
) -> None:
    log = tmp_path / "m.log"
    out = match("--engine", f"bad={spec}", "--engine", f"g={GREEDY}", "--log", str(log))
    assert out.returncode == exits.USAGE and out.stdout.startswith("seed ")
    assert out.stdout.count("\n") == 1  # the seed, then nothing: no match was played
    assert one_error_line(out).startswith(f"arena: error: {words}")
    assert not log.exists()


def test_match_help_lists_its_exit_statuses() -> None:
    out = subprocess.run([ARENA, "match", "--help"], capture_output=True, text=True)
    for status in (exits.OK, exits.MATCH_FORFEIT, exits.MATCH_NO_CONTEST):
        assert f"\n  {status} " in out.stdout
    assert "no contest" in out.stdout
