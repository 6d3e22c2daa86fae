"""benchmarks.paper on a few decks of random and greedy: the table's numbers
add up, and every pairing of every experiment was dealt the same decks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks.experiment import log_decks, pairing_tallies, played
from benchmarks.paper import main

DECKS = 3


def run(tmp_path: Path) -> str:
    out = tmp_path / "paper"
    players = "random,greedy,greedy2=builtin:greedy"
    assert main(["--players", players, "--decks", str(DECKS), "--output", str(out)]) == 0
    return (out / "paper.md").read_text()


@pytest.mark.slow  # a benchmark's smoke run
def test_a_small_run_adds_up_and_deals_the_same_decks_everywhere(tmp_path, capsys):
    text = run(tmp_path)
    out = tmp_path / "paper"
    printed = capsys.readouterr().out
    assert "decks, " in printed and "about" in printed  # the estimate comes first
    assert printed.index("about") < printed.index("== dealer")

    tournament = played(out / "tournament" / "results.sqlite")
    tallies = pairing_tallies(tournament)
    assert set(tallies) == {("random", "greedy"), ("random", "greedy2"), ("greedy", "greedy2")}
    for t in tallies.values():
        assert t.wins + t.ties + t.losses == t.games == 2 * DECKS  # each deck twice
    dealer = played(out / "dealer" / "results.sqlite")
    assert len(dealer) == 2 * DECKS

    # The markdown's rows: wins + ties + losses are 100% of the games given.
    rows = [line for line in text.splitlines() if line.startswith("| `random` | `greedy` |")]
    (row,) = rows
    cells = [c.strip() for c in row.strip("|").split("|")]
    games = int(cells[2])
    percents = [float(cells[i].split()[0]) for i in (3, 4, 5)]
    assert games == 2 * DECKS and abs(sum(percents) - 100) < 0.2
    dealer_rows = re.findall(
        r"^\| (?:dealer's team wins|the other team wins|ties) \| ([\d.]+)", text, re.M
    )
    assert abs(sum(map(float, dealer_rows)) - 100) < 0.2

    # Round R of every pairing, and of the dealer experiment, played deck R.
    decks = {
        **log_decks(out / "tournament" / "results.sqlite"),
        **log_decks(out / "dealer" / "results.sqlite"),
    }
    assert len(decks) == 4 * 2 * DECKS
    by_round: dict[str, set[tuple[tuple[int, ...], ...]]] = {}
    for match_id, played_decks in decks.items():
        by_round.setdefault(match_id.split(":")[0], set()).add(tuple(played_decks))
    assert sorted(by_round) == [f"deals#{r}" for r in range(DECKS)]
    assert all(len(seen) == 1 for seen in by_round.values())
    assert len({next(iter(seen)) for seen in by_round.values()}) == DECKS  # decks differ by round
