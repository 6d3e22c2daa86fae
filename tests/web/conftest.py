"""Real sites on loopback (tests.support.sites): `arena web DIR` over a
tournament played here, and `arena serve --http` with registered bot processes."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.processes import ended
from tests.support.server import ORGANISER
from tests.support.sites import HOSTILE, ServerSite, Site, play_tournament, start_server, start_web


@pytest.fixture(scope="module")
def tournament(tmp_path_factory) -> Path:
    return play_tournament(tmp_path_factory.mktemp("tour"))


@pytest.fixture(scope="module")
def local_site(tournament) -> Iterator[Site]:
    site = start_web(tournament)
    yield site
    site.stop()


@pytest.fixture
def server_site(tmp_path) -> Iterator[ServerSite]:
    token_file = tmp_path / "organiser.token"
    token_file.write_text(ORGANISER)
    site = start_server(tmp_path / "data", token_file, "--spectator-delay", "1")
    yield site
    site.stop()


@pytest.fixture
def hostile_bot() -> Iterator[Callable[..., str]]:
    """Starts the hostile bot (slow enough to follow live); gives its address."""
    procs: list[subprocess.Popen[str]] = []

    def start(think: float = 0.05, fail_at: int = -1) -> str:
        proc = subprocess.Popen(
            [sys.executable, str(HOSTILE), "--think", str(think), "--fail-at", str(fail_at)],
            stdout=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        assert proc.stdout is not None
        return proc.stdout.readline().split()[1]

    yield start
    for proc in procs:
        proc.terminate()
        ended(proc)
