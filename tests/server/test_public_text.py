"""The rewriting of the organiser's paths in what participants read
(arena/server/public.py): whole paths only, in every spelling the server
may have written them; and the ladder setting that says who may enter."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from arena.errors import ConfigError
from arena.server.ladder import ladder_settings
from arena.server.public import PublicText
from tests.support.paths import ROOT


def test_the_organisers_paths_are_rewritten_whole_and_nothing_else(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = Path("out/server")  # as `arena serve` takes it by default: relative
    public = PublicText(data)
    here = tmp_path / "out" / "server"
    cases = {
        f"exited with code 3 (its output is in {here}/c1/bots/m.seat0.a.log; its last": (
            "exited with code 3 (its output is in DATA/c1/bots/m.seat0.a.log; its last"
        ),
        "its output is in out/server/c1/bots/x.log": "its output is in DATA/c1/bots/x.log",
        f"cannot start a: {sys.executable} bot.py": "cannot start a: python bot.py",
        f"{ROOT}/arena/sdk.py, line 3": "ARENA/arena/sdk.py, line 3",
        # Not one of its paths: a longer name, or the same words inside another path.
        f"{here}base/x": f"{here}base/x",
        "see about/server/x": "see about/server/x",
        "no path at all": "no path at all",
    }
    if sys.prefix != sys.base_prefix:
        cases[f"{os.path.realpath(sys.prefix)}/lib/x.py"] = "PREFIX/lib/x.py"
    for text, shown in cases.items():
        assert public(text) == shown, text


BASELINES = ["random"]


@pytest.mark.parametrize(
    ("value", "read"),
    [
        ('"anyone"', "anyone"),
        ('"registered"', "registered"),
        ('["alice", "Bob"]', ("alice", "Bob")),
    ],
)
def test_a_ladder_says_who_may_enter(value, read):
    settings = ladder_settings(f"[ladder]\nentrants = {value}\n", BASELINES)
    assert settings.entrants == read


def test_a_ladder_takes_anyone_unless_it_says_otherwise():
    assert ladder_settings("[ladder]\n", BASELINES).entrants == "anyone"


@pytest.mark.parametrize("value", ['"friends"', "[]", "[1]", '["alice\\n"]', "true"])
def test_an_entrants_setting_it_cannot_read_is_refused_in_one_line(value):
    with pytest.raises(ConfigError) as refused:
        ladder_settings(f"[ladder]\nentrants = {value}\n", BASELINES)
    assert "entrants" in str(refused.value) and "\n" not in str(refused.value)
