"""The engines' strength at equal think time, in Scopa and in Scopone.

    python -m benchmarks.strength [--players LIST] [--think SECONDS] [--sets N|auto]
                                  [--games scopa,scopone] [--target 11] [--cluster local]
                                  [--output DIR] [--markdown FILE] [--budget 1h] [--estimate]

For each game, a duplicate round robin of the players (default random, greedy,
search and ismcts): every pairing plays --sets duplicate sets, a set being
one deck sequence played with the seats rotated (Scopa: 2 matches, seats
swapped; Scopone 9+4: 2 matches, everyone one seat on), round R of every
pairing on the same decks (shared_decks). Engines that think
are told --think SECONDS per move (their spec gets `--think`), so that they
compare at equal time; random, greedy and traditional do not think.

Each game is an arena tournament (OUTPUT/<game>/tournament.toml, store and
logs beside it), rated by the arena's own standings: a Bradley-Terry fit over
every match with bootstrap intervals over duplicate sets, and the head to head
of each pair of neighbours in the table (Elo difference and LOS, the
likelihood that the upper one is the stronger, from duplicate sets as units:
arena.results.ratings, docs/ratings in /work/shared/notes/ratings.md §2).

In this process, built-in engines think in threads that share one core, so
two thinking matches at once would each get half of it: give --cluster local
(make strength does), which plays each match in a worker process, one per core.
The time of a run is estimated before it starts from the think time, the
decisions per match (measured on greedy against greedy) and the cores;
--sets auto (the default) takes as many sets as fit in --budget.
"""

from __future__ import annotations

import argparse
import math
import shutil
import sqlite3
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError
from arena.tournament.standings import Standings, compute_standings
from benchmarks.experiment import (
    add_run_options,
    cores,
    duration,
    engines_table,
    parse_players,
    played,
    run_tournament,
)
from benchmarks.paper import budget_seconds

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PLAYERS = "random,greedy,search,ismcts"
THINKING = ("search", "ismcts", "cheating-mcts")
GAMES = {"scopa": "Scopa", "scopone": "Scopone 9+4"}
DECISIONS_PER_DEAL = 36  # 40 cards, 4 of them dealt to the table
MAX_SETS = 1000
MIN_SETS = 10


def known_players(think: float) -> dict[str, str]:
    """The built-in engines by name, the thinking ones told ``think`` seconds a move."""
    known = {n: f"builtin:{n}" for n in ("random", "greedy", "traditional")}
    known.update({n: f"builtin:{n} --think {think:g}" for n in THINKING})
    return known


def thinks(spec: str) -> bool:
    return "--think" in spec.split()


@dataclass
class Game:
    name: str
    players: list[tuple[str, str]]
    deals_per_match: float = 0.0  # measured
    base: float = 0.0  # seconds of a match of non-thinking engines
    seconds: float = 0.0
    matches: int = 0

    @property
    def pairings(self) -> list[tuple[tuple[str, str], tuple[str, str]]]:
        return [(a, b) for i, a in enumerate(self.players) for b in self.players[i + 1 :]]


@dataclass
class Plan:
    games: list[Game]
    sets: int
    think: float
    target: int
    seed: str
    cluster: str | None
    concurrency: int

    def config(
        self,
        game: Game,
        players: Sequence[tuple[str, str]] | None = None,
        sets: int | None = None,
        *,
        local: bool = False,
    ) -> dict[str, Any]:
        raw: dict[str, Any] = {
            "name": f"strength-{game.name}",
            "variant": game.name,
            "target": self.target,
            "format": "round-robin",
            "rounds": sets or self.sets,
            "duplicate": True,
            "shared_decks": True,  # round R of every pairing: the same decks
            "seed": f"{self.seed}-{game.name}",
            "concurrency": 1 if local else self.concurrency,
            # The engines answer in about --think; the rest is a margin for a slow start.
            "clock": {"move_time": f"{self.think + 2:g}s"},
            "engine": engines_table(players or game.players),
        }
        if self.cluster and not local:
            raw["cluster"] = {"address": self.cluster}
        return raw

    @property
    def parallel(self) -> int:
        return cores() if self.cluster else 1

    def per_set(self, game: Game) -> float:
        """Estimated seconds of one set of every pairing, serially: each side
        makes half of a match's decisions."""
        decisions = game.deals_per_match * DECISIONS_PER_DEAL / 2
        return sum(
            2 * (game.base + decisions * self.think * (thinks(a[1]) + thinks(b[1])))
            for a, b in game.pairings
        )


def probe(plan: Plan, output: Path) -> None:
    """Greedy against greedy: how many deals a match has and what a match of
    engines that do not think costs (logs kept under OUTPUT/probe)."""
    for game in plan.games:
        where = output / "probe" / game.name
        shutil.rmtree(where, ignore_errors=True)
        players = [("greedy", "builtin:greedy"), ("greedy2", "builtin:greedy")]
        sets = 10
        took = run_tournament(plan.config(game, players, sets, local=True), where, quiet=True)
        with sqlite3.connect(where / "results.sqlite") as db:
            (deals,) = db.execute("SELECT avg(deals) FROM matches WHERE deals > 0").fetchone()
        game.deals_per_match = float(deals or 1.0)
        game.base = took / (2 * sets)
        print(
            f"  {GAMES[game.name]}: {game.deals_per_match:.1f} deals per match to "
            f"{plan.target}, {1000 * game.base:.0f} ms per match without thinking"
        )


def neighbours(standings: Standings) -> list[tuple[str, str, str, float]]:
    """Each pair of neighbours in the table (upper first): the upper one's Elo
    over the lower from their head to head, and the LOS of the upper one."""
    h2h = {(h.side_a, h.side_b): h.estimate for h in standings.head_to_head}
    out = []
    for upper, lower in zip(standings.rows, standings.rows[1:], strict=False):
        a, b = upper.engine, lower.engine
        if (a, b) in h2h:
            e, sign, los = h2h[(a, b)], 1, h2h[(a, b)].los
        elif (b, a) in h2h:
            e, sign, los = h2h[(b, a)], -1, 1 - h2h[(b, a)].los
        else:
            continue
        if e.spread:
            elo = f"{sign * e.elo:+.0f} ± {e.elo_error:.0f}"
        else:  # every set the same score: no interval
            elo = f"score {100 * (e.score if sign > 0 else 1 - e.score):.0f}% in every set"
        out.append((a, b, elo, los))
    return out


def game_markdown(plan: Plan, game: Game, standings: Standings) -> list[str]:
    per_set = game.seconds / plan.sets if plan.sets else 0.0
    lines = [
        "",
        f"### {GAMES[game.name]}, matches to {plan.target}",
        "",
        f"{plan.sets} duplicate sets per pairing, {game.matches} matches in "
        f"{duration(game.seconds)} ({plan.parallel} at once): "
        f"{per_set / max(1, len(game.pairings)):.2f} s per set of 2 matches, "
        f"{per_set:.1f} s per round (a set of each pairing, {len(game.pairings)} in all), "
        f"{game.deals_per_match:.1f} deals per match (greedy against greedy).",
        "",
        "| # | engine | Elo | 95% interval | W-L-D | score |",
        "| ---: | --- | ---: | --- | --- | ---: |",
    ]
    for r in standings.rows:
        lines.append(
            f"| {r.rank} | `{r.engine}` | {r.elo:+.0f} | [{r.elo_low:+.0f}, {r.elo_high:+.0f}] "
            f"| {r.wins}-{r.losses}-{r.draws} | {100 * r.score:.1f}% |"
        )
    lines += [
        "",
        "| neighbours | Elo of the upper (head to head) | LOS | separated |",
        "| --- | --- | ---: | --- |",
    ]
    for a, b, elo, los in neighbours(standings):
        lines.append(
            f"| `{a}` over `{b}` | {elo} | {100 * los:.2f}% | {'yes' if los >= 0.95 else 'no'} |"
        )
    lines.append(
        f"\nDealer's advantage fitted: {standings.dealer_advantage:+.0f} Elo. "
        f"{standings.matches} matches with a result."
    )
    return lines


def markdown(plan: Plan, results: list[tuple[Game, Standings]], argv: Sequence[str]) -> str:
    lines = [
        f"## Strength at {plan.think:g} s a move",
        "",
        f"Command: `python -m benchmarks.strength {' '.join(argv)}`".rstrip() + "  ",
        f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {cores()} cores"
        + (f", matches on the Ray cluster `{plan.cluster}`" if plan.cluster else ", in one process")
        + ".  ",
        "Players: " + ", ".join(f"`{n}` = `{s}`" for n, s in plan.games[0].players) + ".  ",
        "Elo: the arena's Bradley-Terry fit over every match, centred on the pool, with "
        "bootstrap intervals over duplicate sets. Neighbours: Elo difference (95%) and LOS "
        "from their head to head, duplicate sets as units; separated when LOS ≥ 95%.",
    ]
    for game, standings in results:
        lines += game_markdown(plan, game, standings)
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.strength",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[2:]),
    )
    ap.add_argument(
        "--players",
        default=DEFAULT_PLAYERS,
        help=f"NAME or NAME=SPEC, by commas (default {DEFAULT_PLAYERS}); known names: "
        f"{', '.join(known_players(0.1))}",
    )
    ap.add_argument("--think", type=float, default=0.1, help="seconds a move (default 0.1)")
    ap.add_argument(
        "--sets",
        default="auto",
        help=f"duplicate sets per pairing (default auto: as many as fit in --budget, "
        f"{MIN_SETS} to {MAX_SETS})",
    )
    ap.add_argument("--games", default="scopa,scopone", help="scopa, scopone or both")
    ap.add_argument("--target", type=int, default=11, help="points a match is played to")
    ap.add_argument("--budget", default="1h", help="wall time --sets auto fits in (default 1h)")
    ap.add_argument("--seed", default="strength", help="master seed (each game adds its name)")
    add_run_options(ap, "strength")
    args = ap.parse_args(argv)
    argv = list(sys.argv[1:] if argv is None else argv)
    output: Path = args.output.resolve()
    try:
        players = parse_players(args.players, known_players(args.think))
        names = [g.strip() for g in args.games.split(",") if g.strip()]
        unknown = [g for g in names if g not in GAMES]
        if unknown or not names:
            raise ValueError(f"--games: {', '.join(unknown) or 'none'}; known: scopa, scopone")
        plan = Plan(
            [Game(n, players) for n in names],
            0,
            args.think,
            args.target,
            args.seed,
            args.cluster,
            args.concurrency or cores(),
        )
        print(f"timing a match of greedy against greedy ({output / 'probe'}):")
        probe(plan, output)
        per_round = sum(plan.per_set(g) for g in plan.games) / plan.parallel
        if args.sets == "auto":
            fit = math.floor(budget_seconds(args.budget) / per_round) if per_round else MAX_SETS
            plan.sets = max(MIN_SETS, min(MAX_SETS, fit))
        else:
            plan.sets = int(args.sets)
        startup = (15.0 if plan.cluster else 0.5) * len(plan.games)
        print(
            f"{plan.sets} sets per pairing, {plan.parallel} thinking at once: about "
            f"{duration(plan.sets * per_round + startup)} "
            f"({per_round:.1f} s per round of sets of both games)"
        )
        if args.estimate:
            return 0
        results = []
        for game in plan.games:
            print(f"\n== {GAMES[game.name]}")
            game.seconds = run_tournament(plan.config(game), output / game.name)
            game.matches = len(played(output / game.name / "results.sqlite"))
            from arena.results.store import Store

            store = Store(output / game.name / "results.sqlite")
            try:
                results.append((game, compute_standings(store)))
            finally:
                store.close()
        text = markdown(plan, results, argv)
    except (ArenaError, ValueError) as e:
        print(f"strength: error: {e}", file=sys.stderr)
        return 2
    target = args.markdown or output / "strength.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    print("\n" + text)
    print(f"written to {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
