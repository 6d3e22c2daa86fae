"""The analysed match several test modules read: analysing it is most of
their time, so it is played and analysed once per session."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.audit.analysis import Analysis, analyse_replay
from arena.logs.replay import Replay, replay_log
from arena.play import run_match_sync
from arena.players.strategies import greedy_strategy
from arena.transport.in_process import InProcessConnection
from tests.analysis.test_analysis import THROWN_SEED, settings, thrower_module
from tests.replay.test_viewer import HOSTILE_NAMES


@dataclass(frozen=True)
class Thrown:
    path: Path
    replay: Replay
    analysis: Analysis  # every seat's decisions, at the default samples


@pytest.fixture(scope="session")
def thrown(tmp_path_factory: pytest.TempPathFactory) -> Thrown:
    """A match of the settebello thrower against greedy, its seats named with
    markup, and its analysis as `arena analyse` gives it by default."""
    path = tmp_path_factory.mktemp("thrown") / "thrown.log"
    thrower = InProcessConnection(thrower_module().strategy, name="thrower")
    greedy = InProcessConnection(greedy_strategy(), name="greedy")
    engines = [(HOSTILE_NAMES[0], thrower), (HOSTILE_NAMES[1], greedy)]
    run_match_sync(engines, settings(THROWN_SEED), log=path)
    replay = replay_log(path)
    return Thrown(path, replay, analyse_replay(replay))
