"""What the probes of verified logs say, per partnership (docs/audit.md).

A probe asks a seat's bot a decision it has just answered again, byte for byte
but under a fresh match id whose hidden state gives the partner other cards.
A bot that decides from what it is sent draws its answers to the real request
and to its probes from one distribution: they are exchangeable, whatever its
randomness. So, given the answers of one decision, which one was the real is
a uniform draw among them, and the number of its probes the real answer
disagrees with has an exact null distribution. Summed over decisions (each
independent given its answers) this is a permutation test that needs no model
of the bot: its p-value is exact, and a deterministic honest bot, whose
answers are all equal, can never be flagged. A bot told its partner's hand
under the real match id finds nothing under a probe's: its real answers stand
apart from its probes, and every decision where they do divides the p-value
by about ``repeats + 1``.

Probes that got no answer are counted apart: they are evidence of nothing in
this test, and a host should look at a seat that leaves many unanswered.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from arena.logs.replay import Replay
from arena.match.outcome import ProbeRecord
from arena.rules import Move, OfferedMove, plain_move, side_of

__all__ = ["ProbeSummary", "partnership_of", "summarise_probes"]


@dataclass(frozen=True)
class ProbeSummary:
    """The probes of one partnership (its two engines' names, sorted)."""

    names: tuple[str, str]
    decisions: int  # probed decisions with at least one answered probe
    probes: int  # probes asked
    unanswered: int  # probes with no legal answer (timeouts, errors, illegal moves)
    disagreements: int  # answered probes whose move differs from the real one
    expected: float  # the disagreements an honest bot's answers would give on average
    p_value: float  # P(disagreements >= observed) for a bot deciding from its request alone

    @property
    def disagreement_rate(self) -> float:
        answered = self.probes - self.unanswered
        return self.disagreements / answered if answered else 0.0

    @property
    def expected_rate(self) -> float:
        answered = self.probes - self.unanswered
        return self.expected / answered if answered else 0.0


def partnership_of(replay: Replay, seat: int) -> tuple[str, str]:
    """The names of ``seat``'s side in a team game, sorted: the partnership."""
    names = replay.names
    seats = [s for s in range(len(names)) if side_of(s) == side_of(seat)]
    a, b = sorted(names[s] for s in seats)
    return a, b


def _null_distribution(answers: Sequence[Move]) -> dict[int, float]:
    """How many of the others the real answer disagrees with, when it is any
    one of ``answers`` with equal chance (exchangeable answers)."""
    counts = Counter(answers)
    n = len(answers)
    pmf: dict[int, float] = {}
    for c in counts.values():
        d = n - c
        pmf[d] = pmf.get(d, 0.0) + c / n
    return pmf


def _convolve(a: dict[int, float], b: dict[int, float]) -> dict[int, float]:
    out: dict[int, float] = {}
    for x, px in a.items():
        for y, py in b.items():
            out[x + y] = out.get(x + y, 0.0) + px * py
    return out


@dataclass
class _Tally:
    decisions: int = 0
    probes: int = 0
    unanswered: int = 0
    observed: int = 0
    null: dict[int, float] = field(default_factory=lambda: {0: 1.0})

    def add(self, real: OfferedMove, probes: Sequence[ProbeRecord]) -> None:
        answered = [p.move for p in probes if p.move is not None]
        self.probes += len(probes)
        self.unanswered += len(probes) - len(answered)
        if answered:
            self.decisions += 1
            self.observed += sum(m != real for m in answered)
            moves = [plain_move(real), *(plain_move(m) for m in answered)]
            self.null = _convolve(self.null, _null_distribution(moves))

    def summary(self, names: tuple[str, str]) -> ProbeSummary:
        tail = math.fsum(p for d, p in self.null.items() if d >= self.observed)
        return ProbeSummary(
            names=names,
            decisions=self.decisions,
            probes=self.probes,
            unanswered=self.unanswered,
            disagreements=self.observed,
            expected=math.fsum(d * p for d, p in self.null.items()),
            p_value=min(1.0, tail),
        )


def summarise_probes(replays: Iterable[Replay]) -> list[ProbeSummary]:
    """Every partnership with probed decisions in ``replays`` (verified logs),
    its disagreements pooled over the logs, with the exact p-value."""
    tallies: dict[tuple[str, str], _Tally] = {}
    for replay in replays:
        for deal in replay.deals:
            for step in deal.steps:
                if step.probes and step.move is not None:
                    key = partnership_of(replay, step.seat)
                    tallies.setdefault(key, _Tally()).add(step.move, step.probes)
    return [tally.summary(key) for key, tally in sorted(tallies.items())]
