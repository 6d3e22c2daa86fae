"""Arenas killed with SIGKILL at random instants while they start bots: no bot
process outlives them (tests/transport/kill_storm.py; before the sandbox ran in
a PID namespace of its own, about half of them left a sandbox running)."""

import pytest

from arena.transport.sandbox import unavailable
from tests.transport.kill_storm import storm

pytestmark = pytest.mark.process


@pytest.mark.parametrize("sandbox", ["on", "off"], ids=["sandboxed", "unconfined"])
def test_no_bot_outlives_an_arena_killed_while_it_starts_bots(sandbox, tag):
    if sandbox == "on" and unavailable() is not None:
        pytest.skip(f"no sandbox here: {unavailable()}")
    survivors = storm(12, sandbox, at_once=4, after=(0.4, 1.2), grace=3.0, tag=tag)
    assert survivors == {}
