"""Ray clusters for the tests (tests.support.clusters), each in a private temp
directory, stopped by killing exactly the processes the test started
(tests.support.processes.Sessions); their temp directory is the
suite's `ray_temp` (tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.processes import Sessions

pytest.importorskip("ray", reason="the cluster extra is not installed (pip install '.[cluster]')")


@pytest.fixture
def sessions() -> Iterator[Sessions]:
    s = Sessions()
    yield s
    s.close()
