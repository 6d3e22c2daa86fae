"""A bot's limits cap the bot, not each of its processes, and a limit that
stops a bot is named. Each attack is a real bot (tests/bots/hog.py) in a real
sandbox; each also runs unconfined, where it holds what it took, so that these
tests can fail.

Memory a bot pins by any means is its memory: what the host's free memory
fell by while the bot took it (from the moment it said it started) never
exceeds the limit plus the larger of 32 MiB and a tenth, at 128 MiB and at the
default 1 GiB, and nor does what the bot itself counted in the kernel's queues.
The host's free memory also moves with everything else the host runs (a loaded
CI host's fell 192 MiB once while the bot counted its 96), so a fall past the
bound is measured again, up to three runs: a bot that takes more than its limit
does so every time, as the unconfined runs show, and its own count is exact.
The kernel holds it where the arena makes control groups
(arena.transport.cgroups); elsewhere the watchdog (arena.transport.limits)
holds a bot's pages and files, and these tests run it too."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import trio

from arena.errors import BotError, FaultKind
from arena.match.outcome import MatchReport, Termination
from arena.match.settings import ClockSettings, MatchSettings, SandboxMode, SandboxSettings
from arena.play import run_match_sync
from arena.rules import Game, Variant
from arena.transport import cgroups
from arena.transport.process import launch
from arena.transport.sandbox import unavailable
from arena.transport.seats import unwrap
from tests.support.processes import ended, live_pids

ROOT = Path(__file__).resolve().parents[2]
HOG = ROOT / "tests/bots/hog.py"
ARENA = str(Path(sys.executable).parent / "arena")
MIB = 1 << 20

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}"),
]

CAPPED = SandboxSettings(SandboxMode.ON, memory_mib=128)
OFF = SandboxSettings(SandboxMode.OFF)
KERNEL = cgroups.available() is not None
needs_groups = pytest.mark.skipif(not KERNEL, reason=f"no control groups: {cgroups.hierarchy()}")


@pytest.fixture
def watchdog(monkeypatch) -> Iterator[None]:
    """Bots' memory held by the watchdog, as where the arena makes no control group."""
    monkeypatch.setenv(cgroups.ENV, "off")
    cgroups.hierarchy.cache_clear()
    yield
    monkeypatch.delenv(cgroups.ENV)
    cgroups.hierarchy.cache_clear()


def bound(limit_mib: int) -> int:
    """What a bot at ``limit_mib`` may cost the host at most, in MiB."""
    return limit_mib + max(32, limit_mib // 10)


class HostMemory:
    """The host's free memory, watched from the moment a bot writes ``HOG
    start`` to its output file until ``stop``: how far it fell (MiB)."""

    def __init__(self, output: Path) -> None:
        self.output = output
        self.start: int | None = None
        self.lowest: int | None = None
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    @staticmethod
    def free() -> int:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemFree:"):
                    return int(line.split()[1]) * 1024
        raise AssertionError("no MemFree in /proc/meminfo")

    def _started(self) -> bool:
        return any(b"HOG start" in p.read_bytes() for p in self.output.glob("*.log"))

    def _watch(self) -> None:
        while not self._done.wait(0.005):
            free = self.free()
            if self.start is None:
                if self.output.is_dir() and self._started():
                    self.start = self.lowest = free
            else:
                self.lowest = min(self.lowest or free, free)

    def stop(self) -> float:
        self._done.set()
        self._thread.join()
        assert self.start is not None and self.lowest is not None, "the bot never started"
        return (self.start - self.lowest) / MIB


def hog(hold: str, tag: str, sandbox: SandboxSettings, output: Path) -> tuple[MatchReport, float]:
    """A match of the hog against random: its report, and how far the host's
    free memory fell (MiB) while the hog took what ``hold`` says."""
    spec = f"h={sys.executable} {HOG} --hold {hold} {tag}"
    settings = MatchSettings(
        Variant(Game.SCOPA, target=None, deal_limit=1),
        seed=3,
        clock=ClockSettings(move_time=60),
        startup_timeout=15,
        sandbox=sandbox,
    )
    host = HostMemory(output)
    try:
        report = run_match_sync([spec, "r=builtin:random"], settings, bot_output=output)
    finally:
        fell = host.stop()
    assert live_pids(tag) == []
    return report, fell


def said(report: MatchReport) -> list[str]:
    return [d.comment for d in report.decisions if d.seat == 0 and d.comment]


def counted(output: Path) -> int:
    """The most the hog counted in the kernel's own queues (its last ``HOG taken``)."""
    text = "".join(p.read_text(errors="replace") for p in output.glob("*.log"))
    return max([int(n) for n in re.findall(r"HOG taken (\d+) MiB", text)] or [0])


# Each attack sized to take four times the limit or more where nothing holds it.
ATTACKS = {
    "forked-children": "fork --count 8 --mib {eighth}",
    "shared-mapping": "shared --mib {four}",
    "memfds": "memfd --count {memfds} --mib 48",  # each under the file size limit
    "empty-files": "files --count {files} --linger 4",
    "socket-pairs": "sockets --count {pairs}",
    "socket-pairs-forked": "sockets --count {quarter_pairs} --children 4",
    "pipes": "pipes --count 480",
    "pipes-forked": "pipes --count 480 --children 8",
    "tcp": "tcp --count 60",
    "udp": "udp --count 60",
}


def attack(name: str, limit_mib: int) -> str:
    return ATTACKS[name].format(
        eighth=limit_mib * 3 // 4,  # eight children: six times the limit
        four=limit_mib * 4,
        memfds=limit_mib // 12 + 1,
        files=limit_mib * 2000,  # about 1 KiB of kernel memory each
        pairs=limit_mib // 2,  # 8 MiB of buffers each
        quarter_pairs=limit_mib // 8,
    )


LIMITS = [
    pytest.param(128, id="128MiB"),
    pytest.param(1024, id="1GiB", marks=pytest.mark.slow),
]


@needs_groups
@pytest.mark.parametrize("limit", LIMITS)
@pytest.mark.parametrize("name", list(ATTACKS))
def test_memory_a_bot_pins_by_any_means_is_its_memory(name, limit, tag, tmp_path):
    sandbox = SandboxSettings(SandboxMode.ON, memory_mib=limit)
    report, fell = hog(attack(name, limit), tag, sandbox, tmp_path / "bots")
    took = counted(tmp_path / "bots")
    falls = [fell]
    while fell > bound(limit) and len(falls) < 3:  # the host's memory is everyone's: look again
        fell = hog(attack(name, limit), tag, sandbox, tmp_path / f"again{len(falls)}")[1]
        falls.append(fell)
    fell = min(falls)
    lost = ", ".join(f"{f:.0f}" for f in falls)
    assert fell <= bound(limit), f"the host lost {lost} MiB to a bot limited to {limit} MiB"
    assert took <= bound(limit), f"the bot pinned {took} MiB at a limit of {limit} MiB"
    if report.result.faults:  # stopped at the limit, as its own fault, by the kernel
        (fault,) = report.result.faults
        assert fault.seat == 0 and fault.kind is FaultKind.CRASH, fault
        assert "went over the memory limit" in fault.message, fault.message
        assert f"the limit is {limit} MiB for all of them" in fault.message, fault.message
        assert report.result.termination is Termination.FORFEIT and report.result.winner == 1
        assert said(report) == []
    else:  # or held by a structural bound: it got what it got, within the limit
        assert report.result.termination is Termination.COMPLETED, report.result
        assert said(report)[0].startswith(f"HOG {name.split('-')[0].rstrip('s')}"), said(report)
        assert ": held " in said(report)[0], said(report)  # not refused by another limit


@pytest.mark.parametrize("name", list(ATTACKS))
def test_each_attack_takes_more_than_the_bound_unconfined(name, tag, tmp_path):
    hold = attack(name, 128)
    if name == "socket-pairs-forked":  # the count read is one child's: one alone passes the bound
        hold = ATTACKS[name].format(quarter_pairs=32)
    report, fell = hog(f"{hold} --path {tmp_path}", tag, OFF, tmp_path / "bots")
    assert report.result.termination is Termination.COMPLETED, report.result
    assert said(report)[0].startswith("HOG"), said(report)
    assert max(fell, counted(tmp_path / "bots")) > bound(128), (fell, said(report))


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
def test_the_watchdog_holds_a_bots_pages_and_files(hold, watchdog, tag, tmp_path):
    report, _ = hog(hold, tag, CAPPED, tmp_path / "bots")
    (fault,) = report.result.faults
    assert fault.seat == 0 and fault.kind is FaultKind.CRASH, fault
    assert "went over the memory limit" in fault.message, fault.message
    assert "the limit is 128 MiB for all of them" in fault.message, fault.message
    assert "--memory-limit" in fault.message
    assert report.result.termination is Termination.FORFEIT and report.result.winner == 1
    assert said(report) == []  # it never got to answer
    assert report.engines[0].confinement.endswith(f"by watchdog ({cgroups.ENV}=off)")


def test_the_socket_directory_is_capped_and_not_on_the_hosts_disk(tag, tmp_path):
    report, _ = hog("write --path /run/bot --mib 200", tag, CAPPED, tmp_path / "bots")
    assert report.result.termination is Termination.COMPLETED, report.result
    (verdict,) = said(report)
    assert verdict.startswith("HOG write: refused") and "No space left" in verdict, verdict

    unconfined, _ = hog(f"write --path {tmp_path} --mib 200", tag, OFF, tmp_path / "off")
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


def test_the_log_header_says_how_the_memory_limit_is_held(tag, tmp_path):
    report, _ = hog("shared --mib 1", tag, CAPPED, tmp_path / "bots")
    held = report.engines[0].confinement
    assert held.endswith(f"memory held by all its processes together, by {cgroups.enforcement()}")
    if KERNEL:
        assert "by the kernel (cgroup v1 memory and pids controllers)" in held, held
    else:
        assert "by watchdog (" in held, held


# Control groups ------------------------------------------------------------------


def tree(directory: Path) -> dict[Path, str]:
    """Every group under ``directory`` with its limit, as the kernel shows them;
    arenas' groups by name only (other arenas add and remove theirs meanwhile)."""
    found = {}
    for path, subdirs, _ in os.walk(directory):
        group = Path(path)
        if group.name.startswith(cgroups.PREFIX):
            found[group] = ""
            subdirs.clear()
            continue
        with contextlib.suppress(OSError):
            found[group] = (group / "memory.limit_in_bytes").read_text()
        found.setdefault(group, "")
    return found


@needs_groups
def test_the_arena_touches_no_group_it_did_not_make_and_leaves_none(tag, tmp_path):
    where = cgroups.available()
    assert where is not None
    before = {parent: tree(parent) for parent in (where.memory, where.pids)}
    report, _ = hog("shared --mib 1", tag, CAPPED, tmp_path / "bots")
    assert report.result.termination is Termination.COMPLETED
    mine = f"{cgroups.PREFIX}{os.getpid()}-"
    for parent, groups in before.items():
        now = tree(parent)
        # Groups not made by an arena are as they were, each with its limit;
        # other arenas' groups (tests running beside this one) are theirs.
        assert _not_arenas(now) == _not_arenas(groups), parent
        for group in groups:
            if group.name.startswith(cgroups.PREFIX) and _alive(group.name):
                assert group in now, group  # another live arena's group: untouched
        for group in parent.glob(f"{mine}*"):  # and of our own, no bot's is left
            assert [p for p in group.iterdir() if p.is_dir()] == [], group


def _not_arenas(groups: dict[Path, str]) -> dict[Path, str]:
    return {g: v for g, v in groups.items() if not g.name.startswith(cgroups.PREFIX)}


@needs_groups
def test_an_arena_killed_with_kill_9_leaves_groups_the_next_one_removes(tag, tmp_path):
    where = cgroups.available()
    assert where is not None
    lingering = f"{sys.executable} {HOG} --hold shared --mib 1 --linger 100 {tag}"
    first = subprocess.Popen(
        [
            *(ARENA, "match", "--engine", f"h={lingering}", "--engine", "r=builtin:random"),
            *("--move-time", "200s", "--sandbox", "on", "--log", str(tmp_path / "m.log")),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    left = where.memory.glob(f"{cgroups.PREFIX}{first.pid}-*")
    try:
        deadline = time.monotonic() + 60
        while b"HOG start" not in _bot_output(tmp_path):
            assert time.monotonic() < deadline and first.poll() is None, "the hog never started"
            time.sleep(0.05)
        (group,) = left
        assert any(p.is_dir() for p in group.iterdir())  # the bot's own, in it
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(first.pid, signal.SIGKILL)
        ended(first)
    assert group.is_dir()  # nobody was left to remove it

    greedy = f"g={sys.executable} {ROOT / 'engines/greedy/bot.py'} {tag}"
    second = subprocess.run(
        [ARENA, "match", "--engine", greedy, "--engine", "r=builtin:random", "--deals", "1"],
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert second.returncode == 0, second.stderr
    assert not group.exists()  # removed by the next arena to make groups there
    assert not (where.pids / group.name).exists()
    assert list(where.memory.glob(f"{cgroups.PREFIX}*-*")) == [
        g for g in where.memory.glob(f"{cgroups.PREFIX}*-*") if _alive(g.name)
    ]
    assert live_pids(tag) == []


def _bot_output(tmp_path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in tmp_path.glob("*.log") if p.name != "m.log")


def _alive(name: str) -> bool:
    pid, _, start = name.removeprefix(cgroups.PREFIX).partition("-")
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[19] == start
