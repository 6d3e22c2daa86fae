"""What the experiment commands (benchmarks.paper, benchmarks.strength) share:
a tournament written as a TOML file in its output directory and played by the
arena's own machinery (so `arena tournament FILE` resumes it, and its logs
are checked by `arena verify-seed` and `arena replay`), the results read back
from its store, and the arithmetic of the tables."""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ConfigError
from arena.results.layout import Layout
from arena.results.store import Store, StoredMatch
from arena.rules import side_of
from arena.tournament.schedule import sides_of

Z95 = 1.959963984540054  # the two-sided 95% normal quantile


ROOT = Path(__file__).resolve().parent.parent


def wilson(k: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion k/n (0..1 each end)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Tally:
    """Wins, ties and losses of one side (an engine, or the dealer's team)."""

    wins: int = 0
    ties: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.ties + self.losses

    def __add__(self, other: Tally) -> Tally:
        return Tally(self.wins + other.wins, self.ties + other.ties, self.losses + other.losses)

    def flipped(self) -> Tally:
        return Tally(self.losses, self.ties, self.wins)

    def cell(self, count: int) -> str:
        """``count`` of the games as a percentage with its 95% Wilson interval."""
        if not self.games:
            return "-"
        low, high = wilson(count, self.games)
        return f"{100 * count / self.games:.1f} [{100 * low:.1f}, {100 * high:.1f}]"


def result_of(match: StoredMatch, side: int) -> Tally:
    """One match from a side's point of view: a win, a tie or a loss."""
    if match.winner_side is None:
        return Tally(ties=1)
    return Tally(wins=1) if match.winner_side == side else Tally(losses=1)


def played(store_path: Path) -> list[StoredMatch]:
    """The matches of a store that have a result (no contests left out)."""
    store = Store(store_path)
    try:
        return [m for m in store.finished() if m.termination.has_result]
    finally:
        store.close()


def pairing_tallies(matches: Sequence[StoredMatch]) -> dict[tuple[str, str], Tally]:
    """Per pair of sides (as the schedule names them, first named first), the
    first side's wins, ties and losses."""
    out: dict[tuple[str, str], Tally] = {}
    for m in matches:
        a, b = sides_of(m.seats)
        pairing = m.set_id.rsplit(":", 1)[-1].rsplit("#", 1)[0]  # deals#R:A~B or A~B#R
        first, _, second = pairing.partition("~")
        if (a, b) == (second, first):
            out[(b, a)] = out.get((b, a), Tally()) + result_of(m, 1)
        else:
            out[(a, b)] = out.get((a, b), Tally()) + result_of(m, 0)
    return out


def player_tallies(
    pairings: Mapping[tuple[str, str], Tally], among: Sequence[str] | None = None
) -> dict[str, Tally]:
    """Per player, its wins, ties and losses over all its pairings (only those
    between players of ``among``, when given)."""
    out: dict[str, Tally] = {}
    for (a, b), tally in pairings.items():
        if among is not None and not (a in among and b in among):
            continue
        out[a] = out.get(a, Tally()) + tally
        out[b] = out.get(b, Tally()) + tally.flipped()
    return out


def dealer_tally(matches: Sequence[StoredMatch]) -> Tally:
    """The dealer's team's wins, ties and losses (one deal per match: the first
    dealer is the dealer)."""
    total = Tally()
    for m in matches:
        total += result_of(m, side_of(m.first_dealer))
    return total


def seat_tallies(matches: Sequence[StoredMatch], player: str) -> tuple[Tally, Tally]:
    """A player's results as the dealer's team and as the other team."""
    dealer, other = Tally(), Tally()
    for m in matches:
        sides = sides_of(m.seats)
        if player not in sides:
            continue
        side = sides.index(player)
        if side == side_of(m.first_dealer):
            dealer += result_of(m, side)
        else:
            other += result_of(m, side)
    return dealer, other


def toml_text(raw: Mapping[str, Any]) -> str:
    """A tournament table as TOML: plain keys first, then tables, then arrays of tables."""

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | float):
            return repr(v)
        if isinstance(v, str | Path):
            return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'
        raise TypeError(f"no TOML for {v!r}")

    def plain(table: Mapping[str, Any]) -> list[str]:
        return [f"{k} = {value(v)}" for k, v in table.items() if not isinstance(v, dict | list)]

    lines = plain(raw)
    for key, v in raw.items():
        if isinstance(v, dict):
            lines += ["", f"[{key}]", *plain(v)]
    for key, v in raw.items():
        if isinstance(v, list):
            for entry in v:
                lines += ["", f"[[{key}]]", *plain(entry)]
    return "\n".join(lines) + "\n"


def run_tournament(raw: dict[str, Any], directory: Path, *, quiet: bool = False) -> float:
    """Write ``raw`` as ``directory/tournament.toml`` and play (or resume) it
    with `arena tournament`'s own code; the seconds it took."""
    from arena.cli.tournament import play_tournament
    from arena.tournament.config import load_config

    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "tournament.toml"
    path.write_text(toml_text({**raw, "output": str(directory)}))
    cfg = load_config(path)
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()) if quiet else contextlib.nullcontext():
        play_tournament(cfg)
    return time.perf_counter() - start


def parse_players(text: str, known: Mapping[str, str]) -> list[tuple[str, str]]:
    """``NAME,NAME=SPEC,...``: a known name stands for its spec."""
    out: list[tuple[str, str]] = []
    for entry in (e.strip() for e in text.split(",")):
        if not entry:
            continue
        name, sep, spec = entry.partition("=")
        if not sep:
            if name not in known:
                raise ConfigError(
                    f"player {name!r}: not one of {', '.join(known)}; give NAME=SPEC for another"
                )
            spec = known[name]
        out.append((name.strip(), spec.strip()))
    if len({n for n, _ in out}) != len(out) or len(out) < 2:
        raise ConfigError("give at least two players, each name once")
    return out


def engines_table(players: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"name": name, "spec": spec} for name, spec in players]


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s"


@contextlib.contextmanager
def timed() -> Iterator[list[float]]:
    """``with timed() as t:`` ... ``t[0]`` is the seconds the block took."""
    box = [0.0]
    start = time.perf_counter()
    try:
        yield box
    finally:
        box[0] = time.perf_counter() - start


def log_decks(store_path: Path) -> dict[str, list[tuple[int, ...]]]:
    """Each match's played decks (voided ones first), read from its log: what
    shows that two pairings were dealt the same cards."""
    from arena.logs.record import read_log
    from arena.match.outcome import DealStart
    from arena.wire.convert import log_entry_from_pb

    store = Store(store_path)
    try:
        entries = store.matches()
    finally:
        store.close()
    out: dict[str, list[tuple[int, ...]]] = {}
    for e in entries:
        if e.log_path is None:
            continue
        path = Layout.of(store_path.parent).stored_log(e.log_path)
        decks: list[tuple[int, ...]] = []
        for record in read_log(path).records[1:]:
            if record.WhichOneof("record") == "deal_started":
                deal = log_entry_from_pb(record)
                assert isinstance(deal, DealStart)
                decks += [*deal.void_decks, deal.deck]
        out[e.id] = decks
    return out


def add_run_options(ap: argparse.ArgumentParser, name: str) -> None:
    """The options both experiment commands share: where the matches run and
    where the run's files and its markdown table go."""
    ap.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="play on a Ray cluster ('local': one worker process per core of this machine)",
    )
    ap.add_argument(
        "--concurrency", type=int, default=None, help="matches at once (default: cores)"
    )
    ap.add_argument("--output", type=Path, default=ROOT / "out" / name)
    ap.add_argument("--markdown", type=Path, default=None, help=f"default OUTPUT/{name}.md")
    ap.add_argument("--estimate", action="store_true", help="print the estimate and stop")
