"""What a log keeps of how its match was run: settings, launches, revision, clock."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from arena.logs.record import _git_head, read_log, source_revision
from arena.logs.replay import replay_log
from arena.match.outcome import LaunchKind, SeatLaunch
from arena.match.settings import (
    ClockSettings,
    CommandEngine,
    FaultPolicy,
    MatchSettings,
    OnFault,
    SandboxMode,
    SandboxSettings,
    parse_engine,
)
from arena.play import launch_of, run_match_sync
from arena.rules import Game, Variant

ROOT = Path(__file__).resolve().parents[2]
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def test_the_header_keeps_policy_timeouts_sandbox_and_launches(tmp_path):
    sandbox = SandboxSettings(SandboxMode.OFF, memory_mib=512, processes=32, disk_mib=16)
    settings = MatchSettings(
        Variant(Game.SCOPA, target=4),
        seed=9,
        clock=ClockSettings(move_time=2, bank=30, increment=0.25),
        policy=FaultPolicy(OnFault.SUBSTITUTE, strikes=2, substitute="first"),
        startup_timeout=7.5,
        handshake_timeout=3,
        notify_timeout=0.5,
        sandbox=sandbox,
    )
    path = tmp_path / "m.log"
    report = run_match_sync(["a=builtin:greedy", "b=builtin:random"], settings, log=path)
    header = replay_log(path).header
    assert header.format_version == 2
    assert header.policy == settings.policy and header.sandbox == sandbox
    assert (header.startup_timeout, header.handshake_timeout, header.notify_timeout) == (
        7.5,
        3,
        0.5,
    )
    assert header.launches == (
        SeatLaunch(LaunchKind.BUILTIN, builtin="greedy"),
        SeatLaunch(LaunchKind.BUILTIN, builtin="random"),
    )
    assert header.source_revision == source_revision()
    banks = [30.0, 30.0]
    for decision in report.decisions:
        assert decision.deadline == min(2, banks[decision.seat])
        banks[decision.seat] = max(0.0, banks[decision.seat] - decision.think_time) + 0.25
        assert decision.bank_left == pytest.approx(banks[decision.seat])
    logged = [r.decision for r in read_log(path).records if r.WhichOneof("record") == "decision"]
    assert [d.deadline_ms for d in logged] == [round(d.deadline * 1000) for d in report.decisions]
    assert [d.bank_left_ms for d in logged] == [round(d.bank_left * 1000) for d in report.decisions]


def test_without_a_bank_a_decision_keeps_its_deadline_and_no_bank(tmp_path):
    path = tmp_path / "m.log"
    settings = MatchSettings(Variant(Game.SCOPA, target=3), clock=ClockSettings(move_time=1.5))
    run_match_sync(["a=builtin:greedy", "b=builtin:random"], settings, log=path)
    steps = [s for deal in replay_log(path).deals for s in deal.steps]
    logged = [r.decision for r in read_log(path).records if r.WhichOneof("record") == "decision"]
    assert steps and all(d.deadline_ms == 1500 and not d.HasField("bank_left_ms") for d in logged)


def test_a_command_is_kept_as_its_digest_and_program_name():
    spec = parse_engine("bot=/opt/bots/my-bot --token s3cret")
    launch = launch_of(spec, MatchSettings())
    words = b"/opt/bots/my-bot\0--token\0s3cret\0"
    assert launch == SeatLaunch(
        LaunchKind.COMMAND,
        program="my-bot",
        command_sha256=hashlib.sha256(words).hexdigest(),
        sandbox=SandboxSettings(),
    )
    own = SandboxSettings(memory_mib=256)
    with_own = CommandEngine("x", ("a",), sandbox=own)
    assert launch_of(with_own, MatchSettings()).sandbox == own
    assert launch_of(parse_engine("r=127.0.0.1:5000"), MatchSettings()) == SeatLaunch(
        LaunchKind.ADDRESS, address="127.0.0.1:5000"
    )


def test_the_source_revision_is_read_from_git_files(tmp_path):
    assert _git_head(tmp_path) == ""
    git = tmp_path / "checkout" / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    assert _git_head(git.parent) == ""  # a branch with no commit yet
    (git / "packed-refs").write_text(f"# pack-refs with: peeled\n{COMMIT} refs/heads/main\n")
    assert _git_head(git.parent) == COMMIT
    (git / "refs" / "heads" / "main").write_text(COMMIT.replace("0", "f") + "\n")
    assert _git_head(git.parent) == COMMIT.replace("0", "f")
    (git / "HEAD").write_text(COMMIT + "\n")  # detached
    assert _git_head(git.parent) == COMMIT
    (git / "HEAD").write_text("not a commit\n")
    assert _git_head(git.parent) == ""


def test_a_worktree_finds_its_branch_in_the_common_directory(tmp_path):
    common = tmp_path / "main" / ".git"
    private = common / "worktrees" / "wt"
    (common / "refs" / "heads").mkdir(parents=True)
    private.mkdir(parents=True)
    (common / "refs" / "heads" / "topic").write_text(COMMIT + "\n")
    (private / "HEAD").write_text("ref: refs/heads/topic\n")
    (private / "commondir").write_text("../..\n")
    tree = tmp_path / "wt"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {private}\n")
    assert _git_head(tree) == COMMIT


@pytest.mark.process
def test_the_source_revision_is_what_git_says():
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    git = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    if git.returncode != 0:
        pytest.skip(f"git cannot read this checkout: {git.stderr.strip()}")
    assert source_revision() == git.stdout.strip()


@pytest.mark.process
def test_a_launched_command_is_recorded_by_digest(tmp_path):
    path = tmp_path / "m.log"
    bot = f"{sys.executable} {ROOT / 'engines' / 'greedy' / 'bot.py'}"
    settings = MatchSettings(
        Variant(Game.SCOPA, target=2), sandbox=SandboxSettings(SandboxMode.OFF)
    )
    run_match_sync([f"g={bot}", "r=builtin:random"], settings, log=path)
    header = read_log(path).header
    launch = header.engines[0].launch
    assert launch.program == Path(sys.executable).name
    assert (
        launch.command_sha256
        == hashlib.sha256(b"".join(w.encode() + b"\0" for w in bot.split())).digest()
    )
    assert "bot.py" not in str(header)


def test_the_checker_in_the_docs_recomputes_the_chain(tmp_path):
    """docs/logs.md shows a chain checker with no protobuf: it runs as written."""
    text = (ROOT / "docs" / "logs.md").read_text(encoding="utf-8")
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, object] = {}
    exec(compile(code, "docs/logs.md", "exec"), namespace)
    path = tmp_path / "m.log"
    run_match_sync(["a=builtin:greedy", "b=builtin:random"], MatchSettings(seed=4), log=path)
    contents = read_log(path)
    assert namespace["check"](path.read_bytes()) == contents.chain  # type: ignore[operator]
    assert contents.records[-1].chain == contents.chain
    damaged = bytearray(path.read_bytes())
    damaged[-40] ^= 1  # inside the end record, before its chain value
    with pytest.raises(AssertionError):
        namespace["check"](bytes(damaged))  # type: ignore[operator]
