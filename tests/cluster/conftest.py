"""Ray clusters for the tests (tests.support.clusters), each in a private temp
directory, stopped by killing exactly the processes the test started
(tests.support.processes.Sessions)."""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.processes import Sessions

pytest.importorskip("ray", reason="the cluster extra is not installed (pip install '.[cluster]')")


@pytest.fixture
def ray_temp() -> Iterator[Path]:
    """A short private directory (Ray's socket paths must stay under 108 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="rt", dir="/tmp"))
    yield path
    subprocess.run(["rm", "-rf", str(path)], check=False)


@pytest.fixture
def sessions() -> Iterator[Sessions]:
    s = Sessions()
    yield s
    s.close()
