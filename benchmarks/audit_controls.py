"""The collusion audit's power and false-positive rate, measured on controls
(docs/audit.md, section 3).

    python -m benchmarks.audit_controls [--controls LIST] [--runs 20] [--positive-runs N]
        [--matches 2] [--positive-matches 6] [--rate 0.25] [--samples 16] [--think 0.02]
        [--jobs 2] [--output DIR]

Each control is a partnership at seats 0 and 2 of Scopone matches to 11
against builtin:greedy at seats 1 and 3, every seat probed (`seats = all`).
A run plays --matches matches (a positive control's, --positive-matches) on
its own seeds, then audits them:
- the probes' exact test;
- the log audit against the opponents' hands;
- the log audit against a null. For a negative control the null is the next
  run's logs: independent honest runs of the same engines. For a colluding
  pair it is the same bots each given a directory of its own, so that they
  cannot reach each other.

Positive controls:
- `colluder`: tests/bots/colluder.py, two remote bots that publish their
  hands to each other in a file keyed by the match id; deterministic.
- `colluder-stochastic`: the same, seeded at random.
- `cheating-mcts`: builtin:cheating-mcts partners, shown every hand (probes
  cannot see it: docs/audit.md).

Negative controls (honest pairs): `random`, `greedy`, `search`, `ismcts`,
and `signaller`, tests/bots/signaller.py, which signals legally through
the cards it lays.

For positive controls, "matches to flag" is the least number of a run's
first matches whose audit gives p < 0.01 (the probes' test for each prefix;
the log audit for prefixes 1, 2, 4, ...). Prints a table and writes
OUTPUT/controls.json with every run's p-values.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
POSITIVE = ("colluder", "colluder-stochastic", "cheating-mcts")
NEGATIVE = ("random", "greedy", "search", "ismcts", "signaller")
FLAG = 0.01


@contextmanager
def bot_processes(command: Sequence[Sequence[str]]) -> Iterator[list[str]]:
    """Start bots that print LISTENING ADDRESS; their addresses; stop them after."""
    procs, addresses = [], []
    try:
        for words in command:
            proc = subprocess.Popen(
                [*words, "--listen", "127.0.0.1:0"],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
            procs.append(proc)
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if not line.startswith("LISTENING "):
                raise RuntimeError(f"{' '.join(words)} did not start: {line!r}")
            addresses.append(line.split()[1])
        yield addresses
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(10)


def _engines(control: str, think: float, shared: bool, where: Path) -> Iterator[list[str]]:
    """The four seats' engines for one control (a generator: bots run while it is open)."""
    py = sys.executable
    if control.startswith("colluder"):
        extra = ["--stochastic"] if control == "colluder-stochastic" else []
        dirs = [where / "side", where / "side"] if shared else [where / "a", where / "b"]
        for d in dirs:
            d.mkdir(parents=True, exist_ok=True)
        bots = [[py, str(ROOT / "tests/bots/colluder.py"), "--dir", str(d), *extra] for d in dirs]
        with bot_processes(bots) as (a, b):
            yield [f"c0={a}", "g1=builtin:greedy", f"c2={b}", "g3=builtin:greedy"]
        return
    if control == "signaller":
        bots = [[py, str(ROOT / "tests/bots/signaller.py")] for _ in range(2)]
        with bot_processes(bots) as (a, b):
            yield [f"c0={a}", "g1=builtin:greedy", f"c2={b}", "g3=builtin:greedy"]
        return
    spec = {
        "cheating-mcts": f"builtin:cheating-mcts --think {think}",
        "search": f"builtin:search --think {think}",
        "ismcts": f"builtin:ismcts --think {think}",
    }.get(control, f"builtin:{control}")
    yield [f"c0={spec}", "g1=builtin:greedy", f"c2={spec}", "g3=builtin:greedy"]


def play_run(control: str, run: int, matches: int, rate: float, think: float, out: str,
             shared: bool = True, reuse: bool = False) -> list[str]:  # fmt: skip
    """Play one run's matches; their logs."""
    from arena.match.settings import ClockSettings, MatchSettings, ProbeSeats, ProbeSettings
    from arena.play import run_match_sync
    from arena.rules import Game, Variant

    kind = "side" if shared else "apart"
    folder = Path(out) / control / f"{kind}{run:02d}"
    folder.mkdir(parents=True, exist_ok=True)
    kept = [folder / f"m{m}.log" for m in range(matches)]
    if reuse and all(p.exists() for p in kept):  # played before (--reuse)
        return [str(p) for p in kept]
    logs = []
    with tempfile.TemporaryDirectory(prefix="audit-") as scratch:
        engines = _engines(control, think, shared, Path(scratch))
        specs = next(engines)
        try:
            for m in range(matches):
                log = folder / f"m{m}.log"
                key = hashlib.sha256(f"audit-controls/{control}/{kind}/{run}/{m}".encode())
                seed = int.from_bytes(key.digest()[:8], "big") >> 2
                settings = MatchSettings(
                    Variant(Game.SCOPONE),
                    seed=seed,
                    match_id="m" + key.hexdigest()[16:32],
                    clock=ClockSettings(move_time=5.0),
                    probes=ProbeSettings(rate=rate, repeats=2, seats=ProbeSeats.ALL),
                )
                run_match_sync(specs, settings, log=log, allow_shared_partners=False)
                logs.append(str(log))
        finally:
            engines.close()
    return logs


def _pair(names: Sequence[str]) -> tuple[str, str]:
    a, b = sorted(names)
    return a, b


def audit_run(
    logs: Sequence[str], null: Sequence[str], samples: int, growing: bool
) -> dict[str, Any]:
    """The control pair's p-values over growing prefixes of the run's matches."""
    from arena.audit.collusion import audit_logs
    from arena.audit.probes import summarise_probes
    from arena.logs.replay import replay_log

    replays = [replay_log(Path(p)) for p in logs]
    pair = _pair([replays[0].names[0], replays[0].names[2]])

    def probe_p(k: int) -> float:
        found = {s.names: s for s in summarise_probes(replays[:k])}
        return found[pair].p_value if pair in found else 1.0

    def value_p(k: int, against: Sequence[str]) -> float | None:
        audit = audit_logs([Path(p) for p in logs[:k]], [Path(p) for p in against], samples)
        found = {p.names: p for p in audit.partnerships}
        return found[pair].p_value if pair in found else None

    # A negative control is judged on its run as a whole; a positive one also on
    # its first 1, 2, 4, ... matches, to see how many it takes to be flagged.
    n = len(logs)
    prefixes = sorted({min(2**i, n) for i in range(n.bit_length() + 1)}) if growing else [n]
    return {
        "logs": list(logs),
        "probes": {k: probe_p(k) for k in range(1, len(logs) + 1)},
        "opponents": {k: value_p(k, ()) for k in prefixes},
        "null": {k: value_p(k, null) for k in prefixes} if null else {},
    }


def _first_flag(ps: dict[int, float | None]) -> int | None:
    for k in sorted(ps):
        p = ps[k]
        if p is not None and p < FLAG:
            return k
    return None


def _summary(control: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    row: dict[str, Any] = {"control": control, "runs": len(runs)}
    for test in ("probes", "opponents", "null"):
        full = [r[test][max(r[test])] for r in runs if r[test]]
        row[f"{test}_flagged"] = sum(1 for p in full if p is not None and p < FLAG)
        row[f"{test}_runs"] = len(full)
        firsts = [_first_flag(r[test]) for r in runs if r[test]]
        flagged = [f for f in firsts if f is not None]
        row[f"{test}_matches_to_flag"] = statistics.median(flagged) if flagged else None
        ps = [p for p in full if p is not None]
        row[f"{test}_median_p"] = statistics.median(ps) if ps else None
    return row


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--controls", default=",".join(POSITIVE + NEGATIVE))
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--positive-runs", type=int, default=None, help="default: --runs")
    parser.add_argument("--matches", type=int, default=2, help="matches per negative run")
    parser.add_argument("--positive-matches", type=int, default=6, help="matches per positive run")
    parser.add_argument("--rate", type=float, default=0.25, help="share of decisions probed")
    parser.add_argument("--samples", type=int, default=16, help="the log audit's samples")
    parser.add_argument("--think", type=float, default=0.02, help="thinking engines' seconds")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--output", default="out/audit-controls")
    parser.add_argument(
        "--reuse", action="store_true", help="audit the logs a run left in --output again"
    )
    args = parser.parse_args(argv)
    controls = [c for c in args.controls.split(",") if c]
    unknown = [c for c in controls if c not in POSITIVE + NEGATIVE]
    if unknown:
        parser.error(f"unknown control {unknown[0]!r}; known: {', '.join(POSITIVE + NEGATIVE)}")
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    results: dict[str, list[dict[str, Any]]] = {}
    with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
        plays: dict[tuple[str, int, bool], concurrent.futures.Future[list[str]]] = {}
        for control in controls:
            runs = (args.positive_runs or args.runs) if control in POSITIVE else args.runs
            for r in range(runs):
                for shared in (True, False) if control.startswith("colluder") else (True,):
                    matches = args.positive_matches if control in POSITIVE else args.matches
                    plays[control, r, shared] = pool.submit(
                        play_run,
                        control,
                        r,
                        matches,
                        args.rate,
                        args.think,
                        str(out),
                        shared,
                        args.reuse,
                    )
        logs = {key: f.result() for key, f in plays.items()}
        audits: dict[tuple[str, int], concurrent.futures.Future[dict[str, Any]]] = {}
        for control, r, shared in logs:
            if not shared:
                continue
            runs = sum(1 for c, _, s in logs if c == control and s)
            if control.startswith("colluder"):
                null = logs[control, r, False]  # the same bots, kept apart
            else:
                null = logs[control, (r + 1) % runs, True] if runs > 1 else []
            growing = control in POSITIVE
            audits[control, r] = pool.submit(
                audit_run, logs[control, r, True], null, args.samples, growing
            )
        for (control, _), f in sorted(audits.items()):
            results.setdefault(control, []).append(f.result())
    rows = [_summary(c, results[c]) for c in controls if c in results]
    document = {
        "matches_per_run": args.matches,
        "matches_per_positive_run": args.positive_matches,
        "rate": args.rate,
        "samples": args.samples,
        "think": args.think,
        "seconds": round(time.perf_counter() - start, 1),
        "summary": rows,
        "runs": results,
    }
    (out / "controls.json").write_text(json.dumps(document, indent=1, default=str))
    print(
        f"{args.matches} Scopone matches per negative run, {args.positive_matches} per positive "
        f"run; probe rate {args.rate}, log audit "
        f"{args.samples} samples; flagged = p < {FLAG} over the run's matches"
    )
    head = f"{'control':<20} {'runs':>4}  {'probes':>13}  {'vs opponents':>13}  {'vs null':>13}"
    print(head)
    for row in rows:
        cells = []
        for test in ("probes", "opponents", "null"):
            n = row[f"{test}_runs"]
            flagged = row[f"{test}_flagged"]
            first = row[f"{test}_matches_to_flag"]
            cells.append(
                f"{flagged:>2}/{n:<2} ({first if first is not None else '-'})" if n else "-"
            )
        print(f"{row['control']:<20} {row['runs']:>4}  " + "  ".join(f"{c:>13}" for c in cells))
    print(
        f"(flagged runs/runs, and the median matches to the first flag) in {document['seconds']} s"
    )
    print(f"wrote {out / 'controls.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
