"""Real sites on loopback: `arena web DIR` over a tournament played here, and
`arena serve --http`."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from arena.check import sample_positions
from arena.rules.variants import ORIGINAL_GAMES
from tests.support.paths import ARENA, ROOT
from tests.support.processes import ended

# A bot that thinks slowly enough to be followed live, and fails when told to.
HOSTILE = ROOT / "tests/web/hostile_bot.py"
# The decisions the server's check asks a bot that plays the first four games
# and every option, as the hostile bot does: from this one on, it fails in a match.
AFTER_CHECK = sum(1 for _, match, _ in sample_positions() if match.variant.game in ORIGINAL_GAMES)

TOURNAMENT = """
name = "webtest"
variant = "scopa"
target = 11
format = "round-robin"
rounds = 1
duplicate = true
concurrency = 3
output = "{output}"
[clock]
move_time = "2s"
[[engine]]
name = "random"
spec = "builtin:random"
[[engine]]
name = "greedy"
spec = "builtin:greedy"
[[engine]]
name = "hostile"
spec = "{python} {hostile} --fail-at 3"
sandbox = "off"
"""


@dataclass
class Site:
    """A running site process and its base address."""

    proc: subprocess.Popen[str]
    base: str
    lines: list[str] = field(default_factory=list)

    def get(self, path: str) -> tuple[int, str, dict[str, str]]:
        try:
            with urllib.request.urlopen(self.base + path, timeout=30) as reply:
                return reply.status, reply.read().decode(), dict(reply.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(), dict(e.headers)

    def json(self, path: str) -> dict:
        status, body, headers = self.get(path)
        assert status == 200, (path, status, body[:300])
        assert headers["content-type"].startswith("application/json")
        return json.loads(body)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        ended(self.proc, 20)


def read_until(proc: subprocess.Popen[str], prefix: str, lines: list[str]) -> str:
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append(line)
        if line.startswith(prefix):
            return line.split()[1]
    raise AssertionError(f"no {prefix!r} line: {''.join(lines)}")


def play_tournament(directory: Path, store: Path | None = None) -> Path:
    """A tiny real tournament (builtin engines and the hostile bot); its output
    directory (``store``: where its results go, with --store)."""
    output = directory / "webtest"
    config = directory / "t.toml"
    config.write_text(TOURNAMENT.format(output=output, python=sys.executable, hostile=HOSTILE))
    where = [] if store is None else ["--store", str(store)]
    done = subprocess.run(
        [ARENA, "tournament", str(config), *where], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return output


def start_web(directory: Path) -> Site:
    proc = subprocess.Popen(
        [ARENA, "web", str(directory), "--http", "127.0.0.1:0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    base = read_until(proc, "LISTENING ", lines)
    return Site(proc, base, lines)


@dataclass
class ServerSite(Site):
    grpc: str = ""

    def stub(self):
        import grpc

        from arena.wire.v1 import server_pb2_grpc

        return server_pb2_grpc.ArenaStub(grpc.insecure_channel(self.grpc))


def start_server(data: Path, token_file: Path, *options: str) -> ServerSite:
    proc = subprocess.Popen(
        [
            ARENA,
            "serve",
            "--data",
            str(data),
            "--listen",
            "127.0.0.1:0",
            "--organiser-token-file",
            str(token_file),
            "--http",
            "127.0.0.1:0",
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    base = read_until(proc, "SITE ", lines)
    address = read_until(proc, "LISTENING ", lines)
    return ServerSite(proc, base, lines, grpc=address)
