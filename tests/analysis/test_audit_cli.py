"""`arena audit` as a user runs it: text, JSON, its exit statuses and errors."""

from __future__ import annotations

import json

import pytest

from arena.audit.collusion import DEFAULT_SAMPLES as AUDIT_DEFAULT
from arena.cli import exits, main
from arena.cli.audit import DEFAULT_SAMPLES
from arena.match.settings import MatchSettings, ProbeSeats, ProbeSettings
from arena.play import run_match_sync
from arena.rules import Game, Variant
from tests.support.logs import write_log


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    path = tmp_path_factory.mktemp("audit") / "m.log"
    settings = MatchSettings(
        Variant(Game.SCOPONE, target=None, deal_limit=1),
        seed=4,
        probes=ProbeSettings(rate=0.5, seats=ProbeSeats.ALL),
    )
    run_match_sync(["g=builtin:greedy", "r=builtin:random"], settings, log=path)
    return path


def test_the_help_says_the_audit_s_own_default():
    assert DEFAULT_SAMPLES == AUDIT_DEFAULT


def test_text_and_json_give_both_tests_per_partnership(probed, capsys):
    assert main(["audit", str(probed), "--samples", "4"]) == exits.OK
    out = capsys.readouterr().out
    assert "probes: the same request under other match ids" in out
    assert "g + g" in out and "r + r" in out and "4 samples per decision" in out
    assert main(["audit", str(probed), "--samples", "4", "--json"]) == exits.OK
    document = json.loads(capsys.readouterr().out)
    assert document["format"] == "arena-audit"
    assert {tuple(p["partnership"]) for p in document["probes"]} == {("g", "g"), ("r", "r")}
    greedy = next(p for p in document["probes"] if p["partnership"] == ["g", "g"])
    assert greedy["probes"] > 0 and greedy["p_value"] > 0.01
    assert len(document["values"]["partnerships"]) == 2


def test_probes_only_plays_nothing_out(probed, capsys):
    assert main(["audit", str(probed), "--probes-only", "--json"]) == exits.OK
    document = json.loads(capsys.readouterr().out)
    assert document["values"] is None and document["probes"]


def test_a_game_without_partners_and_a_changed_log_are_refused_cleanly(tmp_path, probed, capsys):
    scopa = tmp_path / "scopa.log"
    write_log(scopa, Game.SCOPA, 2)
    assert main(["audit", str(scopa)]) == exits.USAGE
    assert "partner" in capsys.readouterr().err
    changed = tmp_path / "changed.log"
    data = bytearray(probed.read_bytes())
    data[len(data) // 2] ^= 0x01
    changed.write_bytes(bytes(data))
    assert main(["audit", str(changed)]) == exits.REPLAY_REFUSED
    err = capsys.readouterr().err
    assert str(changed) in err and "Traceback" not in err
