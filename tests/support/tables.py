"""`arena match --http` as a real process: the addresses it prints, and the
requests a person's page makes, with the seat's secret in a header."""

from __future__ import annotations

import json
import re
import subprocess
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import requests

from tests.support.paths import ARENA
from tests.support.waiting import until

_SEAT = re.compile(r"^seat (\d+) \((.*)\): (http://\S+)/seat#(\S+)$")


@dataclass
class HostedTable:
    """A running `arena match --http`; ``secrets`` by seat, ``lines`` what it printed."""

    proc: subprocess.Popen[str]
    base: str = ""
    secrets: dict[int, str] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    def seat_url(self, seat: int) -> str:
        return f"{self.base}/seat#{self.secrets[seat]}"

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.secrets[seat]}"}

    def post(self, seat: int | None, path: str, body: object, secret: str | None = None):
        headers = {"Authorization": f"Bearer {secret}"} if secret else {}
        if seat is not None:
            headers = self.auth(seat)
        return requests.post(self.base + path, json=body, headers=headers, timeout=10)

    def stream(self, seat: int) -> Iterator[tuple[str, str, dict]]:
        """The seat's stream, as (event, id, data), until it ends."""
        url = self.base + "/api/seat/events"
        with requests.get(url, headers=self.auth(seat), stream=True, timeout=60) as r:
            r.raise_for_status()
            kind, ident, data = "", "", ""
            for line in r.iter_lines(decode_unicode=True):
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("id: "):
                    ident = line[4:]
                elif line.startswith("data: "):
                    data += line[6:]
                elif line == "" and kind:
                    yield kind, ident, json.loads(data)
                    if kind == "end":
                        return
                    kind, ident, data = "", "", ""

    def wait(self, seconds: float = 60) -> int:
        code = self.proc.wait(seconds)
        self.lines += [line.rstrip("\n") for line in self.proc.stdout or ()]
        return code

    def stop(self) -> None:
        """Kill it if it still runs, and close its output."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def host_table(engines: Sequence[str], *options: str, log: Path | None = None) -> HostedTable:
    """Start `arena match --http 127.0.0.1:0` with these engines and read the
    addresses it prints (every human seat's, then the spectators')."""
    command = [ARENA, "match", "--http", "127.0.0.1:0", "--linger", "2s", *options]
    for engine in engines:
        command += ["--engine", engine]
    if log is not None:
        command += ["--log", str(log)]
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
    )
    table = HostedTable(proc)

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.rstrip("\n")
            table.lines.append(line)
            found = _SEAT.match(line)
            if found:
                table.base = found[3]
                table.secrets[int(found[1])] = found[4]
            if line.startswith("spectators: "):
                table.base = line.split(": ", 1)[1].removesuffix("/watch")
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    until(lambda: not reader.is_alive() or None, 30, "the table's addresses")
    if not table.base:
        table.stop()
        raise AssertionError("arena match --http printed no addresses:\n" + "\n".join(table.lines))
    return table
