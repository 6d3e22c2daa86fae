"""A match log as one self-contained HTML file: a card table to step through.

No server, no network, no external fonts or scripts: the frames (one per
decision, plus each deal's start and end) are computed here from the
verified replay and embedded as JSON; a few lines of JavaScript draw them.
Buttons and the arrow keys step forward and back; Home and End jump.
"""

from __future__ import annotations

import html
import json
from typing import Any

from arena.render import face_namer
from arena.replay import Replay
from arena.report import side_names
from arena.rules import Sight, View, Viewer, can_see, cards_of


def frames(replay: Replay, seat: int | None = None, faces: str = "short") -> list[dict[str, Any]]:
    """Every position to show, as plain data (the page's only input): the deal
    as dealt, the position after each decision, and the deal's scoring. Each
    is the replay's view of the whole table, as ``seat`` sees it (all hands
    when None): another seat's hand is only counted."""
    name = face_namer(faces)
    sides = side_names(replay.variant, replay.names)
    viewer: Viewer = Sight.ALL if seat is None else seat

    def position(view: View) -> dict[str, Any]:
        shown = view.seen_by(viewer)
        return {
            "hands": [
                [name(c) for c in cards_of(h)] if h is not None else n
                for h, n in zip(shown.hands, shown.hand_sizes, strict=True)
            ],
            "table": [name(c) for c in cards_of(shown.table)],
            "piles": list(shown.captured_counts),
            "scope": list(shown.scope),
            "to_move": shown.to_move,
        }

    out: list[dict[str, Any]] = []
    score = [0, 0]
    for deal in replay.deals:
        base = {"deal": deal.number + 1, "dealer": deal.dealer, "score": list(score)}
        out.append(
            {
                **base,
                **position(deal.start),
                "caption": f"Deal {deal.number + 1}: seat {deal.dealer} deals",
                "scoring": None,
            }
        )
        for i, step in enumerate(deal.steps):
            if step.move is None:
                kind = step.fault.kind.value if step.fault else "?"
                caption = f"seat {step.seat} {replay.names[step.seat]}: fault ({kind}), forfeit"
            else:
                card, taken = step.move
                if taken:
                    what = f"{name(card)} takes {' '.join(name(c) for c in cards_of(taken))}"
                else:
                    what = f"{name(card)} is laid"
                if step.scopa:
                    what += " — SCOPA!"
                caption = f"seat {step.seat} {replay.names[step.seat]}: {what}"
            out.append(
                {
                    **base,
                    **position(step.after),
                    "caption": caption,
                    "played": step.seat,
                    "scoring": None,
                    "step": i + 1,
                }
            )
        if deal.finished is not None:
            done = deal.finished
            score = list(done.totals)
            scoring = [
                {
                    "side": sides[s],
                    **done.score.breakdown(s),
                    "points": done.score.points[s],
                    "cards": done.score.tallies[s].cards,
                    "denari_count": done.score.tallies[s].denari,
                    "primiera_total": done.score.tallies[s].primiera,
                }
                for s in range(2)
            ]
            last = out[-1]
            out.append(
                {
                    **base,
                    "hands": [[] if can_see(viewer, s) else 0 for s in range(replay.variant.seats)],
                    "table": [],
                    "score": score,
                    "piles": [done.score.tallies[s].cards for s in range(2)],
                    "scope": list(last["scope"]),
                    "caption": f"Deal {deal.number + 1} scored; the running score is {score[0]} - {score[1]}",
                    "to_move": None,
                    "scoring": scoring,
                    "step": last.get("step", 0) + 1,
                }
            )
    return out


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: sans-serif; background: #0b5d1e; color: #f3f3f3; margin: 0; padding: 16px; }}
h1 {{ font-size: 18px; margin: 0 0 8px; }}
.bar {{ display: flex; gap: 8px; align-items: center; margin: 8px 0; }}
button {{ font-size: 16px; padding: 4px 12px; }}
#caption {{ font-size: 16px; min-height: 22px; margin: 8px 0; }}
.seat {{ margin: 6px 0; padding: 6px; border-radius: 6px; background: rgba(0,0,0,0.15); }}
.seat.to-move {{ outline: 2px solid #ffd54a; }}
.label {{ display: inline-block; width: 220px; }}
.card {{ display: inline-block; min-width: 30px; padding: 6px 4px; margin: 2px; text-align: center;
  background: #fff; color: #111; border-radius: 5px; font-weight: bold; box-shadow: 1px 1px 2px #0006; }}
.card.red {{ color: #c62828; }}
.back {{ display: inline-block; width: 30px; height: 30px; margin: 2px; border-radius: 5px;
  background: repeating-linear-gradient(45deg, #1e3a8a, #1e3a8a 4px, #2f54b3 4px, #2f54b3 8px); }}
#table {{ min-height: 44px; padding: 10px; margin: 10px 0; border: 2px dashed #ffffff55; border-radius: 8px; }}
table.scoring {{ border-collapse: collapse; margin-top: 8px; }}
table.scoring td, table.scoring th {{ border: 1px solid #ffffff55; padding: 3px 8px; }}
</style></head>
<body>
<h1>{title}</h1>
<div id="meta">{meta}</div>
<div class="bar">
  <button id="first" title="Home">&laquo; first</button>
  <button id="prev" title="Left arrow">&#x25C0; back</button>
  <button id="next" title="Right arrow">forward &#x25B6;</button>
  <button id="last" title="End">last &raquo;</button>
  <span id="position"></span>
</div>
<div id="score"></div>
<div id="caption"></div>
<div id="seats"></div>
<div id="table"></div>
<div id="piles"></div>
<div id="scoring"></div>
<script id="frames" type="application/json">{frames}</script>
<script>
"use strict";
const frames = JSON.parse(document.getElementById("frames").textContent);
const names = {names};
const sides = {sides};
let at = 0;
function card(text) {{
  const red = /[♦♥]|[dc]$|denari|coppe/.test(text);
  return `<span class="card${{red ? " red" : ""}}">${{text}}</span>`;
}}
function show(i) {{
  at = Math.max(0, Math.min(frames.length - 1, i));
  const f = frames[at];
  document.getElementById("position").textContent = `step ${{at + 1}} of ${{frames.length}} (deal ${{f.deal}})`;
  document.getElementById("score").textContent = `Score: ${{sides[0]}} ${{f.score[0]}} — ${{sides[1]}} ${{f.score[1]}}`;
  document.getElementById("caption").textContent = f.caption;
  document.getElementById("seats").innerHTML = f.hands.map((h, s) => {{
    const cards = Array.isArray(h) ? h.map(card).join("") : "<span class='back'></span>".repeat(h);
    const cls = f.to_move === s ? "seat to-move" : "seat";
    return `<div class="${{cls}}" data-seat="${{s}}"><span class="label">seat ${{s}} ${{names[s]}}${{s === f.dealer ? " (dealer)" : ""}}</span>${{cards}}</div>`;
  }}).join("");
  document.getElementById("table").innerHTML = "<span class='label'>table</span>" + f.table.map(card).join("");
  document.getElementById("piles").textContent =
    `Captured: ${{sides[0]}} ${{f.piles[0]}} cards, ${{f.scope[0]}} scope — ${{sides[1]}} ${{f.piles[1]}} cards, ${{f.scope[1]}} scope`;
  document.getElementById("scoring").innerHTML = f.scoring ? (
    "<table class='scoring'><tr><th></th><th>scope</th><th>carte</th><th>denari</th><th>settebello</th><th>primiera</th><th>deal</th></tr>" +
    f.scoring.map(r => `<tr><td>${{r.side}}</td><td>${{r.scope}}</td><td>${{r.carte}} (${{r.cards}})</td><td>${{r.denari}} (${{r.denari_count}})</td><td>${{r.settebello}}</td><td>${{r.primiera}} (${{r.primiera_total ?? "-"}})</td><td>${{r.points}}</td></tr>`).join("") +
    "</table>") : "";
  document.body.dataset.step = String(at);
}}
document.getElementById("first").onclick = () => show(0);
document.getElementById("prev").onclick = () => show(at - 1);
document.getElementById("next").onclick = () => show(at + 1);
document.getElementById("last").onclick = () => show(frames.length - 1);
document.addEventListener("keydown", e => {{
  if (e.key === "ArrowRight") show(at + 1);
  else if (e.key === "ArrowLeft") show(at - 1);
  else if (e.key === "Home") show(0);
  else if (e.key === "End") show(frames.length - 1);
}});
const start = /step=(\\d+)/.exec(location.hash);
show(start ? Number(start[1]) : 0);
</script>
</body></html>
"""


def render_html(replay: Replay, seat: int | None = None, faces: str = "short") -> str:
    """The viewer page; ``faces``: the card notation (short, french or italian)."""
    h = replay.header
    title = f"Scopa Arena — match {h.match_id}: {replay.variant.describe()}"
    view = f"; seen from seat {seat}" if seat is not None else "; all hands shown"
    meta = html.escape(
        " | ".join(f"seat {i}: {n}" for i, n in enumerate(replay.names))
        + view
        + f". {replay.status()}"
    )
    data = json.dumps(frames(replay, seat, faces), ensure_ascii=False).replace("</", "<\\/")
    return PAGE.format(
        title=html.escape(title),
        meta=meta,
        frames=data,
        names=json.dumps(replay.names).replace("</", "<\\/"),
        sides=json.dumps(side_names(replay.variant, replay.names)).replace("</", "<\\/"),
    )
