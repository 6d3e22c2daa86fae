"""`arena analyse` as a user runs it: text, JSON, the files it writes, its
exit statuses and errors."""

from __future__ import annotations

import json

import pytest

from arena.audit.analysis import analysis_path
from arena.cli import exits, main
from arena.rules import Game
from tests.support.logs import write_log


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    path = tmp_path_factory.mktemp("analyse") / "m.log"
    write_log(path, Game.SCOPA, 5)
    return path


def test_text_gives_every_move_of_every_decision_and_a_summary(log, capsys):
    assert main(["analyse", str(log), "--seat", "1", "--samples", "8"]) == exits.OK
    out = capsys.readouterr().out
    assert "8 samples per decision (reproducible)" in out
    assert "inaccuracy >= 0.2, mistake >= 0.5, blunder >= 1" in out
    decisions = [line for line in out.splitlines() if line.startswith("  decision ")]
    assert decisions and all(", seat 1 (e1): " in line for line in decisions)
    assert out.count("<- played") == sum("(forced)" not in line for line in decisions)
    assert "seat 1 (e1): " in out.splitlines()[-1] and "mean loss" in out.splitlines()[-1]
    assert "seat 0 (e0)" not in out


def test_json_output_and_save_write_the_same_document(log, tmp_path, capsys):
    out_file = tmp_path / "a.json"
    args = ["analyse", str(log), "--samples", "8"]
    assert main([*args, "--json"]) == exits.OK
    printed = capsys.readouterr().out
    assert main([*args, "--output", str(out_file), "--save"]) == exits.OK
    said = capsys.readouterr().out
    saved = analysis_path(log)
    assert f"wrote {out_file}" in said and f"wrote {saved}" in said
    assert "mean loss" in said and "<- played" not in said  # the summary only
    assert out_file.read_text() == saved.read_text() == printed
    document = json.loads(printed)
    assert document["format"] == "arena-analysis" and document["seats"] == [0, 1]
    assert document["method"]["samples"] == 8 and document["method"]["reproducible"]
    saved.unlink()


def test_think_says_the_figures_depend_on_the_machine(log, capsys):
    assert main(["analyse", str(log), "--seat", "0", "--think", "1ms", "--brief"]) == exits.OK
    out = capsys.readouterr().out
    assert "time-bounded: the figures depend on the machine" in out
    assert "<- played" not in out  # --brief


def test_errors_and_exit_statuses(log, tmp_path, capsys):
    assert main(["analyse", str(log), "--seat", "2"]) == exits.USAGE
    assert "no seat 2 in this scopa match (seats 0..1)" in capsys.readouterr().err
    junk = tmp_path / "junk.log"
    junk.write_bytes(b"not a log at all")
    assert main(["analyse", str(junk)]) == exits.USAGE
    assert "arena: error:" in capsys.readouterr().err
    changed = tmp_path / "changed.log"
    data = bytearray(log.read_bytes())
    data[len(data) // 2] ^= 0x01
    changed.write_bytes(bytes(data))
    assert main(["analyse", str(changed)]) == exits.REPLAY_REFUSED
    assert "does not verify" in capsys.readouterr().err
    cut = tmp_path / "cut.log"
    cut.write_bytes(log.read_bytes()[: len(data) // 3])
    assert main(["analyse", str(cut), "--samples", "4"]) == exits.REPLAY_INCOMPLETE
    assert "stops before the match's end" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["analyse", str(log), "--samples", "8", "--think", "1"])
    assert "not allowed with argument" in capsys.readouterr().err


def test_replay_html_shows_the_analysis_beside_the_log(log, tmp_path, capsys):
    html = tmp_path / "m.html"
    saved = analysis_path(log)
    assert main(["analyse", str(log), "--seat", "0", "--samples", "4", "--save"]) == exits.OK
    capsys.readouterr()
    try:
        assert main(["replay", str(log), "--html", str(html)]) == exits.OK
        assert f"with the analysis {saved}" in capsys.readouterr().out
        page = html.read_text()
        assert '"analysis": {"seat": 0' in page and '"analysis": {"samples": 4' in page
        assert main(["replay", str(log), "--html", str(html), "--no-analysis"]) == exits.OK
        assert "with the analysis" not in capsys.readouterr().out
        assert '"analysis": {' not in html.read_text()
        other = tmp_path / "other.log"
        write_log(other, Game.SCOPA, 6)
        analysis_path(other).write_text(saved.read_text())
        assert main(["replay", str(other), "--html", str(html)]) == exits.OK
        said = capsys.readouterr()
        assert "not showing the analysis" in said.err and "another log" in said.err
        assert '"analysis": {' not in html.read_text()
        named = ["replay", str(other), "--html", str(html), "--analysis", str(saved)]
        assert main(named) == exits.USAGE
        assert "the analysis of another log" in capsys.readouterr().err
    finally:
        saved.unlink()
