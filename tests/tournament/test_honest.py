"""Outcomes that say what happened: an engine that cannot start stops the run
instead of piling up forfeits, SPRT draws no conclusion from faults, a rerun
says it resumes, and head-to-head figures are the first-named engine's."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena.results.store import open_store
from arena.rules.seeding import commitment

pytestmark = pytest.mark.process

ARENA = str(Path(sys.executable).parent / "arena")
NEVER_STARTS = "python -c 'raise SystemExit(3)'"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([ARENA, *args], capture_output=True, text=True, timeout=300)


def tournament_file(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "t.toml"
    path.write_text(
        f'rounds = 4\nseed = "x"\noutput = "{tmp_path / "out"}"\n{extra}\n'
        '[[engine]]\nname = "g"\nspec = "builtin:greedy"\n'
        f'[[engine]]\nname = "broken"\nspec = "{NEVER_STARTS}"\n'
    )
    return path


def test_an_engine_that_cannot_start_stops_the_tournament(tmp_path):
    out = run("tournament", str(tournament_file(tmp_path)))
    assert out.returncode == 2, out.stderr
    assert "broken failed to start in 3 matches in a row" in out.stderr
    assert "startup_failure_forfeits" in out.stderr and "Traceback" not in out.stderr
    store = open_store(tmp_path / "out" / "results.sqlite")
    finished = store.finished()
    # No win for anyone: matches it did not start in have no result.
    assert len(finished) == 3 and all(not m.termination.has_result for m in finished)
    store.close()
    again = run("tournament", str(tournament_file(tmp_path)))
    assert again.returncode == 2 and "resuming (3 of 8" in again.stdout  # played again


def test_startup_failures_may_count_as_forfeits_when_the_file_says_so(tmp_path):
    out = run("tournament", str(tournament_file(tmp_path, "startup_failure_forfeits = true")))
    assert out.returncode == 0, out.stderr
    store = open_store(tmp_path / "out" / "results.sqlite")
    finished = store.finished()
    assert len(finished) == 8
    for m in finished:
        assert m.termination.value == "forfeit"
        assert m.winner_side == m.seats.index("g") % 2
    store.close()


def test_sprt_with_an_engine_that_cannot_start_concludes_nothing(tmp_path):
    out = run(
        "sprt",
        "--engine",
        "g=builtin:greedy",
        "--engine",
        f"broken={NEVER_STARTS}",
        "--output",
        str(tmp_path),
        "--max-sets",
        "50",
    )
    assert out.returncode == 2, out.stdout + out.stderr
    assert "broken failed to start" in out.stderr
    assert "accepted" not in out.stdout


def test_sprt_leaves_faulted_sets_out_reruns_say_so_and_the_seed_is_revealed(tmp_path):
    args = [
        "sprt",
        "--engine",
        "g=builtin:greedy",
        "--engine",
        "r=builtin:random",
        "--elo1",
        "30",
        "--output",
        str(tmp_path),
        "--max-sets",
        "300",
        "--move-time",
        "1s",
    ]
    first = run(*args)
    assert first.returncode == 0, first.stderr
    committed = re.search(r"seed commitment: sha256 ([0-9a-f]{64})", first.stdout)
    revealed = re.search(r"seed revealed: (\S+)", first.stdout)
    assert committed and revealed and commitment(revealed[1]) == committed[1]
    assert first.stdout.index("seed commitment") < first.stdout.index("LLR")
    assert "sets with a fault are left out" in first.stdout
    assert "g vs r (Elo of g; positive: stronger): Elo " in first.stdout
    elo = float(
        re.search(r"g vs r \(Elo of g; positive: stronger\): Elo (-?[\d.]+)", first.stdout)[1]
    )
    assert elo > 0  # the engine just declared stronger has a positive Elo
    again = run(*args)
    assert "resuming" in again.stdout and "already played" in again.stdout
    assert re.search(r"seed revealed: (\S+)", again.stdout)[1] == revealed[1]


def test_a_scopone_sprt_reports_the_test_engines_elo_with_its_sign(tmp_path):
    """The test engine is named "zeta" so that alphabetical order would put it second."""
    out = run(
        "sprt",
        "--variant",
        "scopone",
        "--engine",
        "zeta=builtin:greedy",
        "--engine",
        "alpha=builtin:random",
        "--elo1",
        "30",
        "--output",
        str(tmp_path),
        "--max-sets",
        "300",
    )
    assert out.returncode == 0, out.stderr
    assert "H1 accepted: zeta is stronger" in out.stdout
    line = re.search(r"zeta vs alpha \(Elo of zeta; positive: stronger\): (.*)", out.stdout)
    assert line, out.stdout
    score = float(re.search(r"score ([\d.]+) %", line[1])[1])
    elo = re.search(r"^Elo (-?[\d.]+)", line[1])
    assert score > 50 and (elo is None or float(elo[1]) > 0), line[1]
