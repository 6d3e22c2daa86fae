"""`arena tournament`, `arena ratings` and `arena sprt`: many matches, one store."""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.cli import signals
from arena.cli.common import (
    Subparsers,
    add_sandbox_options,
    duration,
    positive,
    sandbox_overrides,
)
from arena.errors import ConfigError
from arena.match.settings import parse_engine
from arena.rules import Game

GAMES = ", ".join(g.value for g in Game)

if TYPE_CHECKING:
    from arena.tournament.config import TournamentConfig
    from arena.tournament.lifecycle import Run

DEFAULT_RESAMPLES = 200


def play_tournament(cfg: TournamentConfig, resamples: int = DEFAULT_RESAMPLES) -> None:
    """Run (or resume) a tournament, printing progress and then the leaderboard."""
    from arena.tournament.config import TournamentFormat
    from arena.tournament.lifecycle import Run
    from arena.tournament.standings import compute_standings

    if cfg.format is TournamentFormat.SPRT:
        raise ConfigError("this configuration is an SPRT: run it with `arena sprt --config FILE`")
    if cfg.format is TournamentFormat.LADDER:
        raise ConfigError(
            "a ladder is open to bots arriving over time: it runs on a competition server "
            "(`arena serve`, then `arena remote create FILE`; docs/ladder.md)"
        )
    for caution in cfg.cautions():
        print(f"arena: warning: {caution}", file=sys.stderr)
    with Run.open(cfg) as run:
        store, cfg = run.store, run.cfg
        done, total = store.counts()
        print(
            f"{cfg.name}: {cfg.format}, {cfg.variant.describe()}, {len(cfg.engines)} engines, "
            f"{'duplicate sets' if cfg.duplicate else 'single matches'}, {cfg.concurrency} at once"
            + (f"; resuming ({done} of {total} matches done)" if run.resuming else "")
        )
        print_commitment(run)
        complete = _play_with_progress(run, cfg.elo_k)
        print()
        print(compute_standings(store, resamples=resamples, k=cfg.elo_k).table())
        print(f"\nresults: {cfg.layout.store}  logs: {cfg.layout.logs}")
        if complete:
            reveal_seed(run)


def _play_with_progress(run: Run, k: float | None) -> bool:
    """Play the run showing its progress line (the leader by live Elo of K ``k``;
    None: no leader); True when it is complete."""
    from arena.tournament.progress import ProgressLine
    from arena.tournament.runner import Runner

    store = run.store
    progress = ProgressLine.resumed(store, k)
    complete = signals.run(run.play, Runner(run.cfg, store, progress=progress), guest=True)
    progress.finish()
    if run.stopped is not None:
        raise ConfigError(run.stopped)
    return complete


def print_commitment(run: Run) -> None:
    """Before the first match: the commitment to the master seed, so that
    participants can check afterwards that the decks were not picked."""
    print(
        f"seed commitment: sha256 {run.commitment} "
        "(the seed is revealed when the run ends; check with `arena verify-seed`)",
        flush=True,
    )


def reveal_seed(run: Run) -> None:
    """When the run is complete: the seed itself, kept in the store as well."""
    seed = run.reveal()
    print(f"seed revealed: {seed}  (commitment sha256 {run.commitment})")


def cmd_tournament(args: argparse.Namespace) -> int:
    from arena.tournament.config import load_config

    overrides: dict[str, Any] = {
        "concurrency": args.concurrency,
        "rounds": args.rounds,
        "seed": args.seed,
        "output": args.output,
        "store": args.store,
        "sandbox": sandbox_overrides(args),
        "cluster": cluster_override(args),
    }
    if args.no_duplicate:
        overrides["duplicate"] = False
    if args.launch_per_match:
        overrides["keep_warm"] = False
    if args.keep_warm:
        overrides["keep_warm"] = True
    play_tournament(load_config(Path(args.config), overrides), resamples=args.resamples)
    return 0


def cluster_override(args: argparse.Namespace) -> dict[str, str] | None:
    """``--cluster ADDRESS`` as the file's [cluster] table (the file's other keys stay)."""
    return {"address": args.cluster} if args.cluster else None


def add_cluster_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="play the matches in more processes than this one: 'processes' for a worker "
        "process per core of this machine; HOST:PORT of a Ray cluster's head, or 'local' for a "
        "Ray instance of this machine (Ray needs pip install 'scopa-arena[cluster]'); this "
        "process still keeps the store and the logs",
    )


def cmd_ratings(args: argparse.Namespace) -> int:
    from arena.results.store import open_store
    from arena.tournament.standings import compute_standings

    path = Path(args.store)
    if not path.exists():
        raise ConfigError(f"{path}: no such results database")
    store = open_store(path)
    try:
        standings = compute_standings(store, resamples=args.resamples, k=args.k)
        print(standings.to_json() if args.json else standings.table())
    finally:
        store.close()
    return 0


def _engine_entry(text: str) -> dict[str, str]:
    """An ``--engine NAME=SPEC`` as a tournament file's [[engine]] entry. It is
    checked by the one engine-spec parser; SPEC stays as typed, so that the
    configuration resolves script paths as it does for a file."""
    spec = parse_engine(text)
    return {"name": spec.name, "spec": text.partition("=")[2].strip()}


def sprt_config(args: argparse.Namespace) -> TournamentConfig:
    """The SPRT from --config FILE, or from two --engine options and the bounds."""
    from arena.tournament.config import TournamentFormat, config_from_dict, load_config

    if args.config:
        cfg = load_config(
            Path(args.config),
            {
                "concurrency": args.concurrency,
                "output": args.output,
                "sandbox": sandbox_overrides(args),
                "cluster": cluster_override(args),
            },
        )
        if cfg.format is not TournamentFormat.SPRT:
            raise ConfigError(f"{args.config}: format must be sprt for `arena sprt`")
        return cfg
    engines = [_engine_entry(text) for text in args.engine or []]
    if len(engines) != 2:
        raise ConfigError(
            "give --config FILE, or two --engine NAME=SPEC: the test engine, then the base"
        )
    test, base = engines
    return config_from_dict(
        {
            "name": "sprt",
            "format": "sprt",
            "variant": args.variant,
            "engine": engines,
            **({"seed": args.seed} if args.seed is not None else {}),
            "concurrency": args.concurrency or 8,
            "output": args.output or "out/sprt",
            "clock": {"move_time": args.move_time},
            "sandbox": sandbox_overrides(args),
            **({"cluster": cluster_override(args)} if args.cluster else {}),
            "sprt": {
                "test": test["name"],
                "base": base["name"],
                "elo0": args.elo0,
                "elo1": args.elo1,
                "alpha": args.alpha,
                "beta": args.beta,
                "max_sets": args.max_sets,
            },
        },
        "sprt",
    )


def cmd_sprt(args: argparse.Namespace) -> int:
    from arena.tournament.lifecycle import Run
    from arena.tournament.sprt import SprtStatus
    from arena.tournament.standings import compute_standings

    with Run.open(sprt_config(args)) as run:
        store, cfg = run.store, run.cfg
        assert cfg.sprt is not None
        s = cfg.sprt
        print(
            f"SPRT {s.test} vs {s.base}: normalized Elo [{s.elo0:g}, {s.elo1:g}], "
            f"alpha {s.alpha:g}, beta {s.beta:g}, duplicate pairs, at most {s.max_sets} sets"
            + ("" if s.count_faults else "; sets with a fault are left out")
        )
        if run.resuming:
            done, total = store.counts()
            print(f"resuming {cfg.layout.store}: {done} of {total} matches already played")
        print_commitment(run)

        def report(status: SprtStatus) -> None:
            print(status.line(), flush=True)

        complete = signals.run(functools.partial(run.play, report=report), guest=True)
        if run.stopped is not None:
            raise ConfigError(run.stopped)
        status = run.sprt_status()
        standings = compute_standings(store, resamples=0)
        for h in standings.head_to_head:
            print(
                f"{h.side_a} vs {h.side_b} (Elo of {h.side_a}; positive: stronger): "
                f"{h.estimate.line()} (naive: stopped by the SPRT)"
            )
        if complete:
            reveal_seed(run)
        if status.faulted:
            print(
                f"{status.faulted} duplicate set(s) with a fault were left out of the test "
                "(see `arena ratings` for the faults)"
            )
        if status.sets == 0:
            print("no conclusion: no duplicate set was played without a fault")
            return 1
        if status.verdict == "H1":
            print(f"H1 accepted: {s.test} is stronger (LLR {status.llr:.3f} >= {status.upper:.3f})")
        elif status.verdict == "H0":
            print(
                f"H0 accepted: {s.test} is not stronger by {s.elo1:g} nElo (LLR {status.llr:.3f})"
            )
        else:
            print(f"inconclusive after {status.sets} sets (LLR {status.llr:.3f})")
    return 0


# The yardstick a new bot is measured against: built-in players, from the
# weakest to the reference engine (thinking briefly, to stay fast).
GAUNTLET_OPPONENTS = ("random", "greedy", "traditional", "ismcts")
GAUNTLET_THINK = 0.1  # seconds a move for the thinking opponents


def gauntlet_opponents(text: str | None) -> list[dict[str, str]]:
    """The opponents' engine tables: built-in players by name (``--opponents``)."""
    from arena.players.strategies import BUILT_IN

    names = [n.strip() for n in text.split(",")] if text else list(GAUNTLET_OPPONENTS)
    opponents = []
    for name in names:
        player = BUILT_IN.get(name)
        if player is None or player.sees_every_hand:
            fair = ", ".join(k for k, b in BUILT_IN.items() if not b.sees_every_hand)
            raise ConfigError(f"--opponents: no built-in opponent {name!r}; known: {fair}")
        spec = f"builtin:{name}" + (f" --think {GAUNTLET_THINK}" if player.thinks else "")
        opponents.append({"name": name, "spec": spec})
    return opponents


def gauntlet_config(args: argparse.Namespace) -> TournamentConfig:
    """Your bot against built-in opponents (by default random to ismcts), in duplicate sets."""
    from arena.tournament.config import config_from_dict

    mine = _engine_entry(args.engine)
    opponents = gauntlet_opponents(args.opponents)
    if mine["name"] in {o["name"] for o in opponents}:
        raise ConfigError(
            f"name your bot something other than {', '.join(o['name'] for o in opponents)}"
        )
    return config_from_dict(
        {
            "name": f"gauntlet-{mine['name']}",
            "format": "gauntlet",
            "challenger": mine["name"],
            "variant": args.variant,
            "engine": [mine, *opponents],
            "rounds": args.sets,
            **({"seed": args.seed} if args.seed is not None else {}),
            "concurrency": args.concurrency,
            "output": args.output or f"out/gauntlet-{mine['name']}",
            "clock": {"move_time": args.move_time},
            "sandbox": sandbox_overrides(args),
        },
        "gauntlet",
    )


def cmd_gauntlet(args: argparse.Namespace) -> int:
    from arena.tournament.lifecycle import Run
    from arena.tournament.standings import compute_standings

    cfg = gauntlet_config(args)
    assert cfg.challenger is not None
    mine = cfg.challenger
    with Run.open(cfg) as run:
        store, cfg = run.store, run.cfg
        rivals = [e.name for e in cfg.engines if e.name != mine]
        print(
            f"{mine} against {', '.join(rivals)}: {cfg.rounds} duplicate set(s) each, "
            f"{cfg.variant.describe()}, {cfg.concurrency} at once"
        )
        print_commitment(run)
        complete = _play_with_progress(run, None)
        standings = compute_standings(store, resamples=0)
        print(f"\n{mine}'s Elo against each (duplicate sets as units, 95% interval):")
        print(f"  {'opponent':<10} {'sets':>5} {'score':>6} {'Elo':>16} {'LOS':>7}")
        for h in standings.head_to_head:
            if mine not in (h.side_a, h.side_b):
                continue
            est, rival = h.estimate, h.side_b if h.side_a == mine else h.side_a
            sign = 1 if h.side_a == mine else -1
            score = est.score if sign > 0 else 1 - est.score
            los = est.los if sign > 0 else 1 - est.los
            elo = f"{sign * est.elo:+.0f} ± {est.elo_error:.0f}"
            print(f"  {rival:<10} {h.sets:>5} {score:>6.3f} {elo:>16} {los:>7.1%}")
        faults = store.fault_counts().get(mine, 0)
        if faults:
            print(f"{mine} had {faults} fault(s): see `arena ratings {cfg.layout.store}`")
        print(f"results: {cfg.layout.store}  logs: {cfg.layout.logs}")
        if complete:
            reveal_seed(run)
    return 0


def add_parsers(sub: Subparsers) -> None:
    tour = sub.add_parser(
        "tournament",
        help="run (or resume) a tournament described in a TOML file",
        description=(
            "Run a tournament from a TOML file (see examples/tournament.toml). Results go to "
            "an SQLite store, each match committed as it finishes: run the same command again "
            "after a crash and it resumes where it stopped. Options below override the file."
        ),
    )
    tour.add_argument("config", help="the tournament file")
    tour.add_argument("--concurrency", type=positive, default=None, help="matches at once")
    tour.add_argument("--rounds", type=positive, default=None, help="duplicate sets per pairing")
    tour.add_argument(
        "--seed",
        default=None,
        help="master seed of every deck (default: the file's, else a fresh random one, "
        "kept in the store)",
    )
    tour.add_argument("--output", default=None, help="output directory (logs, bot output, store)")
    tour.add_argument(
        "--store", default=None, help="results database (default OUTPUT/results.sqlite)"
    )
    tour.add_argument(
        "--no-duplicate", action="store_true", help="single matches, not duplicate sets"
    )
    tour.add_argument(
        "--launch-per-match",
        action="store_true",
        help="launch command engines afresh for every match (the default)",
    )
    tour.add_argument(
        "--keep-warm",
        action="store_true",
        help="keep one process per command engine and slot serving every match (faster; "
        "with duplicate deals a process may remember a deal when its twin comes)",
    )
    tour.add_argument(
        "--resamples",
        type=int,
        default=DEFAULT_RESAMPLES,
        help="bootstrap resamples for intervals",
    )
    add_sandbox_options(tour)
    add_cluster_option(tour)
    gauntlet = sub.add_parser(
        "gauntlet",
        help="measure a bot against random, greedy, traditional and ismcts (Elo with intervals)",
        description=(
            "Play your bot against built-in opponents (by default random, greedy, the "
            "rule-based traditional player and the reference engine ismcts, thinking "
            f"{GAUNTLET_THINK:g} s a move) in duplicate sets, and print its Elo against each "
            "with a 95% interval. The defaults take a few minutes on 2 cores; run it again "
            "with the same --output to add nothing, or a new one for a new bot."
        ),
    )
    gauntlet.add_argument(
        "--opponents",
        default=None,
        metavar="LIST",
        help="built-in opponents, comma-separated (default "
        + ",".join(GAUNTLET_OPPONENTS)
        + "; also search)",
    )
    gauntlet.add_argument(
        "--engine",
        required=True,
        metavar="NAME=SPEC",
        help='your bot, e.g. mine="python my_bot.py" or mine=127.0.0.1:50051',
    )
    gauntlet.add_argument("--variant", default="scopa", help=f"{GAMES} (default scopa)")
    gauntlet.add_argument(
        "--sets", type=positive, default=12, help="duplicate sets per opponent (default 12)"
    )
    gauntlet.add_argument("--concurrency", type=positive, default=2, help="matches at once")
    gauntlet.add_argument("--move-time", default="1s", help="per decision (default 1s)")
    gauntlet.add_argument("--seed", default=None, help="master seed (default: a fresh one)")
    gauntlet.add_argument("--output", default=None, help="default out/gauntlet-NAME")
    add_sandbox_options(gauntlet)
    gauntlet.set_defaults(func=cmd_gauntlet)
    tour.set_defaults(func=cmd_tournament)

    ratings = sub.add_parser("ratings", help="print the leaderboard of a results database")
    ratings.add_argument("store", help="the SQLite results file of a tournament")
    ratings.add_argument("--json", action="store_true", help="JSON for machines")
    ratings.add_argument(
        "--resamples", type=int, default=DEFAULT_RESAMPLES, help="bootstrap resamples"
    )
    ratings.add_argument("--k", type=float, default=16.0, help="K of the live Elo (default 16)")
    ratings.set_defaults(func=cmd_ratings)

    sprt = sub.add_parser(
        "sprt",
        help="is engine A stronger than B? a sequential test that stops by itself",
        description=(
            "Play duplicate pairs of A against B until the normalized-Elo GSPRT crosses a bound "
            "(H1: A is stronger by elo1; H0: not by more than elo0), printing the LLR as it goes."
        ),
    )
    sprt.add_argument("--config", default=None, help='a TOML file with format = "sprt"')
    sprt.add_argument(
        "--engine", action="append", metavar="NAME=SPEC", help="test engine, then base"
    )
    sprt.add_argument("--variant", default="scopa", help=f"{GAMES} (default scopa)")
    sprt.add_argument(
        "--elo0", type=float, default=0.0, help="H0 bound, normalized Elo (default 0)"
    )
    sprt.add_argument(
        "--elo1", type=float, default=20.0, help="H1 bound, normalized Elo (default 20)"
    )
    sprt.add_argument(
        "--alpha", type=float, default=0.05, help="false positive rate (accepting H1 wrongly)"
    )
    sprt.add_argument(
        "--beta", type=float, default=0.05, help="false negative rate (accepting H0 wrongly)"
    )
    sprt.add_argument(
        "--max-sets", type=positive, default=5000, help="give up after this many pairs"
    )
    sprt.add_argument(
        "--seed",
        default=None,
        help="master seed of the decks (default: a fresh random one, kept in the store)",
    )
    sprt.add_argument(
        "--move-time", type=duration, default=1.0, help="time per decision, e.g. 1s, 250ms"
    )
    sprt.add_argument(
        "--concurrency", type=positive, default=None, help="matches at once (default: 8)"
    )
    sprt.add_argument(
        "--output",
        default=None,
        help="directory for the store, logs and bot output (default: out/sprt); "
        "an existing one is resumed",
    )
    add_sandbox_options(sprt)
    add_cluster_option(sprt)
    sprt.set_defaults(func=cmd_sprt)
