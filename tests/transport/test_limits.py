"""A bot's limits cap the bot, not each of its processes, and a limit that
stops a bot is named. Each attack is a real bot (tests/bots/hog.py) in a real
sandbox; each also runs unconfined, where it holds what it took, so that these
tests can fail."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest
import trio

from arena.errors import BotError
from arena.outcome import FaultKind, MatchReport, Termination
from arena.play import run_match_sync
from arena.rules import Game, Variant
from arena.settings import ClockSettings, MatchSettings, SandboxMode, SandboxSettings
from arena.transport import limits
from arena.transport.process import launch
from arena.transport.sandbox import unavailable
from arena.transport.seats import unwrap
from tests.support.processes import live_pids

ROOT = Path(__file__).resolve().parents[2]
HOG = ROOT / "tests/bots/hog.py"

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}"),
]

CAPPED = SandboxSettings(SandboxMode.ON, memory_mib=128)
OFF = SandboxSettings(SandboxMode.OFF)


def hog(hold: str, tag: str, sandbox: SandboxSettings = CAPPED) -> MatchReport:
    spec = f"h={sys.executable} {HOG} --hold {hold} {tag}"
    settings = MatchSettings(
        Variant(Game.SCOPA, target=None, deal_limit=1),
        seed=3,
        clock=ClockSettings(move_time=40),
        startup_timeout=15,
        sandbox=sandbox,
    )
    report = run_match_sync([spec, "r=builtin:random"], settings)
    assert live_pids(tag) == []
    return report


def said(report: MatchReport) -> list[str]:
    return [d.comment for d in report.decisions if d.seat == 0 and d.comment]


@pytest.mark.parametrize(
    "hold",
    [
        "fork --count 8 --mib 96",  # eight processes, each far under the limit
        "shared --mib 512",  # one MAP_SHARED anonymous mapping
        "memfd --count 8 --mib 60",  # memory files held open, mapped nowhere
        "files --count 200000 --linger 4",  # empty files: kernel memory, no bytes
    ],
    ids=["forked-children", "shared-mapping", "memfds", "empty-files"],
)
def test_memory_held_in_any_way_counts_against_the_bot_as_a_whole(hold, tag, tmp_path):
    report = hog(hold, tag)
    (fault,) = report.result.faults
    assert fault.seat == 0 and fault.kind is FaultKind.CRASH, fault
    assert "went over the memory limit" in fault.message, fault.message
    assert "the limit is 128 MiB for all of them" in fault.message, fault.message
    assert "--memory-limit" in fault.message
    assert report.result.termination is Termination.FORFEIT and report.result.winner == 1
    assert said(report) == []  # it never got to answer

    unconfined = hog(f"{hold} --path {tmp_path}", tag, OFF)  # its files, not the host's /tmp
    assert unconfined.result.termination is Termination.COMPLETED, unconfined.result
    assert said(unconfined)[0].startswith(f"HOG {hold.split()[0]}: held"), said(unconfined)


def test_the_socket_directory_is_capped_and_not_on_the_hosts_disk(tag, tmp_path):
    report = hog("write --path /run/bot --mib 200", tag)
    assert report.result.termination is Termination.COMPLETED, report.result
    (verdict,) = said(report)
    assert verdict.startswith("HOG write: refused") and "No space left" in verdict, verdict

    unconfined = hog(f"write --path {tmp_path} --mib 200", tag, OFF)
    assert said(unconfined)[0].startswith("HOG write: held 200 MiB"), said(unconfined)


def test_the_projects_own_greedy_bot_plays_at_the_smallest_memory_limit():
    smallest = SandboxSettings(SandboxMode.ON, memory_mib=64)
    settings = MatchSettings(Variant(Game.SCOPA, target=None, deal_limit=1), seed=1)
    report = run_match_sync(
        [f"g={sys.executable} {ROOT / 'engines/greedy/bot.py'}", "r=builtin:random"],
        replace(settings, sandbox=smallest),
    )
    assert report.result.termination is Termination.COMPLETED, report.result


def start(code: str, sandbox: SandboxSettings, tmp_path: Path) -> str:
    """The error of a bot that dies at start-up after running ``code``."""

    async def run() -> None:
        async with launch(
            [sys.executable, "-c", code],
            label="bot",
            output=tmp_path / "bot.log",
            sandbox=sandbox,
            startup_timeout=20,
        ):
            pass

    with pytest.raises(Exception) as caught:
        trio.run(run)
    error = unwrap(caught.value)
    assert isinstance(error, BotError), error
    return error.message


@pytest.mark.parametrize(
    ("code", "limits_", "named"),
    [
        (
            "import threading, time\n"
            "for _ in range(200): threading.Thread(target=time.sleep, args=(30,)).start()",
            {"processes": 8},
            "the process limit (8 processes and threads; --process-limit",
        ),
        (
            "x = bytearray(4 << 30)",
            {"memory_mib": 64},
            "ran out of memory at the memory limit (--memory-limit",
        ),
        (
            "open('/tmp/big', 'wb').write(b'1' * (40 << 20))",
            {"disk_mib": 16},
            "the disk limit (16 MiB for each of /tmp and HOME and for any file; --disk-limit",
        ),
    ],
    ids=["processes", "memory", "disk"],
)
def test_a_limit_that_stops_a_bot_is_named_with_its_option(code, limits_, named, tmp_path):
    message = start(code, SandboxSettings(SandboxMode.ON, **limits_), tmp_path)
    assert named in message, message
    assert f"its output is in {tmp_path / 'bot.log'}; its last lines:" in message, message
    assert "Traceback" in message  # the bot's own last lines are quoted, not only one


def test_a_failed_start_quotes_the_last_twenty_lines_and_names_the_file(tmp_path):
    code = "import sys\nfor i in range(30): print('line', i, file=sys.stderr)\nsys.exit(2)"
    for sandbox in (SandboxSettings(SandboxMode.ON), OFF):
        message = start(code, sandbox, tmp_path)
        head, *quoted = message.splitlines()
        assert head == (
            f"exited with code 2 before it was ready (its output is in {tmp_path / 'bot.log'}; "
            "its last lines:)"
        ), head
        assert quoted == [f"  | line {i}" for i in range(10, 30)], quoted
        text = (tmp_path / "bot.log").read_text()
        assert text.startswith("line 0\n"), text  # nothing of the arena's own before it


def test_the_log_header_says_how_the_memory_limit_is_held(tag):
    report = hog("shared --mib 1", tag, CAPPED)
    assert report.engines[0].confinement.endswith(
        f"memory held by all its processes together, by {limits.enforcement()}"
    )
    assert limits.enforcement() == "watchdog"  # these machines delegate no cgroup v2
