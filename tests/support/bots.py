"""The example and test bots: their command lines, and what the spy bot recorded."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from arena.match.settings import SandboxMode, SandboxSettings
from tests.support.paths import PY, ROOT


def bot(name: str, *extra: str) -> str:
    """The command line of an example or test bot."""
    paths = {
        "random": ROOT / "engines/random/bot.py",
        "greedy": ROOT / "engines/greedy/bot.py",
        "search": ROOT / "engines/search/bot.py",
        "misbehave": ROOT / "tests/bots/misbehave.py",
        "spy": ROOT / "tests/bots/spy.py",
        "chatty": ROOT / "tests/bots/chatty.py",
        "claims": ROOT / "tests/bots/claims.py",
        "declarer": ROOT / "tests/bots/declarer.py",
    }
    return " ".join([PY, str(paths[name]), *extra])


# The spy bot writes what it receives to a file of the test's, which a sandboxed
# bot cannot reach: it runs unconfined.
UNCONFINED = SandboxSettings(SandboxMode.OFF)


def recorded(path: Path | str) -> list[bytes]:
    """The requests a spy bot (tests/bots/spy.py) recorded, as raw bytes."""
    data = Path(path).read_bytes()
    out, pos = [], 0
    while pos < len(data):
        n = int.from_bytes(data[pos : pos + 4], "big")
        out.append(data[pos + 4 : pos + 4 + n])
        pos += 4 + n
    return out


JS = ROOT / "engines/js"


def js_command() -> str:
    """The JavaScript engine's command line (engines/js), its packages
    installed from the lock file if need be (as `make test` does); the test
    is skipped where Node.js or npm is missing."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("Node.js and npm are needed for the JavaScript engine and are not installed")
    if not (JS / "node_modules/@grpc/grpc-js").exists():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            cwd=JS,
            check=True,
            timeout=300,
        )
    return f"node {JS / 'bot.js'}"
