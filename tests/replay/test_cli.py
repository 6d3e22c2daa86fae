"""`arena replay` as a user runs it: text, one seat's view, JSON, HTML, errors."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.logs.record import LogWriter, read_log
from arena.rules import Game
from tests.support.logs import write_log

pytestmark = pytest.mark.process

ARENA = str(Path(sys.executable).parent / "arena")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([ARENA, "replay", *args], capture_output=True, text=True, timeout=60)


def test_text_replay_shows_every_play_and_the_scoring(tmp_path):
    path = tmp_path / "m.log"
    report = write_log(path, Game.SCOPA, 4)
    out = run(str(path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("== deal") == len(report.deals)
    assert "verified:" in out.stdout and "scope carte denari settebello primiera" in out.stdout
    assert out.stdout.count(" takes ") + out.stdout.count(" is laid") == len(report.decisions)
    italian = run(str(path), "--faces", "italian", "--from-deal", "2", "--to-deal", "2")
    assert "di denari" in italian.stdout or "di coppe" in italian.stdout
    assert italian.stdout.count("== deal") == 1 and "== deal 2," in italian.stdout


def test_seat_view_shows_only_that_seats_hand(tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPONE, 6)
    out = run(str(path), "--seat", "1", "--faces", "short")
    assert out.returncode == 0
    replay_hands = [
        line
        for line in out.stdout.splitlines()
        if line.startswith("   seat ") and "." not in line[:8]
    ]
    assert replay_hands and all(line.startswith("   seat 1 ") for line in replay_hands)
    assert "seen from seat 1" in out.stdout
    bad = run(str(path), "--seat", "7")
    assert bad.returncode == 2 and "seat must be 0..3" in bad.stderr


def test_json_is_the_protobuf_json_mapping(tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 2)
    data = json.loads(run(str(path), "--json").stdout)
    contents = read_log(path)
    assert data["complete"] is True and data["format_version"] == 2
    assert data["records"][0]["header"]["format_version"] == 2
    assert data["chain"] == contents.chain.hex() and "verified:" in data["status"]
    assert len(data["records"]) == len(contents.records)


def test_a_tampered_log_exits_non_zero_and_says_where(tmp_path):
    path = tmp_path / "m.log"
    write_log(path, Game.SCOPA, 2)
    records = read_log(path).records
    decision = [r for r in records if r.WhichOneof("record") == "decision"][3].decision
    decision.move.card.rank = 11 - decision.move.card.rank if decision.move.card.rank != 5 else 6
    writer = LogWriter(path)
    for r in records:
        writer.write(r)
    writer.close()
    out = run(str(path))
    assert out.returncode == 1 and "does not verify: deal 1, decision 3 (the 4th)" in out.stderr


def test_garbage_is_a_clear_error(tmp_path):
    path = tmp_path / "x.log"
    path.write_text("hello")
    out = run(str(path))
    assert out.returncode == 2 and "Traceback" not in out.stderr and "match log" in out.stderr


def test_help_lists_the_exit_statuses():
    out = subprocess.run([ARENA, "replay", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    statuses = out.stdout[out.stdout.index("exit status:") :]
    for line in ("0    verified", "1    refused", "2    unreadable", "3    incomplete"):
        assert line in statuses
