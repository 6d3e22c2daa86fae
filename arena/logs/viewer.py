"""A match as a card table to step through: one self-contained HTML file, or
a page of the site.

The frames (the deal as dealt, the position after each decision, the deal's
scoring, and the match's end) are computed here as plain JSON-safe data, the
cards as ``{"rank": 7, "suit": "d"}`` (docs/rules.md, "Card notation");
arena/web/static/viewer.js draws them as SVG, in Italian or French suits.
Every string from a log or a bot (names, comments, fault messages) is data:
the script only ever puts it in the page as text.

The same frame schema serves a live match (arena.web.live.LiveFrames), built
from the public events a spectator is sent. Seats and sides in the data are
indexes from 0 (a frame's ``seat``, a scoring row's ``side``, the result's
``winner``); the page shows seats as the log numbers them and sides as 1 and 2.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from typing import Any

from arena.errors import AnalysisError
from arena.logs.render import Faces
from arena.logs.replay import Replay
from arena.match.outcome import DealScored, MatchResult, result_text
from arena.match.report import side_names
from arena.rules import (
    Declaring,
    FinishedDeal,
    Play,
    Sight,
    Variant,
    View,
    Viewer,
    cards_of,
)
from arena.rules.cards import RANK, SUIT, SUIT_LETTERS, parse_card
from arena.rules.deal import opening_scope_of
from arena.rules.moves import ace_took_all

__all__ = ["VIEWER_ASSETS", "frames", "render_html", "viewer_data"]


def _assets() -> dict[str, str]:
    static = resources.files("arena.web").joinpath("static")
    return {
        name: static.joinpath(name).read_text(encoding="utf-8")
        for name in ("viewer.js", "viewer.css")
    }


VIEWER_ASSETS: dict[str, str] = _assets()


def card_data(c: int) -> dict[str, Any]:
    """One card as the page takes it: rank 1..10 and suit letter (d c s b)."""
    return {"rank": RANK[c], "suit": SUIT_LETTERS[SUIT[c]]}


def cards_data(mask: int) -> list[dict[str, Any]]:
    return [card_data(c) for c in cards_of(mask)]


def opening_taken(variant: Variant, opening_table: int) -> int:
    """The cards the dealer took from the opening table (opening_fifteen), or 0."""
    return (
        opening_table
        if variant.opening_fifteen and opening_scope_of(opening_table, variant.matta)
        else 0
    )


def _piles(
    variant: Variant,
    plays: Sequence[Play],
    leftover: tuple[int, int] | None = None,
    opening: int = 0,
    dealer: int = 0,
) -> list[int]:
    """Each side's captured cards (masks), from the deal's plays (all face up)
    and the opening table the dealer took, if any."""
    piles = [0] * variant.sides
    piles[variant.side_of(dealer)] |= opening
    for play in plays:
        if play.captures:
            piles[play.seat % variant.sides] |= play.captures | 1 << play.card
    if leftover is not None:
        side, mask = leftover
        piles[side] |= mask
    return piles


def blank_frame(kind: str) -> dict[str, Any]:
    return {
        "kind": kind,
        "seat": None,
        "played": None,
        "captured": [],
        "scopa": False,
        "ace_took_all": False,
        "declaration": None,  # Cirulla: what the play declared, and the packet shown
        "declared": [],
        "think_ms": None,
        "fault": None,
        "comment": "",
        "scoring": None,
        "leftover": None,
        "result": None,
        "analysis": None,
    }


def position(variant: Variant, shown: View) -> dict[str, Any]:
    """The table at one moment as ``shown.viewer`` sees it (another seat's hand: a count)."""
    opening = opening_taken(variant, shown.opening_table)
    piles = _piles(variant, shown.plays, None, opening, shown.dealer)
    return {
        "deal": shown.deal_number + 1,
        "dealer": shown.dealer,
        "hands": [
            cards_data(h) if h is not None else n
            for h, n in zip(shown.hands, shown.hand_sizes, strict=True)
        ],
        "table": cards_data(shown.table),
        "stock": shown.stock_count,
        "piles": [cards_data(p) for p in piles],
        "pile_counts": list(shown.captured_counts),
        "scope": list(shown.scope),
        "to_move": shown.to_move,
        "score": list(shown.scores),
        "opening_taken": cards_data(opening),
        "opening_scope": opening_scope_of(opening, variant.matta) if opening else 0,
    }


def play_frame(variant: Variant, play: Play, after: View) -> dict[str, Any]:
    frame = {**blank_frame("play"), **position(variant, after)}
    frame.update(
        seat=play.seat,
        played=card_data(play.card),
        captured=cards_data(play.captures),
        scopa=play.scopa,
        ace_took_all=variant.ace_takes_all and ace_took_all(play.card, play.captures),
    )
    return frame


def scored_frame(
    variant: Variant,
    names: Sequence[str],
    done: DealScored | FinishedDeal,
    plays: Sequence[Play],
    previous: dict[str, Any],
    opening_table: int = 0,
) -> dict[str, Any]:
    """The deal's end: the piles with the leftovers (and the opening table the
    dealer took, of ``opening_table``), and the scoring table."""
    sides = side_names(variant, names)
    score = done.score
    opening = opening_taken(variant, opening_table)
    piles = _piles(variant, plays, done.leftover, opening, done.dealer)
    rows = []
    for s in range(variant.sides):
        t = score.tallies[s]
        rows.append(
            {
                "side": s,
                "name": sides[s],
                **score.breakdown(s),
                "points": score.points[s],
                "cards": t.cards,
                "denari_count": t.denari,
                "settebello_held": t.settebello,
                "re_bello_held": t.re_bello,
                "primiera_total": t.primiera,
                "total": done.totals[s],
            }
        )
    leftover = None
    if done.leftover is not None:
        side, mask = done.leftover
        leftover = {"side": side, "cards": cards_data(mask)}
    frame = {**blank_frame("scored")}
    frame.update(
        deal=done.number + 1,
        dealer=done.dealer,
        hands=[[] if isinstance(h, list) else 0 for h in previous["hands"]],
        table=[],
        stock=0,
        piles=[cards_data(p) for p in piles],
        pile_counts=[p.bit_count() for p in piles],
        scope=[t.scope for t in score.tallies],
        to_move=None,
        score=list(done.totals),
        scoring={
            "rows": rows,
            "totals": list(done.totals),
            "options": {
                "re_bello": variant.re_bello,
                "napola": variant.napola,
                "piccola": variant.piccola,
                "grande": variant.grande,
                "declarations": variant.declarations,
            },
        },
        leftover=leftover,
    )
    return frame


def result_data(variant: Variant, names: Sequence[str], result: MatchResult) -> dict[str, Any]:
    """The match's end; ``winner`` is a side's index from 0 (the page shows
    sides as 1 and 2), ``outcome`` the words every page uses (result_text)."""
    sides = side_names(variant, names)
    return {
        "final_scores": list(result.final_scores),
        "winner": result.winner,
        "winner_name": None if result.winner is None else sides[result.winner],
        "termination": result.termination.value,
        "reason": result.reason,
        "outcome": result_text(
            sides, result.final_scores, result.winner, result.termination, result.reason
        ),
        "deals_played": result.deals_played,
    }


def over_frame(result: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
    """The match's end: the last position, the final score and the winner."""
    frame = {**blank_frame("over")}
    base = previous or {
        "deal": 0,
        "dealer": None,
        "hands": [],
        "table": [],
        "stock": 0,
        "piles": [[], []],
        "pile_counts": [0, 0],
        "scope": [0, 0],
    }
    for key in ("deal", "dealer", "hands", "table", "stock", "piles", "pile_counts", "scope"):
        frame[key] = base[key]
    frame.update(to_move=None, score=list(result["final_scores"]), result=result)
    return frame


def frames(
    replay: Replay,
    seat: int | None = None,
    *,
    public: bool = False,
    analysis: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Every position to show, as plain data (the page's only input): the deal
    as dealt, the position after each decision, the deal's scoring, and the
    match's end when the log has it. Seen by ``seat`` (its own hand only), by
    a spectator when ``public`` (no hand), else by the replay (every hand).
    With ``analysis`` (an ``arena analyse`` document of this log), each play
    frame carries its decision's analysis: every decision's when the viewer
    sees every hand, only ``seat``'s own when it is one seat's view (another
    seat's legal moves would show its hand), none for a spectator."""
    viewer: Viewer = Sight.PUBLIC if public else Sight.ALL if seat is None else seat
    marks = {} if analysis is None or public else analysis_marks(analysis)
    variant = replay.variant
    out: list[dict[str, Any]] = []
    for deal in replay.deals:
        out.append({**blank_frame("deal"), **position(variant, deal.start.seen_by(viewer))})
        for step in deal.steps:
            if step.move is None:
                frame = {**blank_frame("fault"), **position(variant, step.after.seen_by(viewer))}
                frame["seat"] = step.seat
            else:
                card, taken = step.move[0], step.move[1]
                play = Play(step.seat, card, taken, step.scopa)
                frame = play_frame(variant, play, step.after.seen_by(viewer))
                if isinstance(step.move, Declaring):
                    # The packet shown is public: every viewer is told it.
                    frame["declaration"] = step.move.declaration
                    frame["declared"] = cards_data(step.after.declarations[-1].hand)
                mark = marks.get((step.deal, step.index))
                if mark is not None and (mark["seat"], mark["chosen"]["text"]) != (
                    step.seat,
                    str(step.move),
                ):
                    raise AnalysisError(
                        f"the analysis is not of this log: deal {step.deal + 1}, decision "
                        f"{step.index} is seat {step.seat}'s {step.move} in the log"
                    )
                if mark is not None and (seat is None or seat == step.seat):
                    frame["analysis"] = mark
            frame["think_ms"] = round(step.think_us / 1000, 3)
            frame["comment"] = step.comment
            if step.fault is not None:
                frame["fault"] = {"kind": step.fault.kind.value, "message": step.fault.message}
            out.append(frame)
        if deal.finished is not None:
            done = deal.finished
            opening = deal.start.opening_table
            out.append(scored_frame(variant, replay.names, done, done.plays, out[-1], opening))
    if replay.result is not None:
        result = result_data(variant, replay.names, replay.result)
        out.append(over_frame(result, out[-1] if out else None))
    return out


def _partners(variant: Variant) -> list[list[int]]:
    return [
        [s for s in range(variant.seats) if s % variant.sides == side]
        for side in range(variant.sides)
    ]


def base_data(variant: Variant, names: Sequence[str], title: str) -> dict[str, Any]:
    return {
        "title": title,
        "variant": variant.describe(),
        "seats": variant.seats,
        "names": list(names),
        "sides": side_names(variant, names),
        "partners": _partners(variant),
        "view_seat": None,
        "frames": [],
        "result": None,
        "status": "",
        "analysis": None,
    }


def _move_mark(entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "played": card_data(parse_card(entry["card"])),
        "captured": [card_data(parse_card(c)) for c in entry["captures"]],
        "text": str(entry["text"]),
        "mean": float(entry["mean"]),
        "se": float(entry["se"]),
    }


def analysis_marks(analysis: dict[str, Any]) -> dict[tuple[int, int], dict[str, Any]]:
    """Each analysed decision, by (deal, index), as a frame shows it: the class,
    the loss, the chosen and the best move, and every move best first.
    AnalysisError when the document is not what ``arena analyse`` writes."""
    marks = {}
    try:
        for d in analysis["decisions"]:
            moves = [_move_mark(m) for m in d["moves"]]
            chosen, best = int(d["chosen"]), int(d["best"])
            order = sorted(range(len(moves)), key=lambda i: (-moves[i]["mean"], i))
            category = d["class"]
            if category not in (None, "inaccuracy", "mistake", "blunder"):
                raise ValueError(f"no class {category!r}")
            marks[(int(d["deal"]), int(d["index"]))] = {
                "seat": int(d["seat"]),
                "class": category,
                "loss": float(d["loss"]),
                "loss_se": float(d["loss_se"]),
                "samples": int(d["samples"]),
                "chosen": moves[chosen],
                "best": moves[best],
                "is_best": chosen == best,
                "moves": [{**moves[i], "chosen": i == chosen} for i in order],
            }
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise AnalysisError(f"the analysis cannot be shown: {type(e).__name__}: {e}") from None
    return marks


SUMMARY_KEYS = ("seat", "name", "decisions", "mean_loss", "inaccuracies", "mistakes", "blunders")


def analysis_data(analysis: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """What the page says of the analysis as a whole: how it was made, and
    each seat's summary (only ``seat``'s in one seat's view)."""
    method = analysis.get("method") or {}
    summary = [s for s in analysis.get("summary") or [] if seat is None or s.get("seat") == seat]
    return {
        "samples": method.get("samples"),
        "think": method.get("think"),
        "reproducible": bool(method.get("reproducible")),
        "thresholds": dict(analysis.get("thresholds") or {}),
        "summary": [{key: s.get(key) for key in SUMMARY_KEYS} for s in summary],
    }


def viewer_data(
    replay: Replay, seat: int | None = None, analysis: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Everything the page draws, JSON-safe: the match, its seats, its frames,
    and the move analysis when one is given (``arena.audit.analysis.load_analysis``)."""
    title = f"Scopa Arena — match {replay.header.match_id}: {replay.variant.describe()}"
    data = base_data(replay.variant, replay.names, title)
    data.update(
        view_seat=seat,
        frames=frames(replay, seat, analysis=analysis),
        analysis=None if analysis is None else analysis_data(analysis, seat),
        result=None
        if replay.result is None
        else result_data(replay.variant, replay.names, replay.result),
        status=replay.status(),
    )
    return data


def script_json(value: Any) -> str:
    """JSON to sit inside a <script> element: no "<" that could close it or
    open a comment (every "<", ">" and "&" is a \\u escape in a JSON string)."""
    return (
        json.dumps(value, ensure_ascii=False)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Scopa Arena viewer</title>
<style>
body {{ margin: 0; background: #073f14; }}
{css}
</style></head>
<body>
<div id="viewer"></div>
<script id="viewer-data" type="application/json">{data}</script>
<script id="viewer-options" type="application/json">{options}</script>
<script>
{js}
</script>
<script>
"use strict";
(function () {{
  const data = JSON.parse(document.getElementById("viewer-data").textContent);
  const options = JSON.parse(document.getElementById("viewer-options").textContent);
  document.title = data.title;
  window.ScopaViewer.mount(document.getElementById("viewer"), data, options);
}})();
</script>
</body></html>
"""


def render_html(
    replay: Replay,
    seat: int | None = None,
    faces: Faces | str = Faces.ITALIAN,
    analysis: dict[str, Any] | None = None,
) -> str:
    """The viewer as one offline file: its style, script and data inlined.
    ``faces``: the suits it opens with: italian, french, or short (French
    suits, cards named in the arena's notation, 7d); the page can switch.
    ``analysis``: an ``arena analyse`` document of this log, shown beside
    each decision."""
    style = Faces.parse(faces)
    js = VIEWER_ASSETS["viewer.js"].replace("</script", "<\\/script")
    css = VIEWER_ASSETS["viewer.css"].replace("</style", "<\\/style")
    return PAGE.format(
        css=css,
        js=js,
        data=script_json(viewer_data(replay, seat, analysis)),
        options=script_json({"faces": style}),
    )
