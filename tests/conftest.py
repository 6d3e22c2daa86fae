"""Suite-wide rules: no timing assertion outside `make bench`, and a test that
starts a process says so."""

import subprocess

import pytest
from hypothesis import HealthCheck, settings

# The `browser` fixture (headless Chromium) of the viewer's and the site's tests.
pytest_plugins = ["tests.browser"]

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
