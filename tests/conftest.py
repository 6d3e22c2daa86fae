"""Suite-wide rules (no timing assertion outside `make bench`, and a test that
starts a process says so) and the fixtures several test packages use. Shared
helpers that are not fixtures are in tests/support."""

import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.support.paths import ROOT
from tests.support.processes import ended

# The `browser` fixture (headless Chromium) of the viewer's and the site's
# tests; the check that no test leaves a process behind; pytest's own
# `pytester`, which runs the check on tests written to fail it.
pytest_plugins = ["tests.browser", "tests.support.leaks", "pytester"]

# Hypothesis's per-example deadline and its too-slow health check are timing
# assertions: on a loaded machine they fail tests whose logic is right.
settings.register_profile("arena", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("arena")


@pytest.fixture(autouse=True)
def _a_process_needs_the_marker(request: pytest.FixtureRequest, monkeypatch) -> None:
    """`make test-fast` runs the tests not marked ``process``: one that starts a
    process anyway (a bot, the arena command, a browser) would make it slow and
    sensitive to load, so it fails here and says which marker it lacks."""
    if request.node.get_closest_marker("process") is not None:
        return

    def refuse(*args: object, **kwargs: object) -> None:
        raise RuntimeError(
            f"{request.node.nodeid} starts a process: mark it with pytest.mark.process"
        )

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse)


@pytest.fixture
def tag() -> str:
    """A unique marker to put on the command lines of the bots a test launches,
    to find and count them (tests.support.processes)."""
    return f"--tag=t{uuid.uuid4().hex[:12]}"


@pytest.fixture
def bots(tag) -> Iterator[dict[str, str]]:
    """A greedy and a random bot process, run by their 'participants'."""
    procs, addresses = [], {}
    for name in ("greedy", "random"):
        proc = subprocess.Popen(
            [sys.executable, str(ROOT / f"engines/{name}/bot.py"), tag],
            stdout=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        addresses[name] = proc.stdout.readline().split()[1]
    yield addresses
    for proc in procs:
        proc.terminate()
        ended(proc)


@pytest.fixture
def ray_temp() -> Iterator[Path]:
    """A short private directory for a Ray cluster's files (its socket paths
    must stay under 108 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="rt", dir="/tmp"))
    yield path
    subprocess.run(["rm", "-rf", str(path)], check=False)
