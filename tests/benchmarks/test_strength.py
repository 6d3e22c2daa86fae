"""benchmarks.strength on a few sets of random and greedy: every row's
results add up, each pair of neighbours has its LOS, and round R of every
pairing was dealt the same decks."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.experiment import log_decks, pairing_tallies, played
from benchmarks.strength import main

SETS = 3


@pytest.mark.slow  # about 15 s: two games, each timed first
def test_a_small_run_adds_up(tmp_path: Path, capsys):
    out = tmp_path / "strength"
    players = "random,greedy,g2=builtin:greedy"
    args = ["--players", players, "--sets", str(SETS), "--output", str(out)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert printed.index("about") < printed.index("== Scopa")  # the estimate comes first
    text = (out / "strength.md").read_text()
    for game in ("scopa", "scopone"):
        matches = played(out / game / "results.sqlite")
        assert len(matches) == 3 * 2 * SETS  # 3 pairings, a set is 2 matches
        for t in pairing_tallies(matches).values():
            assert t.games == 2 * SETS
        decks = log_decks(out / game / "results.sqlite")
        first: dict[str, list[tuple[int, ...]]] = {}
        for match_id, dealt in decks.items():
            deck_set = match_id.split(":")[0]
            seen = first.setdefault(deck_set, dealt)
            n = min(len(seen), len(dealt))  # matches to 11 last different numbers of deals
            assert seen[:n] == dealt[:n]
        assert len(first) == SETS
    tables = text.split("### ")[1:]
    assert len(tables) == 2
    for table in tables:
        rows = [line for line in table.splitlines() if line.startswith("| ") and "`" in line]
        ranked = [r for r in rows if r.split("|")[1].strip().isdigit()]
        assert len(ranked) == 3
        for row in ranked:
            wld = row.split("|")[5].strip()
            wins, losses, draws = map(int, wld.split("-"))
            assert wins + losses + draws == 2 * 2 * SETS  # two pairings of 2 * SETS matches
        assert sum(" over " in r for r in rows) == 2  # each pair of neighbours
