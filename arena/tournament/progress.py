"""The progress line of a run: matches done of total, rate, ETA and the
leader by live Elo, kept up to date match by match."""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.match.outcome import MatchResult, Termination
from arena.results.ratings import update_elo
from arena.results.store import ScheduledMatch, Store
from arena.tournament.schedule import sides_of
from arena.tournament.standings import players_of


@dataclass
class ProgressLine:
    """Matches done/total, rate, ETA and the leader by live Elo: one updating
    line on a terminal, a plain line per match otherwise. The live Elo is
    kept up to date match by match, never recomputed from the store."""

    total: int
    done: int
    live: dict[str, float] | None = None  # None: no leader shown
    k: float = 16.0
    tty: bool = field(default_factory=lambda: sys.stdout.isatty())
    started: float = field(default_factory=time.monotonic)
    played_now: int = 0

    @classmethod
    def resumed(cls, store: Store, k: float | None) -> ProgressLine:
        """The line of a run over ``store``, its live Elo (K ``k``; None: no
        leader) from the results already there, in the order they finished."""
        done, total = store.counts()
        line = cls(total=total, done=done, live=None if k is None else {}, k=k or 16.0)
        for m in store.finished():
            line._rate(m.seats, m.winner_side, m.termination)
        return line

    def _rate(self, seats: Sequence[str], winner: int | None, termination: Termination) -> None:
        if self.live is not None and termination.has_result:
            score = 0.5 if winner is None else float(winner == 0)
            update_elo(self.live, players_of(seats, 0), players_of(seats, 1), score, k=self.k)

    def leader(self) -> str:
        if not self.live:
            return "-"
        best = max(self.live, key=lambda n: self.live[n] if self.live else 0.0)
        return f"{best} {self.live[best]:.0f}"

    def update(self, match: ScheduledMatch, result: MatchResult) -> None:
        self._rate(match.seats, result.winner, result.termination)
        self.done += 1
        self.played_now += 1
        elapsed = time.monotonic() - self.started
        rate = self.played_now / elapsed if elapsed > 0 else 0.0
        left = self.total - self.done
        eta = f"{int(left / rate // 60)}:{int(left / rate % 60):02d}" if rate > 0 else "?"
        score = "-".join(str(s) for s in result.final_scores)
        winner = "draw" if result.winner is None else sides_of(match.seats)[result.winner]
        if self.tty:
            line = (
                f"\r[{self.done}/{self.total}] {100 * self.done / max(self.total, 1):.0f}%"
                f"  {rate * 60:.0f} matches/min  ETA {eta}  leader: {self.leader()}"
            )
            print(line.ljust(100)[:110], end="", flush=True)
        else:
            print(
                f"[{self.done}/{self.total}] {match.id}: {' vs '.join(sides_of(match.seats))} "
                f"{score}, {winner} ({result.termination.value}); ETA {eta}",
                flush=True,
            )

    def grow(self, matches: int) -> None:
        """More matches scheduled (an SPRT schedules set by set)."""
        self.total += matches

    def finish(self) -> None:
        if self.tty:
            print()
