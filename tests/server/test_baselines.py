"""Every fair built-in player can be a competition's baseline, with options;
the one that sees every hand cannot (arena.server.competitions)."""

from __future__ import annotations

import pytest

from arena.errors import ConfigError
from arena.match.settings import BuiltinEngine
from arena.server.competitions import competition_config


def config(bots: str) -> str:
    return f'name = "cup"\nbots = {bots}\nrounds = 1\ntarget = 4\n'


def test_thinking_players_are_baselines_with_their_options(tmp_path):
    cfg, engines = competition_config(
        config('["builtin:ismcts --think 0.05", "builtin:traditional", "builtin:search"]'),
        lambda name: f"unix:/{name}",
        tmp_path,
    )
    assert list(engines) == ["ismcts", "traditional", "search"]
    ismcts = cfg.engine("ismcts")
    assert ismcts == BuiltinEngine("ismcts", "ismcts", ("--think", "0.05"))


@pytest.mark.parametrize(
    ("bots", "said"),
    [
        ('["builtin:cheating-mcts", "builtin:greedy"]', "sees every hand"),
        ('["builtin:ismcts --thinks 1", "builtin:greedy"]', "unknown option '--thinks'"),
    ],
)
def test_what_a_competition_refuses(tmp_path, bots, said):
    with pytest.raises(ConfigError, match=said):
        competition_config(config(bots), lambda name: f"unix:/{name}", tmp_path)
