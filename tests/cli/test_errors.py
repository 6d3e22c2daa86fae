"""How the `arena` command fails: one line, a documented exit status, and a
traceback only when asked for with --debug."""

import subprocess
import sys
from pathlib import Path

import pytest

from arena import cli
from arena.cli import exits
from arena.errors import ConfigError

pytestmark = pytest.mark.process

ARENA = str(Path(sys.executable).parent / "arena")
BUILTINS = ("--engine", "g=builtin:greedy", "--engine", "r=builtin:random")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARENA, *args], capture_output=True, text=True, timeout=60)


def one_error_line(out: subprocess.CompletedProcess[str]) -> str:
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    return lines[0]


@pytest.fixture(scope="module")
def match_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log = tmp_path_factory.mktemp("log") / "m.log"
    made = run("match", *BUILTINS, "--deals", "1", "--log", str(log))
    assert made.returncode == 0, made.stderr
    return log


def test_help_documents_the_exit_statuses() -> None:
    out = run("--help")
    assert out.returncode == 0 and "exit status:" in out.stdout and "--debug" in out.stdout
    for status in ("0", "1", "2", "3", "4", "5", "70", "130", "141"):
        assert f"\n  {status} " in out.stdout


def test_an_unwritable_log_is_one_line() -> None:
    out = run("match", *BUILTINS, "--log", "/proc/nope/m.log")
    assert out.returncode == exits.USAGE
    line = one_error_line(out)
    assert line.startswith("arena: error: /proc/nope/m.log: cannot write")


def test_debug_adds_the_traceback() -> None:
    out = run("--debug", "match", *BUILTINS, "--log", "/proc/nope/m.log")
    assert out.returncode == exits.USAGE and "Traceback" in out.stderr
    assert out.stderr.strip().splitlines()[-1].startswith("arena: error: /proc/nope/m.log")


def test_an_os_error_from_a_command_is_one_line(match_log: Path, tmp_path: Path) -> None:
    html = tmp_path / "missing" / "v.html"
    out = run("replay", str(match_log), "--html", str(html))
    assert out.returncode == exits.USAGE
    assert one_error_line(out) == f"arena: error: {html}: No such file or directory"
    debug = run("--debug", "replay", str(match_log), "--html", str(html))
    assert debug.returncode == exits.USAGE
    assert "Traceback" in debug.stderr and "FileNotFoundError" in debug.stderr


def test_sprt_reads_engines_like_match() -> None:
    sprt = run("sprt", "--engine", "bad")
    match = run("match", "--engine", "bad")
    assert sprt.returncode == match.returncode == exits.USAGE
    assert "expected NAME=SPEC" in one_error_line(sprt)
    assert sprt.stderr == match.stderr


def test_sprt_move_time_is_a_duration() -> None:
    out = run("sprt", "--move-time", "soon", *BUILTINS)
    assert out.returncode == exits.USAGE and "not a duration" in out.stderr
    assert "Traceback" not in out.stderr


def fail_with(monkeypatch: pytest.MonkeyPatch, error: BaseException) -> None:
    def command(args: object) -> int:
        raise error

    monkeypatch.setattr(cli.match, "cmd_play", command)


def test_a_bug_is_one_line_naming_the_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fail_with(monkeypatch, TypeError("bad operand"))
    assert cli.main(["play"]) == exits.INTERNAL
    err = capsys.readouterr().err
    assert err == (
        "arena: internal error: TypeError: bad operand (run with --debug for the traceback)\n"
    )
    assert cli.main(["--debug", "play"]) == exits.INTERNAL
    err = capsys.readouterr().err
    assert "Traceback" in err and err.endswith("arena: internal error: TypeError: bad operand\n")


def test_errors_inside_exception_groups_are_reported_by_their_leaves(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fail_with(monkeypatch, ExceptionGroup("nursery", [ConfigError("no good")]))
    assert cli.main(["play"]) == exits.USAGE
    assert capsys.readouterr().err == "arena: error: no good\n"
    fail_with(monkeypatch, BaseExceptionGroup("nursery", [ValueError("x"), KeyboardInterrupt()]))
    assert cli.main(["play"]) == exits.INTERRUPTED
    assert capsys.readouterr().err == "arena: interrupted\n"
