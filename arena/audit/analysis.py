"""Per-decision move values of a match log, from each seat's own view.

``analyse_replay`` walks a verified log decision by decision. For each
decision of the seats asked for it rebuilds what that seat saw (its
observation, never the log's hidden cards), values every legal move with
``arena.players.search.evaluate`` (expected deal points, mean and standard error),
and compares the move played with the best: the loss, and a class
(inaccuracy, mistake, blunder) when the loss is both large and clearly
above the sampling noise. docs/analysis.md says what is computed, why the
thresholds are where they are, and the JSON form (``to_json``) that the
viewer and the site read from ``LOG.analysis.json``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import AnalysisError, ConfigError
from arena.logs.replay import Replay, replay_log
from arena.players.search.evaluate import CAPTURE_BIAS, decision_rng, evaluate
from arena.rules import Move, Observation, card_name, cards_of, legal_moves, parse_card, plain_move

__all__ = [
    "DEFAULT_SAMPLES",
    "FORMAT",
    "THRESHOLDS",
    "Analysis",
    "DecisionAnalysis",
    "MoveAnalysis",
    "SeatSummary",
    "Thresholds",
    "analyse_log",
    "analyse_replay",
    "analysis_path",
    "load_analysis",
    "render_text",
]

FORMAT = "arena-analysis"
VERSION = 1
DEFAULT_SAMPLES = 200
CLASSES = ("inaccuracy", "mistake", "blunder")


@dataclass(frozen=True)
class Thresholds:
    """Losses, in deal points, from which a decision is classed; a class also
    needs the loss to exceed ``noise`` standard errors of the paired
    difference, so that sampling noise alone is not flagged."""

    inaccuracy: float = 0.2
    mistake: float = 0.5
    blunder: float = 1.0
    noise: float = 2.0

    def classify(self, loss: float, se: float) -> str | None:
        if loss <= self.noise * se:
            return None
        for name in reversed(CLASSES):
            if loss >= getattr(self, name):
                return name
        return None


THRESHOLDS = Thresholds()


@dataclass(frozen=True)
class MoveAnalysis:
    move: Move
    mean: float  # expected deal margin: the seat's side minus the other, deal points
    se: float  # standard error of ``mean``


@dataclass(frozen=True)
class DecisionAnalysis:
    """One decision: where it is in the log, the values of every legal move
    (in the rules' order of legal moves), the best and the chosen."""

    deal: int  # the log's deal number, from 0
    index: int  # the decision's index within the deal, from 0 (as in the log)
    seat: int
    chosen: int  # index in ``moves`` of the move played
    best: int  # index in ``moves`` of the move with the highest mean
    moves: tuple[MoveAnalysis, ...]
    loss: float  # best's mean minus chosen's, >= 0
    loss_se: float  # standard error of the paired difference
    category: str | None  # inaccuracy, mistake, blunder, or None
    samples: int
    substitute: bool = False  # the referee played this move for a faulty seat

    @property
    def chosen_move(self) -> Move:
        return self.moves[self.chosen].move

    @property
    def forced(self) -> bool:
        return len(self.moves) == 1


@dataclass(frozen=True)
class SeatSummary:
    seat: int
    name: str
    decisions: int
    choices: int  # decisions with more than one legal move
    mean_loss: float  # over all the seat's analysed decisions
    total_loss: float
    inaccuracies: int
    mistakes: int
    blunders: int


@dataclass(frozen=True)
class Analysis:
    match_id: str
    log_chain: str | None  # hex; ties the analysis to its log
    variant: str
    names: tuple[str, ...]
    seats: tuple[int, ...]
    samples: int | None  # fixed samples per decision; None: time-bounded
    think: float | None  # seconds per decision when time-bounded
    seed: int
    thresholds: Thresholds
    complete: bool  # the log reaches the match's end
    decisions: tuple[DecisionAnalysis, ...]
    summaries: tuple[SeatSummary, ...]
    seconds: float = 0.0  # wall-clock time the analysis took (not in the JSON: it varies)
    cpu_seconds: float = 0.0  # the process's CPU time over the same span


def _seats(replay: Replay, seats: Sequence[int] | None) -> tuple[int, ...]:
    total = replay.variant.seats
    if seats is None:
        return tuple(range(total))
    for seat in seats:
        if not 0 <= seat < total:
            raise ConfigError(
                f"no seat {seat} in this {replay.variant.game.value} match (seats 0..{total - 1})"
            )
    return tuple(sorted(set(seats)))


def analyse_decision(
    obs: Observation,
    chosen: Move,
    *,
    deal: int,
    index: int,
    samples: int | None = DEFAULT_SAMPLES,
    think: float | None = None,
    seed: int = 0,
    thresholds: Thresholds = THRESHOLDS,
    substitute: bool = False,
) -> DecisionAnalysis:
    """One decision, from the observation of the seat that made it."""
    v = obs.variant
    moves = legal_moves(
        obs.hand, obs.table, v.fewest_cards, v.ace_takes_all, v.fifteen, v.fifteen_ordinary
    )
    if chosen not in moves:
        raise AnalysisError(
            f"deal {deal + 1}, decision {index}: {chosen} is not a legal move of seat {obs.seat}"
        )
    deadline = None if think is None else time.perf_counter() + think
    rng = decision_rng(obs, seed)
    ev = evaluate(obs, moves, rng, None if think is not None else samples, deadline)
    values = ev.values()
    pick = moves.index(chosen)
    # The first move of the highest mean, or the chosen one when it ties.
    best = max(range(len(moves)), key=lambda i: (values[i].mean, i == pick, -i))
    diff = ev.difference(best, pick)
    loss = max(0.0, diff.mean)
    return DecisionAnalysis(
        deal=deal,
        index=index,
        seat=obs.seat,
        chosen=pick,
        best=best,
        moves=tuple(MoveAnalysis(m, v.mean, v.se) for m, v in zip(moves, values, strict=True)),
        loss=loss,
        loss_se=diff.se,
        category=None if pick == best else thresholds.classify(loss, diff.se),
        samples=ev.samples,
        substitute=substitute,
    )


def analyse_replay(
    replay: Replay,
    seats: Sequence[int] | None = None,
    *,
    samples: int | None = DEFAULT_SAMPLES,
    think: float | None = None,
    seed: int = 0,
    thresholds: Thresholds = THRESHOLDS,
    progress: Callable[[int], None] | None = None,
) -> Analysis:
    """Every decision of ``seats`` (all by default) in a replayed log. A
    decision that forfeited the match has no move and is left out."""
    if think is not None and think <= 0:
        raise ConfigError(f"--think must be a positive number of seconds, not {think}")
    if think is None and (samples is None or samples < 2):
        raise ConfigError(f"--samples must be at least 2, not {samples}")
    chosen_seats = _seats(replay, seats)
    start, cpu = time.perf_counter(), time.process_time()
    out: list[DecisionAnalysis] = []
    for deal in replay.deals:
        for step in deal.steps:
            if step.move is None or step.seat not in chosen_seats:
                continue
            obs = step.before.seen_by(step.seat).observation()
            out.append(
                analyse_decision(
                    obs,
                    plain_move(step.move),
                    deal=step.deal,
                    index=step.index,
                    samples=samples,
                    think=think,
                    seed=seed,
                    thresholds=thresholds,
                    substitute=step.fault is not None,
                )
            )
            if progress is not None:
                progress(len(out))
    return Analysis(
        match_id=replay.header.match_id,
        log_chain=None if replay.chain is None else replay.chain.hex(),
        variant=replay.variant.describe(),
        names=tuple(replay.names),
        seats=chosen_seats,
        samples=None if think is not None else samples,
        think=think,
        seed=seed,
        thresholds=thresholds,
        complete=replay.complete,
        decisions=tuple(out),
        summaries=tuple(_summary(s, replay.names[s], out) for s in chosen_seats),
        seconds=time.perf_counter() - start,
        cpu_seconds=time.process_time() - cpu,
    )


def analyse_log(path: Path, seats: Sequence[int] | None = None, **options: Any) -> Analysis:
    """``analyse_replay`` of a log, verified first (RecordError, VerifyError)."""
    return analyse_replay(replay_log(path), seats, **options)


def _summary(seat: int, name: str, decisions: Sequence[DecisionAnalysis]) -> SeatSummary:
    mine = [d for d in decisions if d.seat == seat]
    total = sum(d.loss for d in mine)
    count = {c: sum(d.category == c for d in mine) for c in CLASSES}
    return SeatSummary(
        seat=seat,
        name=name,
        decisions=len(mine),
        choices=sum(not d.forced for d in mine),
        mean_loss=total / len(mine) if mine else 0.0,
        total_loss=total,
        inaccuracies=count["inaccuracy"],
        mistakes=count["mistake"],
        blunders=count["blunder"],
    )


# --- JSON ---------------------------------------------------------------


def move_json(move: Move) -> dict[str, Any]:
    card, taken = move
    return {
        "text": str(Move(card, taken)),
        "card": card_name(card),
        "captures": [card_name(c) for c in cards_of(taken)],
    }


def move_of_json(data: Any) -> Move:
    """A move as ``move_json`` wrote it (AnalysisError when it is not one)."""
    try:
        taken = 0
        for c in data["captures"]:
            taken |= 1 << parse_card(c)
        return Move(parse_card(data["card"]), taken)
    except (KeyError, TypeError, ValueError) as e:
        raise AnalysisError(f"not a move: {data!r} ({e})") from None


def _r(x: float) -> float:
    return round(x, 4)


def to_json(analysis: Analysis) -> dict[str, Any]:
    """The analysis as a JSON document (docs/analysis.md, "JSON")."""
    t = analysis.thresholds
    time_bounded = analysis.think is not None
    return {
        "format": FORMAT,
        "version": VERSION,
        "match_id": analysis.match_id,
        "log_chain": analysis.log_chain,
        "variant": analysis.variant,
        "names": list(analysis.names),
        "seats": list(analysis.seats),
        "complete": analysis.complete,
        "method": {
            "evaluator": "flat Monte Carlo over determinizations of the seat's view",
            "unit": "deal points (the seat's side minus the other side, at the deal's end)",
            "samples": analysis.samples,
            "think": analysis.think,
            "seed": analysis.seed,
            "playout": f"sweep when possible, else capture with probability {CAPTURE_BIAS}",
            "reproducible": not time_bounded,
        },
        "thresholds": {
            "inaccuracy": t.inaccuracy,
            "mistake": t.mistake,
            "blunder": t.blunder,
            "noise": t.noise,
        },
        "decisions": [
            {
                "deal": d.deal,
                "index": d.index,
                "seat": d.seat,
                "move": move_json(d.chosen_move),
                "chosen": d.chosen,
                "best": d.best,
                "loss": _r(d.loss),
                "loss_se": _r(d.loss_se),
                "class": d.category,
                "samples": d.samples,
                "substitute": d.substitute,
                "moves": [
                    {**move_json(m.move), "mean": _r(m.mean), "se": _r(m.se)} for m in d.moves
                ],
            }
            for d in analysis.decisions
        ],
        "summary": [
            {
                "seat": s.seat,
                "name": s.name,
                "decisions": s.decisions,
                "choices": s.choices,
                "mean_loss": _r(s.mean_loss),
                "total_loss": _r(s.total_loss),
                "inaccuracies": s.inaccuracies,
                "mistakes": s.mistakes,
                "blunders": s.blunders,
            }
            for s in analysis.summaries
        ],
    }


def dumps(analysis: Analysis) -> str:
    return json.dumps(to_json(analysis), indent=1, ensure_ascii=False) + "\n"


def analysis_path(log: Path) -> Path:
    """Where ``arena analyse --save`` writes a log's analysis, and where the
    viewer and the site look for it: ``LOG.analysis.json`` beside the log."""
    return log.with_name(log.name + ".analysis.json")


def load_analysis(path: Path, replay: Replay | None = None) -> dict[str, Any]:
    """An analysis document, checked enough to be shown beside ``replay``: its
    format, and the same match (id and hash chain) when a replay is given.
    AnalysisError otherwise; OSError when it cannot be read."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise AnalysisError(f"{path}: not JSON: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise AnalysisError(f"{path}: not an analysis ({FORMAT!r} format)")
    if doc.get("version") != VERSION:
        raise AnalysisError(f"{path}: analysis version {doc.get('version')!r}, read: {VERSION}")
    if not isinstance(doc.get("decisions"), list):
        raise AnalysisError(f"{path}: no list of decisions")
    if replay is not None:
        chain = None if replay.chain is None else replay.chain.hex()
        if doc.get("match_id") != replay.header.match_id or doc.get("log_chain") != chain:
            raise AnalysisError(
                f"{path}: the analysis of another log (match {doc.get('match_id')!r})"
            )
    return doc


# --- text ---------------------------------------------------------------


def _signed(x: float) -> str:
    return f"{x:+.2f}"


def method_text(analysis: Analysis) -> str:
    if analysis.think is not None:
        how = (
            f"{analysis.think:g} s per decision (time-bounded: the figures depend on the "
            "machine and its load)"
        )
    else:
        how = f"{analysis.samples} samples per decision (reproducible)"
    t = analysis.thresholds
    return (
        f"method: expected deal points from each seat's own view, {how}; seed {analysis.seed}\n"
        f"classes (loss in deal points, and above {t.noise:g} standard errors): "
        f"inaccuracy >= {t.inaccuracy:g}, mistake >= {t.mistake:g}, blunder >= {t.blunder:g}"
    )


def summary_text(analysis: Analysis) -> list[str]:
    lines = []
    for s in analysis.summaries:
        lines.append(
            f"seat {s.seat} ({s.name}): {s.decisions} decision(s), {s.choices} with a choice; "
            f"mean loss {s.mean_loss:.3f} deal points per decision (total {s.total_loss:.2f}); "
            f"in this match: inaccuracies {s.inaccuracies}, mistakes {s.mistakes}, "
            f"blunders {s.blunders}"
        )
    return lines


def render_text(analysis: Analysis, *, moves: bool = True) -> str:
    """The analysis for a person: every decision, each legal move's value
    (best first) unless ``moves`` is False, then each seat's summary."""
    lines = [
        f"analysis of match {analysis.match_id}: {analysis.variant}",
        method_text(analysis),
    ]
    if not analysis.complete:
        lines.append("note: the log stops before the match's end; its decisions so far")
    deal = None
    for d in analysis.decisions:
        if d.deal != deal:
            deal = d.deal
            lines.append(f"\ndeal {deal + 1}")
        chosen = d.moves[d.chosen]
        verdict = f": {d.category.upper()}" if d.category else ""
        tags = " (forced)" if d.forced else ""
        tags += " (the referee's substitute)" if d.substitute else ""
        if d.chosen == d.best:
            judged = "best"
        else:
            best = d.moves[d.best]
            judged = f"loss {d.loss:.2f} ± {d.loss_se:.2f} against {best.move}{verdict}"
        lines.append(
            f"  decision {d.index}, seat {d.seat} ({analysis.names[d.seat]}): "
            f"{chosen.move} {_signed(chosen.mean)}{tags}; {judged}"
        )
        if moves and not d.forced:
            order = sorted(range(len(d.moves)), key=lambda i: (-d.moves[i].mean, i))
            for i in order:
                m = d.moves[i]
                mark = " <- played" if i == d.chosen else ""
                lines.append(f"      {_signed(m.mean)} ± {m.se:.2f}  {m.move}{mark}")
    lines.append("")
    lines += summary_text(analysis)
    return "\n".join(lines)
