"""Di Palma & Lanzi's Scopone results reproduced on the arena (docs/paper.md).

    python -m benchmarks.paper [--players LIST] [--decks N|auto] [--iterations SCALE]
                               [--deep] [--cluster local] [--output DIR] [--markdown FILE]
                               [--seed TEXT] [--budget 1h50m] [--estimate]

S. Di Palma and P. L. Lanzi, "Traditional Wisdom and Monte Carlo Tree Search
Face-to-Face in the Card Game Scopone", IEEE Transactions on Games 10(3), 2018
(arXiv 1807.06813). Their protocol: a fixed set of random decks reused in
every experiment, each pairing played on every deck with the seats swapped,
one game being one deal of Scopone (9 cards each, 4 on the table, a table of
three kings dealt again), ties possible, 95% intervals.

Here every experiment is an arena tournament (OUTPUT/<experiment>/tournament.toml,
its store and logs beside it) with `shared_decks = true`: round R of every
pairing of every experiment is dealt deck R of one master seed. A duplicate
set plays the deck twice, everyone moved one seat on, so each side is the
dealer's team once. The experiments:

    dealer      random against random: how often the dealer's team wins
    tournament  a round robin of the players (default: the paper's)
    deep        with --deep: ISMCTS at 32,000 iterations (scaled) against traditional

Before playing, each player is timed on one deck against random and the time
of the whole run estimated (printed); --decks auto (the default) takes as many
decks, up to 1,000, as fit in --budget. The table goes to stdout and, as
markdown, to --markdown (default OUTPUT/paper.md), our figures beside the
paper's. Intervals are Wilson score intervals over games; the two games of a
deck are not independent (one deal, seats swapped), which makes them, if
anything, wider than they need be.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.match.settings import parse_duration
from benchmarks.experiment import (
    Tally,
    add_run_options,
    cores,
    dealer_tally,
    duration,
    engines_table,
    pairing_tallies,
    parse_players,
    played,
    player_tallies,
    run_tournament,
    seat_tallies,
)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PLAYERS = "random,greedy,traditional,ismcts,cheating-mcts"
PAPER_ITERATIONS = {"ismcts": 4000, "cheating-mcts": 1000}
DEEP_ITERATIONS = 32000  # ISMCTS against Chitarrella-Saracino in the paper
MAX_DECKS = 1000  # the paper's
MIN_DECKS = 10

# The paper's figures, in percent: (wins, ties, losses) from the first-named side.
PAPER_DEALER = {
    "dealer": "45.7 [45.3, 46.1]",
    "other": "41.7 [41.3, 42.1]",
    "ties": "12.6 [12.4, 12.8]",
}
# Its final tournament (Table VI): each player over its games against the other three.
PAPER_FIELD = ("random", "traditional", "ismcts", "cheating-mcts")
PAPER_FINAL = {
    "random": (10.3, 4.9, 84.8),
    "traditional": (41.7, 10.4, 47.9),
    "ismcts": (55.8, 10.1, 34.1),
    "cheating-mcts": (79.0, 8.3, 12.6),
}
PAPER_NAMES = {
    "random": "Random",
    "greedy": "Greedy",
    "traditional": "Chitarrella-Saracino (CS)",
    "ismcts": "ISMCTS (4,000 iterations)",
    "cheating-mcts": "MCTS, cheating (1,000 iterations)",
}
PAPER_DEEP = (64.8, 11.8, 23.3)  # ISMCTS at 32,000 iterations against CS
# ISMCTS at 4,000 iterations against Greedy, as the dealer's team and as the other team.
PAPER_SEATS = {("ismcts", "greedy"): (66.6, 53.0)}


def iterations(base: int, scale: float) -> int:
    return max(1, round(base * scale))


def known_players(scale: float) -> dict[str, str]:
    """The players the paper has, by name, with its iteration counts times ``scale``."""
    return {
        "random": "builtin:random",
        "greedy": "builtin:greedy",
        "traditional": "builtin:traditional",
        # The paper's ISMCTS samples the hidden cards uniformly (no inference),
        # and its searches play the end of a deal by the tree too (no exact solve).
        "ismcts": f"builtin:ismcts --iterations {iterations(PAPER_ITERATIONS['ismcts'], scale)}"
        " --infer 0 --no-solve",
        "cheating-mcts": "builtin:cheating-mcts --iterations "
        f"{iterations(PAPER_ITERATIONS['cheating-mcts'], scale)} --no-solve",
    }


@dataclass
class Experiment:
    name: str
    players: list[tuple[str, str]]
    what: str
    seconds: float = 0.0
    matches: int = 0

    @property
    def pairings(self) -> list[tuple[str, str]]:
        names = [n for n, _ in self.players]
        return [(a, b) for i, a in enumerate(names) for b in names[i + 1 :]]


@dataclass
class Plan:
    experiments: list[Experiment]
    decks: int
    seed: str
    cluster: str | None
    move_time: str
    concurrency: int
    # Measured: seconds per match of random against random, and each player's
    # extra seconds per match over random's.
    base: float = 0.0
    extra: dict[str, float] = field(default_factory=dict)

    def config(
        self, experiment: Experiment, decks: int | None = None, *, local: bool = False
    ) -> dict[str, Any]:
        """The experiment's tournament file (``local``: in this process, one match at once)."""
        raw: dict[str, Any] = {
            "name": f"paper-{experiment.name}",
            "variant": "scopone",
            "target": 0,  # no target score: one deal is the game
            "deal_limit": 1,
            "format": "round-robin",
            "rounds": decks or self.decks,
            "duplicate": True,
            "shared_decks": True,
            "seed": self.seed,
            "concurrency": 1 if local else self.concurrency,
            "clock": {"move_time": self.move_time},
            "engine": engines_table(experiment.players),
        }
        if self.cluster and not local:
            raw["cluster"] = {"address": self.cluster}
        return raw

    def per_deck(self, experiment: Experiment) -> float:
        """Estimated seconds of one deck (two matches) of every pairing, serially."""
        specs = dict(experiment.players)
        return sum(
            2 * (self.base + self.extra.get(specs[a], 0.0) + self.extra.get(specs[b], 0.0))
            for a, b in experiment.pairings
        )

    @property
    def parallel(self) -> int:
        """Matches that think at once: one per core on a cluster; in this
        process, built-in engines think in its threads and share one core."""
        return cores() if self.cluster else 1


def probe(plan: Plan, output: Path) -> None:
    """Time random against random, then each other player against random, on
    the first deck (their logs are kept under OUTPUT/probe)."""
    baseline = Experiment(
        "probe-random", [("random", "builtin:random"), ("random2", "builtin:random")], ""
    )
    shutil.rmtree(output / "probe", ignore_errors=True)  # a probe is timed afresh
    decks = 50
    seconds = run_tournament(
        plan.config(baseline, decks, local=True), output / "probe" / "random", quiet=True
    )
    one = run_tournament(
        plan.config(baseline, 1, local=True), output / "probe" / "random-1", quiet=True
    )
    plan.base = max(0.0, seconds - one) / (2 * (decks - 1))  # a run's start and end left out
    specs = {spec for e in plan.experiments for _, spec in e.players}
    for i, spec in enumerate(sorted(specs - {"builtin:random"})):
        name = spec.split()[0].removeprefix("builtin:").replace(":", "-") or "player"
        vs = Experiment("probe", [(name, spec), ("probe-random", "builtin:random")], "")
        where = output / "probe" / f"{i}-{name}"  # two specs may share a name
        took = run_tournament(plan.config(vs, 1, local=True), where, quiet=True)
        plan.extra[spec] = max(0.0, (took - one) / 2)
        print(f"  {spec}: {plan.base + plan.extra[spec]:.2f} s per match against random")


def estimate(plan: Plan) -> float:
    """Wall-clock seconds of the whole plan as measured by the probe."""
    startup = 15.0 if plan.cluster else 0.5  # a Ray instance per experiment
    return sum(plan.decks * plan.per_deck(e) / plan.parallel + startup for e in plan.experiments)


def auto_decks(plan: Plan, budget: float) -> int:
    per_deck = sum(plan.per_deck(e) for e in plan.experiments) / plan.parallel
    fit = math.floor(budget / per_deck) if per_deck > 0 else MAX_DECKS
    return max(MIN_DECKS, min(MAX_DECKS, fit))


def pct(value: float) -> str:
    return f"{value:.1f}"


def markdown(plan: Plan, output: Path, argv: Sequence[str], revealed: str) -> str:
    """The report: setup, the dealer's advantage, the final tournament per
    player and per pairing, and the deep match, each beside the paper's."""
    lines = [
        "# Scopone: Di Palma & Lanzi (2018) on the arena",
        "",
        f"Command: `python -m benchmarks.paper {' '.join(argv)}`".rstrip() + "  ",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {cores()} cores"
        + (f", matches on the Ray cluster `{plan.cluster}`" if plan.cluster else ", in one process")
        + ".  ",
        f"{plan.decks} fixed decks (deck R of master seed `{revealed}`, the same in every "
        "pairing and experiment), each played twice with the teams swapped (each side the "
        "dealer's team once); one game = one deal of Scopone 9+4, ties possible. Intervals: "
        "95% Wilson score intervals over games.",
        "",
        "| experiment | players | games | wall time | per game |",
        "| --- | --- | ---: | ---: | ---: |",
    ]
    for e in plan.experiments:
        per = f"{e.seconds / e.matches:.2f} s" if e.matches else "-"
        names = ", ".join(f"`{n}` = `{s}`" for n, s in e.players)
        lines.append(f"| {e.name} | {names} | {e.matches} | {duration(e.seconds)} | {per} |")
    by_name = {e.name: e for e in plan.experiments}

    if "dealer" in by_name:
        matches = played(output / "dealer" / "results.sqlite")
        t = dealer_tally(matches)
        lines += [
            "",
            "## The dealer's team, random players",
            "",
            "| random against random | ours, % [95%] | paper, % [95%] |",
            "| --- | --- | --- |",
            f"| dealer's team wins | {t.cell(t.wins)} | {PAPER_DEALER['dealer']} |",
            f"| the other team wins | {t.cell(t.losses)} | {PAPER_DEALER['other']} |",
            f"| ties | {t.cell(t.ties)} | {PAPER_DEALER['ties']} |",
            "",
            f"{t.games} games.",
        ]

    if "tournament" in by_name:
        e = by_name["tournament"]
        matches = played(output / "tournament" / "results.sqlite")
        pairings = pairing_tallies(matches)
        names = [n for n, _ in e.players]
        field_ = [n for n in PAPER_FIELD if n in names]
        if len(field_) >= 2:
            per = player_tallies(pairings, field_)
            lines += [
                "",
                "## Final tournament (the paper's Table VI): each player against the others "
                "of the paper's field",
                "",
                f"Over the pairings among {', '.join(f'`{n}`' for n in field_)} only, as the "
                "paper's tournament had no greedy player.",
                "",
                "| player | the paper's player | games | wins, % [95%] | ties | losses "
                "| paper: wins / ties / losses |",
                "| --- | --- | ---: | --- | --- | --- | --- |",
            ]
            for n in sorted(field_, key=lambda n: -per[n].wins / max(1, per[n].games)):
                t = per[n]
                ref = " / ".join(pct(x) for x in PAPER_FINAL[n]) if n in PAPER_FINAL else "-"
                lines.append(
                    f"| `{n}` | {PAPER_NAMES.get(n, '-')} | {t.games} | {t.cell(t.wins)} | "
                    f"{t.cell(t.ties)} | {t.cell(t.losses)} | {ref} |"
                )
        per_all = player_tallies(pairings)
        lines += [
            "",
            "## Each player against every other",
            "",
            "| player | games | wins, % [95%] | ties | losses |",
            "| --- | ---: | --- | --- | --- |",
        ]
        for n in sorted(
            names,
            key=lambda n: -per_all.get(n, Tally()).wins / max(1, per_all.get(n, Tally()).games),
        ):
            t = per_all.get(n, Tally())
            lines.append(
                f"| `{n}` | {t.games} | {t.cell(t.wins)} | {t.cell(t.ties)} | {t.cell(t.losses)} |"
            )
        lines += [
            "",
            "## Per pairing",
            "",
            "A's results; the last two columns are A's wins as the dealer's team and as the "
            "other team.",
            "",
            "| A | B | games | A wins, % [95%] | ties | B wins | A wins, dealer's team | "
            "A wins, other team | paper |",
            "| --- | --- | ---: | --- | --- | --- | --- | --- | --- |",
        ]
        for (a, b), t in pairings.items():
            mine = [m for m in matches if set(m.seats) == {a, b}]
            dealer, other = seat_tallies(mine, a)
            note = ""
            for who, vs in ((a, b), (b, a)):
                if ref := PAPER_SEATS.get((who, vs)):
                    note = f"`{who}` wins {pct(ref[0])} as dealer's team, {pct(ref[1])} as other"
            lines.append(
                f"| `{a}` | `{b}` | {t.games} | {t.cell(t.wins)} | {t.cell(t.ties)} | "
                f"{t.cell(t.losses)} | {dealer.cell(dealer.wins)} | {other.cell(other.wins)} | "
                f"{note} |"
            )

    if "deep" in by_name:
        e = by_name["deep"]
        matches = played(output / "deep" / "results.sqlite")
        (a, b), t = next(iter(pairing_tallies(matches).items()))
        lines += [
            "",
            f"## `{a}` against `{b}` (the paper: ISMCTS at 32,000 iterations against CS)",
            "",
            "| | ours, % [95%] | paper, % |",
            "| --- | --- | --- |",
            f"| `{a}` wins | {t.cell(t.wins)} | {pct(PAPER_DEEP[0])} |",
            f"| ties | {t.cell(t.ties)} | {pct(PAPER_DEEP[1])} |",
            f"| `{b}` wins | {t.cell(t.losses)} | {pct(PAPER_DEEP[2])} |",
            "",
            f"{t.games} games.",
        ]
    lines += [
        "",
        "## Checking it",
        "",
        "Every game's log is kept under the experiment's directory:",
        "",
        "```",
        f"arena verify-seed {revealed} {output}/*/logs/*.log  # decks follow from the seed",
        f"arena replay {output}/tournament/logs/LOG  # every move legal, every score right",
        f"arena ratings {output}/tournament/results.sqlite  # the arena's own standings",
        "```",
    ]
    return "\n".join(lines) + "\n"


def budget_seconds(text: str) -> float:
    """A duration such as "2h", "1h45m", "90m" or "1800s"."""
    hours, h, rest = text.strip().lower().partition("h")
    if not h:
        return parse_duration(text)
    try:
        return float(hours) * 3600 + (parse_duration(rest) if rest else 0.0)
    except ValueError:
        raise ValueError(f"{text!r} is not a duration like 2h, 1h45m or 90m") from None


def build_plan(args: argparse.Namespace) -> Plan:
    known = known_players(args.iterations)
    players = parse_players(args.players, known)
    experiments = [
        Experiment(
            "dealer",
            [("random", "builtin:random"), ("random2", "builtin:random")],
            "random against random: the dealer's team's advantage",
        ),
        Experiment("tournament", players, "round robin of the players"),
    ]
    if args.deep:
        deep = (
            f"builtin:ismcts --iterations {iterations(DEEP_ITERATIONS, args.iterations)}"
            " --infer 0 --no-solve"
        )
        experiments.append(
            Experiment(
                "deep",
                [("ismcts-deep", deep), ("traditional", known["traditional"])],
                "ISMCTS at 32,000 iterations (scaled) against traditional",
            )
        )
    concurrency = args.concurrency or cores()
    return Plan(experiments, 0, args.seed, args.cluster, args.move_time, concurrency)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.paper",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[2:]),
    )
    ap.add_argument(
        "--players",
        default=DEFAULT_PLAYERS,
        help="NAME or NAME=SPEC, by commas "
        f"(default {DEFAULT_PLAYERS}); known names: {', '.join(known_players(1))}",
    )
    ap.add_argument(
        "--decks",
        default="auto",
        help="fixed decks, each played twice per "
        f"pairing (default auto: as many as fit in --budget, {MIN_DECKS} to {MAX_DECKS})",
    )
    ap.add_argument(
        "--iterations",
        type=float,
        default=1.0,
        help="scale of the paper's "
        "iterations (ISMCTS 4,000, cheating MCTS 1,000, deep 32,000; default 1)",
    )
    ap.add_argument(
        "--deep",
        action="store_true",
        help="also ISMCTS at 32,000 iterations (scaled) against traditional",
    )
    ap.add_argument(
        "--budget",
        default="1h50m",
        help="wall time --decks auto fits the games in (default 1h50m: the whole run, its "
        "timing and the Ray start included, within 2 hours)",
    )
    ap.add_argument("--move-time", default="120s", help="limit per decision (default 120s)")
    ap.add_argument("--seed", default="scopone-paper-2018", help="master seed of the decks")
    add_run_options(ap, "paper")
    args = ap.parse_args(argv)
    argv = list(sys.argv[1:] if argv is None else argv)
    output: Path = args.output.resolve()
    try:
        plan = build_plan(args)
        print(f"timing each player on one deck against random ({output / 'probe'}):")
        probe(plan, output)
        print(f"  random against random: {plan.base * 1000:.0f} ms per match")
        budget = budget_seconds(args.budget)
        plan.decks = auto_decks(plan, budget) if args.decks == "auto" else int(args.decks)
        total = estimate(plan)
        games = sum(2 * plan.decks * len(e.pairings) for e in plan.experiments)
        print(
            f"{plan.decks} decks, {games} games, {plan.parallel} thinking at once: "
            f"about {duration(total)}"
        )
        for e in plan.experiments:
            print(
                f"  {e.name}: {len(e.pairings)} pairing(s), about "
                f"{duration(plan.decks * plan.per_deck(e) / plan.parallel)}"
            )
        if args.decks == "auto" and plan.decks < 200:
            slow = sum(plan.per_deck(e) for e in plan.experiments)
            print(
                f"  only {plan.decks} decks fit in {args.budget}: a smaller --iterations, or "
                "--cluster local, buys more; per deck of every pairing now "
                f"{slow:.0f} s of thinking"
            )
        if args.estimate:
            return 0
        for e in plan.experiments:
            print(f"\n== {e.name}: {e.what}")
            e.seconds = run_tournament(plan.config(e), output / e.name)
            e.matches = len(played(output / e.name / "results.sqlite"))
        text = markdown(plan, output, argv, plan.seed)
    except (ArenaError, ValueError) as e:
        print(f"paper: error: {e}", file=sys.stderr)
        return 2
    target = args.markdown or output / "paper.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    print("\n" + text)
    print(f"written to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
