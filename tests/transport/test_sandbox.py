"""The sandbox against bots that attack it (tests/bots/attacker.py), each a real
process under bubblewrap: every attempt fails, and the match is recorded as it
should be. Each kind of attack also runs once unconfined, where it succeeds, so
that these tests can fail."""

import os
import signal
import socket
import stat
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from arena.errors import FaultKind
from arena.logs.record import read_log
from arena.match.outcome import MatchReport, Termination
from arena.match.settings import ClockSettings, MatchSettings, SandboxMode, SandboxSettings
from arena.play import run_match_sync
from arena.rules import Game, Variant
from arena.transport.sandbox import unavailable
from tests.support.bots import bot
from tests.support.processes import live_pids

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")
ATTACKER = ROOT / "tests/bots/attacker.py"

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(unavailable() is not None, reason=f"no sandbox here: {unavailable()}"),
]

ON = SandboxSettings(SandboxMode.ON)
OFF = SandboxSettings(SandboxMode.OFF)


def attacker(*args: str, tag: str) -> str:
    return " ".join([sys.executable, str(ATTACKER), *args, tag])


def settings(game: Game = Game.SCOPA, sandbox: SandboxSettings = ON, **kw) -> MatchSettings:
    # Attacks that take long (memory, fork bombs, filling /tmp) need a few seconds.
    return MatchSettings(
        Variant(game, target=None, deal_limit=1),
        seed=3,
        clock=ClockSettings(move_time=10),
        startup_timeout=15,
        sandbox=sandbox,
        **kw,
    )


def verdicts(report: MatchReport, seat: int = 0) -> list[str]:
    """What an attacker at ``seat`` said of its attacks (the comments of its decisions)."""
    return [d.comment for d in report.decisions if d.seat == seat and d.comment]


def attack(spec: str, tag: str, sandbox: SandboxSettings = ON, **kw) -> tuple[str, MatchReport]:
    report = run_match_sync([f"a={spec}", "r=builtin:random"], settings(sandbox=sandbox), **kw)
    said = verdicts(report)
    assert said, report.result
    assert live_pids(tag) == []
    return said[0], report


def test_a_sandboxed_bot_runs_as_an_unprivileged_user_and_the_log_says_how(tag, tmp_path):
    log, output = tmp_path / "m.log", tmp_path / "bots"
    _, report = attack(
        attacker("--attack", "proc", "--pid", "1", tag=tag), tag, log=log, bot_output=output
    )
    (written,) = output.iterdir()  # the bot's output: private, like the log
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert stat.S_IMODE(output.stat().st_mode) == 0o700
    assert report.result.termination is Termination.COMPLETED and not report.result.faults
    assert report.engines[0].confinement.startswith("bubblewrap sandbox: 1024 MiB memory")
    header = read_log(log).records[0].header
    assert header.engines[0].confinement == report.engines[0].confinement
    assert header.engines[1].confinement == "in-process strategy"


@pytest.mark.parametrize("sandbox", [ON, OFF], ids=["sandboxed", "unconfined"])
def test_the_live_match_log_and_the_output_directory_cannot_be_read(sandbox, tag, tmp_path):
    log = tmp_path / "out" / "m.log"
    said, report = attack(
        attacker("--attack", "read", "--path", str(log), tag=tag), tag, sandbox, log=log
    )
    expected = "blocked" if sandbox is ON else "succeeded"
    assert said.startswith(f"ATTACK read: {expected}"), said
    listing, _ = attack(
        attacker("--attack", "read", "--path", str(tmp_path), tag=tag), tag, sandbox
    )
    assert listing.startswith(f"ATTACK read: {expected}"), listing
    assert report.result.termination is Termination.COMPLETED


@pytest.mark.parametrize("sandbox", [ON, OFF], ids=["sandboxed", "unconfined"])
def test_the_arenas_processes_and_environment_are_out_of_sight(sandbox, tag, monkeypatch):
    monkeypatch.setenv("SCOPA_TEST_SECRET", "the-organiser-token")
    expected = "blocked" if sandbox is ON else "succeeded"
    said, _ = attack(attacker("--attack", "proc", "--pid", str(os.getpid()), tag=tag), tag, sandbox)
    assert said.startswith(f"ATTACK proc: {expected}"), said
    said, _ = attack(
        attacker("--attack", "env", "--name", "SCOPA_TEST_SECRET", tag=tag), tag, sandbox
    )
    assert said.startswith(f"ATTACK env: {expected}"), said
    said, _ = attack(attacker("--attack", "signal", "--pid", str(os.getpid()), tag=tag), tag, ON)
    assert said.startswith("ATTACK signal: blocked"), said


def test_nothing_outside_tmp_and_home_can_be_written(tag, tmp_path):
    for path in (ATTACKER.parent / "written-by-a-bot", tmp_path / "x", Path("/usr/x")):
        said, _ = attack(attacker("--attack", "write", "--path", str(path), tag=tag), tag)
        assert said.startswith("ATTACK write: blocked"), (path, said)
        assert not path.exists()
    unconfined, _ = attack(
        attacker("--attack", "write", "--path", str(tmp_path / "y"), tag=tag), tag, OFF
    )
    assert unconfined.startswith("ATTACK write: succeeded") and (tmp_path / "y").exists()


def test_filling_tmp_stops_at_the_cap_inside_the_bot_only(tag):
    small = replace(ON, disk_mib=16)
    said, report = attack(attacker("--attack", "fill-tmp", "--mib", "64", tag=tag), tag, small)
    assert said.startswith("ATTACK fill-tmp: blocked"), said
    assert report.result.termination is Termination.COMPLETED and not report.result.faults


def test_no_network_at_all(tag):
    with socket.socket() as host:
        host.bind(("127.0.0.1", 0))
        host.listen()
        address = f"127.0.0.1:{host.getsockname()[1]}"
        for sandbox, expected in ((ON, "blocked"), (OFF, "succeeded")):
            said, _ = attack(
                attacker("--attack", "tcp-connect", "--address", address, tag=tag), tag, sandbox
            )
            assert said.startswith(f"ATTACK tcp-connect: {expected}"), said
    said, _ = attack(attacker("--attack", "tcp-connect", "--address", "1.1.1.1:53", tag=tag), tag)
    assert said.startswith("ATTACK tcp-connect: blocked"), said


def test_memory_past_the_cap_is_the_bots_crash_and_nobody_elses(tag):
    capped = replace(ON, memory_mib=256)
    report = run_match_sync(
        [f"a={attacker('--attack', 'memory', '--mib', '2048', tag=tag)}", "r=builtin:random"],
        settings(sandbox=capped),
    )
    (fault,) = report.result.faults
    assert fault.seat == 0 and fault.kind is FaultKind.CRASH
    assert "over the memory limit" in fault.message and "256 MiB" in fault.message, fault.message
    assert report.result.termination is Termination.FORFEIT and report.result.winner == 1
    assert live_pids(tag) == []


def test_a_fork_bomb_is_contained_and_the_match_goes_on(tag):
    said, report = attack(attacker("--attack", "fork-bomb", "--max", "5000", tag=tag), tag)
    assert said.startswith("ATTACK fork-bomb: blocked"), said
    assert report.result.termination is Termination.COMPLETED and not report.result.faults


def partners(first: str, second: str, tag: str) -> MatchReport:
    """Scopone: one engine's two instances on partner seats 0 and 2."""
    return run_match_sync(
        [
            f"a={attacker(*first.split(), tag=tag)}",
            "r=builtin:random",
            f"b={attacker(*second.split(), tag=tag)}",
            "r2=builtin:random",
        ],
        settings(Game.SCOPONE),
    )


@pytest.mark.parametrize(
    ("first", "second", "kind"),
    [
        (
            "--attack tcp-listen --port 47123",
            "--attack tcp-connect --address 127.0.0.1:47123",
            "tcp-connect",
        ),
        (
            "--attack abstract-listen --name scopa-partners",
            "--attack abstract-connect --name scopa-partners",
            "abstract-connect",
        ),
        (
            "--attack shared-write --path /tmp/partner",
            "--attack shared-read --path /tmp/partner",
            "shared-read",
        ),
    ],
    ids=["tcp", "abstract-socket", "shared-path"],
)
def test_partners_cannot_reach_each_other(first, second, kind, tag):
    report = partners(first, second, tag)
    (said,) = verdicts(report, seat=2)[:1]
    assert said.startswith(f"ATTACK {kind}: blocked"), said
    assert report.result.termination is Termination.COMPLETED and not report.result.faults
    assert live_pids(tag) == []


def test_a_setsid_grandchild_ends_with_the_match(tag):
    said, _ = attack(attacker("--attack", "grandchild", tag=tag), tag)
    assert said.startswith("ATTACK grandchild: succeeded"), said  # it existed...
    assert live_pids(tag) == []  # ...and is gone with the match (checked in attack())


def wait_gone(tag: str, seconds: float = 10) -> list[int]:
    deadline = time.monotonic() + seconds
    while live_pids(tag) and time.monotonic() < deadline:
        time.sleep(0.05)
    return live_pids(tag)


@pytest.mark.parametrize("ending", ["SIGINT", "SIGTERM", "SIGKILL"])
def test_no_bot_process_survives_the_arena(ending, tag, tmp_path):
    """The arena stopped while a sandboxed bot's setsid grandchild, which ignores
    SIGTERM, is alive: none of the bot's processes remains."""
    log = tmp_path / "m.log"
    proc = subprocess.Popen(
        [
            ARENA,
            "match",
            "--sandbox",
            "on",
            "--engine",
            f"a={attacker('--attack', 'grandchild', tag=tag)}",
            "--engine",
            f"slow={bot('misbehave', '--mode', 'sleep', '--at', '2', tag)}",
            "--move-time",
            "30s",
            "--log",
            str(log),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not _has_decision(log, seat=1):
        time.sleep(0.05)
    # The attacker, its grandchild, the slow bot: all up.
    assert len(live_pids(tag)) >= 3, live_pids(tag)
    proc.send_signal(getattr(signal, ending))
    proc.communicate(timeout=30)
    assert wait_gone(tag) == []


def _has_decision(log: Path, seat: int) -> bool:
    from arena.errors import RecordError

    try:
        records = read_log(log).records
    except RecordError:
        return False
    return any(r.WhichOneof("record") == "decision" and r.decision.seat == seat for r in records)


# What a sandbox shows, each as docs/writing-a-bot.md ("Your bot's sandbox") lists it.
SYSTEM = {"/usr"}  # /bin, /sbin and /lib* are links into it
COMMON_ETC = {
    *("alternatives", "ca-certificates", "ca-certificates.conf", "gai.conf", "host.conf"),
    *("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "mime.types"),
    *("nsswitch.conf", "ssl", "timezone"),
}
RUNTIME_ETC = ("java-*", "python3*", "perl", "ruby*", "php", "nodejs", "gcrypt")
MADE_ETC = {"passwd", "group", "hosts", "hostname"}
DEVICES = {"/dev", *(f"/dev/{d}" for d in ("full", "null", "pts", "random", "tty", "urandom"))}
DEVICES |= {"/dev/zero", "/proc"}
PROC_READ_ONLY = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"}
WRITABLE = {"/tmp", "/home/bot", "/run/bot"}


def test_the_sandbox_shows_exactly_what_its_documentation_lists(tag, tmp_path):
    """Every mount point a bot sees, run with the arena's Python: nothing more."""
    said, _ = attack(attacker("--attack", "mounts", tag=tag), tag, bot_output=tmp_path)
    assert said.startswith("ATTACK mounts: succeeded:"), said
    (line,) = [
        ln for p in tmp_path.iterdir() for ln in p.read_text().splitlines() if "ATTACK mounts" in ln
    ]
    seen = set(line.split(": ", 2)[2].split())
    etc = {f"/etc/{n}" for n in COMMON_ETC if Path("/etc", n).exists()}
    etc |= {str(p) for pattern in RUNTIME_ETC for p in Path("/etc").glob(pattern) if p.is_dir()}
    etc |= {f"/etc/{n}" for n in MADE_ETC}
    program = {str(ATTACKER.parent), str(ROOT / "proto"), str(ROOT / "arena")}
    program |= {sys.prefix, sys.base_prefix, str(Path(os.path.realpath(sys.executable)).parent)}
    expected = {"/", *SYSTEM, *etc, *DEVICES, *WRITABLE, *program}
    assert seen - PROC_READ_ONLY == expected, (seen - expected, expected - seen)
    for hidden in ("/opt", "/var", "/srv", "/mnt", "/media", "/boot", "/sys", "/home", "/root"):
        assert hidden not in seen
