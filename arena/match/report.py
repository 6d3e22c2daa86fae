"""Plain-text summaries of matches for terminals and logs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from arena.match.outcome import Termination
from arena.rules import FinishedDeal, Variant, cards_text

if TYPE_CHECKING:
    from arena.match.outcome import MatchReport

CATEGORIES = (
    "scope",
    "carte",
    "denari",
    "settebello",
    "primiera",
    "re_bello",
    "napola",
    "grande",
)


def side_names(variant: Variant, seat_names: Sequence[str]) -> list[str]:
    """ "greedy" or "greedy + random": the seats of each side, joined."""
    names = []
    for side in range(variant.sides):
        seats = [s for s in range(variant.seats) if variant.side_of(s) == side]
        names.append(" + ".join(f"{seat_names[s]}#{s}" for s in seats))
    return names


def deal_table(
    deal: FinishedDeal,
    names: Sequence[str],
    leftover: bool = True,
    cards: Callable[[int], str] = cards_text,
    variant: Variant | None = None,
) -> list[str]:
    """The scoring of one deal, a row per side, with the counts behind each point
    (``cards``: how a set of cards is written, in the reader's notation; the
    ``variant``'s regional options add their columns)."""
    width = max(len(n) for n in names)
    re_bello = variant is not None and variant.re_bello
    napola = variant is not None and (variant.napola or variant.piccola)
    sequence = "piccola" if variant is not None and variant.piccola else "napola"
    grande = variant is not None and variant.grande
    declared = variant is not None and variant.declarations
    extra = (
        (" re bello" if re_bello else "")
        + (f" {sequence}" if napola else "")
        + (" grande" if grande else "")
        + (" declared" if declared else "")
    )
    lines = [
        f"deal {deal.number + 1}, dealer seat {deal.dealer}"
        + (f" ({len(deal.void_decks)} void deal(s) redealt)" if deal.void_decks else ""),
        f"  {'':<{width}}  scope carte denari settebello primiera{extra}  deal  match",
    ]
    for side, name in enumerate(names):
        t = deal.score.tallies[side]
        b = deal.score.breakdown(side)
        prim = "-" if t.primiera is None else str(t.primiera)
        lines.append(
            f"  {name:<{width}}  {b['scope']:>5} {b['carte']:>2}({t.cards:>2})"
            f" {b['denari']:>2}({t.denari:>2}) {b['settebello']:>10}"
            f" {b['primiera']:>2}({prim:>2})"
            + (f" {b['re_bello']:>8}" if re_bello else "")
            + (f" {b['napola']:>{len(sequence)}}" if napola else "")
            + (f" {b['grande']:>6}" if grande else "")
            + (f" {b['declared']:>8}" if declared else "")
            + f"    {deal.score.points[side]:>4}  {deal.totals[side]:>5}"
        )
    if deal.leftover and leftover:
        side, mask = deal.leftover
        lines.append(f"  leftover {cards(mask)} to {names[side]}")
    return lines


def match_summary(
    variant: Variant,
    seat_names: Sequence[str],
    deals: Sequence[FinishedDeal],
    final_scores: Sequence[int],
    winner: int | None,
    extra: Sequence[str] = (),
    no_winner: str = "draw",
) -> str:
    """``no_winner``: the outcome said when nobody won ("no contest" when the
    match never began)."""
    names = side_names(variant, seat_names)
    lines = [f"{variant.describe()}: {' vs '.join(names)}", ""]
    for deal in deals:
        lines += deal_table(deal, names, variant=variant)
        lines.append("")
    score = " - ".join(str(s) for s in final_scores)
    outcome = f"{names[winner]} wins" if winner is not None else no_winner
    lines.append(f"final score {score} after {len(deals)} deal(s): {outcome}")
    lines += extra
    return "\n".join(lines)


def report_text(report: MatchReport) -> str:
    """A refereed match: each deal's scoring, the result, how it ended and its
    faults, one line each with the seat's engine. A reason that only sums up
    the faults (forfeit, no contest) is left to their lines."""
    result = report.result
    names = [e.name for e in report.engines]
    by_faults = result.faults and result.termination in (
        Termination.FORFEIT,
        Termination.NO_CONTEST,
    )
    how = result.termination.value + ("" if by_faults else f" ({result.reason})")
    extra = [f"termination: {how}"]
    extra += [f"fault: {f.describe(names[f.seat])}" for f in result.faults]
    no_winner = {
        Termination.COMPLETED: "draw",
        Termination.NO_CONTEST: "no contest",
    }.get(result.termination, "no result")
    variant = report.settings.variant
    return match_summary(
        variant, names, report.deals, result.final_scores, result.winner, extra, no_winner
    )
