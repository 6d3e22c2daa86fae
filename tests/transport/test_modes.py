"""Sandbox modes on a machine without bubblewrap (simulated): auto warns once
and says what is not enforced, on refuses, off is silent."""

import warnings

import pytest

from arena.errors import ConfigError
from arena.match.settings import SandboxMode, SandboxSettings
from arena.transport import sandbox


@pytest.fixture
def no_bubblewrap(monkeypatch):
    monkeypatch.setattr(sandbox, "unavailable", lambda: "bwrap not installed")
    monkeypatch.setattr(sandbox, "_warned", False)


def test_auto_runs_unconfined_with_one_warning(no_bubblewrap):
    with pytest.warns(sandbox.SandboxWarning, match="Not enforced: the file system") as seen:
        first = sandbox.confinement(SandboxSettings())
        second = sandbox.confinement(SandboxSettings())
    assert len(seen) == 1
    assert not first.sandboxed and not second.sandboxed
    assert first.describe() == "not sandboxed (bwrap not installed)"


def test_on_refuses_and_off_is_quiet(no_bubblewrap):
    with pytest.raises(ConfigError, match="the sandbox is required but bwrap not installed"):
        sandbox.confinement(SandboxSettings(SandboxMode.ON))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        off = sandbox.confinement(SandboxSettings(SandboxMode.OFF))
    assert off.describe() == "not sandboxed (sandbox off)"
