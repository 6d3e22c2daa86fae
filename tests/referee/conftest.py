"""Fixtures for referee tests: real bot processes, found and counted by a tag."""

from __future__ import annotations

import sys
import uuid
from dataclasses import replace
from pathlib import Path

import pytest

from arena.outcome import MatchReport
from arena.play import run_match_sync
from arena.settings import MatchSettings, SandboxMode, SandboxSettings
from tests.transport.kill_storm import live

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable


def bot(name: str, *extra: str) -> str:
    """The command line of an example or test bot."""
    paths = {
        "random": ROOT / "engines/random/bot.py",
        "greedy": ROOT / "engines/greedy/bot.py",
        "misbehave": ROOT / "tests/bots/misbehave.py",
        "spy": ROOT / "tests/bots/spy.py",
        "chatty": ROOT / "tests/bots/chatty.py",
    }
    return " ".join([PY, str(paths[name]), *extra])


# The spy bot writes what it receives to a file of the test's, which a sandboxed
# bot cannot reach: it runs unconfined.
UNCONFINED = SandboxSettings(SandboxMode.OFF)


def live_pids(tag: str) -> list[int]:
    """Processes whose command line holds ``tag`` (to prove none survive)."""
    return list(live(tag))


def recorded(path: Path | str) -> list[bytes]:
    """The requests a spy bot (tests/bots/spy.py) recorded, as raw bytes."""
    data = Path(path).read_bytes()
    out, pos = [], 0
    while pos < len(data):
        n = int.from_bytes(data[pos : pos + 4], "big")
        out.append(data[pos + 4 : pos + 4 + n])
        pos += 4 + n
    return out


@pytest.fixture
def tag() -> str:
    """A unique marker to put on the command lines of the bots a test launches."""
    return f"--tag=t{uuid.uuid4().hex[:12]}"


def play(
    settings: MatchSettings,
    specs: list[str],
    *,
    log: Path | None = None,
    output: Path | None = None,
    allow_shared: bool = False,
) -> MatchReport:
    """Referee one match between NAME=SPEC engines, in seat order."""
    return run_match_sync(
        specs,
        replace(settings, startup_timeout=5),
        log=log,
        bot_output=output,
        allow_shared_partners=allow_shared,
    )
