/* Scopa Arena match viewer: draws the frames of arena/viewer.py (a replay) or
   arena/web/live.py (a live match). Vanilla JavaScript, no network.
   A position has an address: the fragment #deal=2&step=14 is deal 2 (counted
   from 1, as the deal picker shows it) at step 14 of that deal, where step 0 is
   the deal as dealt, step N the table after the deal's Nth decision, and the
   step after the last decision the deal's scoring (then, in the last deal, the
   match's end). The fragment follows the viewer as it steps; one that names
   no such position opens the start.
   Every string from a log or a bot reaches the page through textContent or
   setAttribute, never as HTML. */
(function () {
  "use strict";

  const SVG = "http://www.w3.org/2000/svg";
  const SUITS = "dcsb";
  const ITALIAN_SUITS = { d: "denari", c: "coppe", s: "spade", b: "bastoni" };
  const ITALIAN_RANKS = ["", "Asso", "2", "3", "4", "5", "6", "7", "Fante", "Cavallo", "Re"];
  const ITALIAN_LETTERS = ["", "A", "2", "3", "4", "5", "6", "7", "F", "C", "R"];
  const FRENCH_SUITS = { d: "\u2666", c: "\u2665", s: "\u2660", b: "\u2663" };
  const FRENCH_RANKS = ["", "A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"];
  const ITALIAN_COLOURS = { d: "#b07d00", c: "#c62828", s: "#1f4e9c", b: "#2e7d32" };
  const FRENCH_COLOURS = { d: "#c62828", c: "#c62828", s: "#111111", b: "#111111" };

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // A div with a class and an id, appended to parent: the viewer's named parts.
  function part(parent, cls, id) {
    const node = el("div", cls);
    node.id = id;
    parent.appendChild(node);
    return node;
  }

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const key of Object.keys(attrs)) node.setAttribute(key, String(attrs[key]));
    return node;
  }

  function short(card) {
    return ITALIAN_LETTERS[card.rank] + card.suit;
  }

  function cardName(card, faces) {
    if (faces === "short") return short(card);
    if (faces === "french") return FRENCH_RANKS[card.rank] + FRENCH_SUITS[card.suit];
    return ITALIAN_RANKS[card.rank] + " di " + ITALIAN_SUITS[card.suit];
  }

  function cardsName(cards, faces) {
    return cards.map((c) => cardName(c, faces)).join(faces === "italian" ? ", " : " ");
  }

  /* The suit drawn with SVG shapes (Italian) or a symbol (French), centred at (cx, cy). */
  function suitMark(suit, faces, cx, cy, size) {
    if (faces === "short") faces = "french";
    const colour = (faces === "french" ? FRENCH_COLOURS : ITALIAN_COLOURS)[suit];
    const g = svg("g", { fill: colour, stroke: colour });
    if (faces === "french") {
      const t = svg("text", { x: cx, y: cy + size * 0.35, "font-size": size, "text-anchor": "middle", stroke: "none" });
      t.textContent = FRENCH_SUITS[suit];
      g.appendChild(t);
      return g;
    }
    const r = size / 2;
    if (suit === "d") {
      g.appendChild(svg("circle", { cx: cx, cy: cy, r: r, "stroke-width": 1.5, fill: "#f2c230" }));
      g.appendChild(svg("circle", { cx: cx, cy: cy, r: r * 0.45, fill: "none", "stroke-width": 1.5 }));
    } else if (suit === "c") {
      const d = `M ${cx - r} ${cy - r * 0.7} Q ${cx} ${cy - r * 0.95} ${cx + r} ${cy - r * 0.7}` +
        ` Q ${cx + r * 0.8} ${cy + r * 0.25} ${cx + r * 0.15} ${cy + r * 0.35}` +
        ` L ${cx + r * 0.15} ${cy + r * 0.75} L ${cx + r * 0.55} ${cy + r} L ${cx - r * 0.55} ${cy + r}` +
        ` L ${cx - r * 0.15} ${cy + r * 0.75} L ${cx - r * 0.15} ${cy + r * 0.35}` +
        ` Q ${cx - r * 0.8} ${cy + r * 0.25} ${cx - r} ${cy - r * 0.7} Z`;
      g.appendChild(svg("path", { d: d, "stroke-width": 1 }));
    } else if (suit === "s") {
      g.appendChild(svg("path", {
        d: `M ${cx} ${cy - r * 1.1} L ${cx + r * 0.18} ${cy + r * 0.45} L ${cx - r * 0.18} ${cy + r * 0.45} Z`,
        "stroke-width": 1,
      }));
      g.appendChild(svg("line", { x1: cx - r * 0.6, y1: cy + r * 0.5, x2: cx + r * 0.6, y2: cy + r * 0.5, "stroke-width": 2.5 }));
      g.appendChild(svg("line", { x1: cx, y1: cy + r * 0.5, x2: cx, y2: cy + r * 1.05, "stroke-width": 3 }));
    } else {
      g.appendChild(svg("path", {
        d: `M ${cx - r * 0.2} ${cy + r} L ${cx - r * 0.35} ${cy - r * 0.8} Q ${cx} ${cy - r * 1.2} ${cx + r * 0.35} ${cy - r * 0.8} L ${cx + r * 0.2} ${cy + r} Z`,
        "stroke-width": 1,
      }));
      g.appendChild(svg("circle", { cx: cx - r * 0.35, cy: cy - r * 0.15, r: r * 0.14, fill: "#fff" }));
      g.appendChild(svg("circle", { cx: cx + r * 0.3, cy: cy + r * 0.35, r: r * 0.14, fill: "#fff" }));
    }
    return g;
  }

  function cardElement(card, faces, extra) {
    const name = cardName(card, faces);
    const wrap = el("span", "card" + (extra ? " " + extra : ""));
    wrap.dataset.card = short(card);
    wrap.setAttribute("role", "img");
    wrap.setAttribute("aria-label", name);
    wrap.title = name;
    const pic = svg("svg", { viewBox: "0 0 48 70", width: 48, height: 70, "aria-hidden": "true" });
    pic.appendChild(svg("rect", { x: 1, y: 1, width: 46, height: 68, rx: 5, fill: "#fffdf6", stroke: "#333", "stroke-width": 1 }));
    const colour = (faces === "italian" ? ITALIAN_COLOURS : FRENCH_COLOURS)[card.suit];
    const label = faces === "french" ? FRENCH_RANKS[card.rank] : ITALIAN_LETTERS[card.rank];
    const rank = svg("text", { x: 5, y: 15, "font-size": 13, "font-weight": "bold", fill: colour });
    rank.textContent = label;
    pic.appendChild(rank);
    const low = svg("text", { x: 43, y: 64, "font-size": 10, "font-weight": "bold", fill: colour, "text-anchor": "end" });
    low.textContent = label;
    pic.appendChild(low);
    pic.appendChild(suitMark(card.suit, faces, 24, 38, 20));
    wrap.appendChild(pic);
    return wrap;
  }

  function backElement() {
    const back = el("span", "back");
    back.setAttribute("aria-label", "a hidden card");
    return back;
  }

  function thinkText(ms) {
    if (ms === null || ms === undefined) return "";
    return ms >= 1000 ? (ms / 1000).toFixed(2) + " s" : ms.toFixed(1) + " ms";
  }

  function signed(x) {
    return (x < 0 ? "\u2212" : "+") + Math.abs(x).toFixed(2);
  }

  /* A line per analysed seat: its mean loss and how many decisions were flagged. */
  function analysisSummary(analysis, seatName) {
    const box = el("div", "analysis-summary");
    box.id = "analysis-summary";
    const how = analysis.samples !== null && analysis.samples !== undefined
      ? analysis.samples + " sampled deals per decision"
      : analysis.think + " s per decision (time-bounded: the figures depend on the machine)";
    box.appendChild(el("div", "", "Move analysis from each seat's own view, " + how + ":"));
    for (const s of analysis.summary) {
      box.appendChild(el("div", "analysis-seat", seatName(s.seat) + ": mean loss " +
        Number(s.mean_loss).toFixed(3) + " deal points over " + s.decisions + " decision(s); " +
        "inaccuracies " + s.inaccuracies + ", mistakes " + s.mistakes + ", blunders " + s.blunders));
    }
    return box;
  }

  /* Autoplay speeds: milliseconds per step, the default marked. */
  const SPEEDS = [["slow", 2000], ["normal", 1000], ["fast", 400], ["fastest", 120]];
  const DEFAULT_SPEED = 1000;

  function mount(root, data, options) {
    options = options || {};
    /* italian; french (J Q K, suit symbols); short: French drawing, named as the arena writes cards (7d). */
    let faces = options.faces === "french" || options.faces === "short" ? options.faces : "italian";
    const frames = data.frames.slice();
    const seats = data.seats;
    const names = data.names;
    const sides = data.sides;
    const nSides = data.partners.length;
    let at = 0;
    let digits = "";
    let digitTimer = null;
    let playTimer = null;
    let speed = DEFAULT_SPEED;

    const seatName = (s) => names[s] + " (seat " + s + ")";

    root.textContent = "";
    root.classList.add("scopa-viewer");
    const head = el("div", "head");
    head.appendChild(el("h1", "title", data.title));
    const meta = el("div", "meta", data.variant + (data.view_seat === null || data.view_seat === undefined
      ? "" : " \u2014 seen from seat " + data.view_seat + " (" + names[data.view_seat] + "): other hands are hidden"));
    head.appendChild(meta);
    if (data.analysis) head.appendChild(analysisSummary(data.analysis, seatName));
    root.appendChild(head);

    const bar = el("div", "bar");
    const button = (id, text, title, go) => {
      const b = el("button", "", text);
      b.id = id;
      b.type = "button";
      b.title = title;
      b.addEventListener("click", () => { go(); b.blur(); });  /* so that space stays play/pause */
      bar.appendChild(b);
      return b;
    };
    button("first", "\u00ab first", "Home", () => show(0));
    button("prev", "\u25c0 back", "Left arrow", () => show(at - 1));
    button("next", "forward \u25b6", "Right arrow", () => show(at + 1));
    button("last", "last \u00bb", "End", () => show(frames.length - 1));
    const playButton = button("play", "\u25b7 play", "Space: play the match through, or pause", () => toggle());
    const speedLabel = el("label", "speed-pick", "speed ");
    const speedSelect = el("select");
    speedSelect.id = "speed";
    speedSelect.title = "Time per step while playing";
    for (const [name, ms] of SPEEDS) {
      const o = el("option", "", name + " (" + (ms / 1000) + " s)");
      o.value = String(ms);
      if (ms === DEFAULT_SPEED) o.selected = true;
      speedSelect.appendChild(o);
    }
    speedLabel.appendChild(speedSelect);
    bar.appendChild(speedLabel);
    speedSelect.addEventListener("change", () => {
      speed = Number(speedSelect.value);
      if (playTimer !== null) schedule();
      speedSelect.blur();
    });
    const dealLabel = el("label", "deal-pick", "deal ");
    const dealSelect = el("select");
    dealSelect.id = "deal-select";
    dealSelect.title = "Jump to a deal (or type its number and Enter)";
    dealLabel.appendChild(dealSelect);
    bar.appendChild(dealLabel);
    dealSelect.addEventListener("change", () => {
      jumpToDeal(Number(dealSelect.value));
      dealSelect.blur();
    });
    const facesButton = button("faces", "", "Switch the card faces", () => {
      faces = faces === "italian" ? "french" : "italian";
      show(at);
    });
    const positionText = el("span", "position");
    positionText.id = "position";
    bar.appendChild(positionText);
    root.appendChild(bar);

    const scoreLine = part(root, "score", "score");
    const caption = part(root, "caption", "caption");
    const note = part(root, "note", "note");
    const analysisBox = part(root, "analysis", "analysis");

    const board = el("div", "board seats-" + seats);
    root.appendChild(board);
    // Around the table in playing order, as players sit (anticlockwise on the page).
    const places = {
      2: ["bottom", "top"],
      3: ["bottom", "right", "left"],
      4: ["bottom", "right", "top", "left"],
      6: ["bottom", "rightbottom", "righttop", "top", "lefttop", "leftbottom"],
    }[seats];
    const bottom = typeof data.view_seat === "number" ? data.view_seat : 0;
    const seatBoxes = [];
    for (let s = 0; s < seats; s++) {
      const box = el("div", "seat");
      box.dataset.seat = String(s);
      box.dataset.side = String(s % nSides);
      box.dataset.place = places[(s - bottom + seats) % seats];
      box.classList.add("place-" + box.dataset.place);
      seatBoxes.push(box);
      board.appendChild(box);
    }
    const centre = el("div", "centre");
    board.appendChild(centre);

    const pilesBox = part(root, "piles", "piles");
    const scoringBox = part(root, "scoring-box", "scoring");
    const resultBox = part(root, "result", "result");
    const status = el("div", "status", data.status || "");
    status.id = "status";
    root.appendChild(status);

    function partnersText(s) {
      const side = s % nSides;
      const mates = data.partners[side].filter((p) => p !== s);
      const text = "side " + (side + 1);
      return mates.length ? text + ", partner of seat " + mates.join(", ") : text;
    }

    function dealStarts() {
      const starts = [];
      frames.forEach((f, i) => { if (f.kind === "deal") starts.push([f.deal, i]); });
      return starts;
    }

    function refreshDeals() {
      const starts = dealStarts();
      if (dealSelect.options.length === starts.length) return;
      dealSelect.textContent = "";
      for (const [deal] of starts) {
        const o = el("option", "", String(deal));
        o.value = String(deal);
        dealSelect.appendChild(o);
      }
    }

    function jumpToDeal(deal) {
      const found = dealStarts().find(([d]) => d === deal);
      if (found) show(found[1]);
    }

    function lastThink(f, s) {
      /* The think time of this seat's latest decision in the deal so far. */
      for (let i = at; i >= 0 && frames[i].deal === f.deal; i--) {
        const g = frames[i];
        if (g.seat === s && g.think_ms !== null && g.think_ms !== undefined) return g.think_ms;
        if (g.kind === "deal") break;
      }
      return null;
    }

    function describe(f) {
      if (f.kind === "deal") {
        let text = "Deal " + f.deal + ": " + seatName(f.dealer) + " deals; " + f.table.length +
          " card(s) on the table, " + f.stock + " in the stock. ";
        if (f.opening_scope) {
          text += "The table dealt, " + cardsName(f.opening_taken, faces) + ", adds up to " +
            15 * f.opening_scope + ": the dealer's side takes it — " +
            (f.opening_scope === 2 ? "two scope" : "SCOPA") + "! ";
        }
        return text + seatName(f.to_move) + " plays first.";
      }
      if (f.kind === "fault") {
        const kind = f.fault ? f.fault.kind : "fault";
        return seatName(f.seat) + ": " + kind + " \u2014 the match is forfeited.";
      }
      if (f.kind === "play") {
        let text = seatName(f.seat) + (f.captured.length
          ? " plays " + cardName(f.played, faces) + " and takes " + cardsName(f.captured, faces)
          : " lays " + cardName(f.played, faces) + " on the table");
        if (f.ace_took_all) text += " \u2014 the ace takes all";
        if (f.scopa) text += " \u2014 SCOPA!";
        if (f.declaration) {
          text += " \u2014 declares " + f.declaration + ", showing " + cardsName(f.declared || [], faces);
        }
        if (f.think_ms !== null && f.think_ms !== undefined) text += " (thought " + thinkText(f.think_ms) + ")";
        return text + ".";
      }
      if (f.kind === "scored") {
        const rows = f.scoring.rows;
        return "Deal " + f.deal + " scored: " + rows.map((r) => r.name + " " + r.points).join(", ") +
          ". Match score " + f.score.join(" \u2013 ") + ".";
      }
      if (f.kind === "over") return "Match over: " + f.result.outcome + ".";
      return "";
    }

    function resultWords(r) {
      /* How it ended (the heading above gives the score, from the winner's side). */
      return r.deals_played + " deal(s) played; " + r.termination + (r.reason ? ": " + r.reason : "") + ".";
    }

    function drawSeat(f, s) {
      const box = seatBoxes[s];
      box.textContent = "";
      box.classList.toggle("to-move", f.to_move === s);
      box.classList.toggle("just-played", f.seat === s && f.kind === "play");
      const label = el("div", "label");
      label.appendChild(el("span", "name", names[s]));
      label.appendChild(el("span", "seat-no", " seat " + s));
      if (f.dealer === s) label.appendChild(el("span", "badge dealer", "dealer"));
      if (f.to_move === s) label.appendChild(el("span", "badge turn", "to move"));
      box.appendChild(label);
      box.appendChild(el("div", "partners", partnersText(s)));
      const think = lastThink(f, s);
      if (think !== null) box.appendChild(el("div", "think", "last decision: " + thinkText(think)));
      const hand = el("div", "hand");
      const h = f.hands[s];
      if (Array.isArray(h)) {
        for (const c of h) hand.appendChild(cardElement(c, faces));
      } else {
        for (let i = 0; i < h; i++) hand.appendChild(backElement());
        if (h) hand.appendChild(el("span", "count", h + " hidden"));
      }
      box.appendChild(hand);
    }

    function drawCentre(f) {
      centre.textContent = "";
      const info = el("div", "table-info");
      const stock = el("span", "stock", "stock: " + f.stock + " card(s)");
      stock.id = "stock";
      info.appendChild(stock);
      centre.appendChild(info);
      const table = el("div", "table-cards");
      table.id = "table";
      for (const c of f.table) table.appendChild(cardElement(c, faces, f.played && !f.captured.length &&
        short(c) === short(f.played) ? "played" : ""));
      if (!f.table.length) table.appendChild(el("span", "empty", "the table is empty"));
      centre.appendChild(table);
      if (f.kind === "play" && f.played) {
        const move = el("div", "move");
        move.id = "move";
        move.appendChild(el("span", "move-who", names[f.seat] + " played"));
        move.appendChild(cardElement(f.played, faces, "played"));
        if (f.captured.length) {
          move.appendChild(el("span", "move-who", "taking"));
          for (const c of f.captured) move.appendChild(cardElement(c, faces, "captured"));
        }
        if (f.ace_took_all) move.appendChild(el("span", "scopa-mark", "the ace takes all"));
        if (f.scopa) move.appendChild(el("span", "scopa-mark", "SCOPA!"));
        if (f.declaration) move.appendChild(el("span", "scopa-mark", "declares " + f.declaration));
        centre.appendChild(move);
      }
    }

    function drawPiles(f) {
      pilesBox.textContent = "";
      for (let side = 0; side < nSides; side++) {
        const pile = el("div", "pile");
        pile.dataset.side = String(side);
        const head = el("div", "pile-head");
        head.appendChild(el("span", "name", sides[side]));
        head.appendChild(el("span", "pile-count", " \u2014 " + f.pile_counts[side] + " card(s) taken"));
        const scope = el("span", "scope", " \u2014 scope: " + f.scope[side]);
        if (f.scope[side]) scope.appendChild(el("span", "scope-marks", " " + "\u2605".repeat(f.scope[side])));
        head.appendChild(scope);
        pile.appendChild(head);
        const cards = el("div", "pile-cards");
        for (const c of f.piles[side]) cards.appendChild(cardElement(c, faces, "small"));
        pile.appendChild(cards);
        pilesBox.appendChild(pile);
      }
    }

    function drawScoring(f) {
      scoringBox.textContent = "";
      if (!f.scoring) return;
      scoringBox.appendChild(el("h2", "", "Deal " + f.deal + " scoring"));
      const table = el("table", "scoring");
      const headRow = el("tr");
      const options = f.scoring.options || {};
      const heads = ["", "carte", "denari", "settebello", "primiera"];
      if (options.re_bello) heads.push("re bello");
      if (options.napola) heads.push("napola");
      if (options.piccola) heads.push("piccola");
      if (options.grande) heads.push("grande");
      if (options.declarations) heads.push("declared");
      for (const h of heads.concat(["scope", "points", "match"])) headRow.appendChild(el("th", "", h));
      table.appendChild(headRow);
      for (const r of f.scoring.rows) {
        const tr = el("tr");
        tr.dataset.side = String(r.side);
        const cells = [
          r.name,
          r.carte + " (" + r.cards + " cards)",
          r.denari + " (" + r.denari_count + " denari)",
          r.settebello + (r.settebello_held ? " (has it)" : ""),
          r.primiera + " (" + (r.primiera_total === null ? "no primiera: a suit missing" : "primiera " + r.primiera_total) + ")",
        ];
        if (options.re_bello) cells.push(r.re_bello + (r.re_bello_held ? " (has it)" : ""));
        if (options.napola || options.piccola) {
          cells.push(r.napola ? r.napola + " (ace to " + r.napola + " of Denari)" : "0");
        }
        if (options.grande) {
          const from = {5: "Fante", 6: "7", 7: "6"}[r.grande];
          cells.push(r.grande ? r.grande + " (" + from + " to Re of Denari)" : "0");
        }
        if (options.declarations) cells.push(String(r.declared || 0));
        cells.push(
          String(r.scope),
          String(r.points),
          String(r.total),
        );
        for (const c of cells) tr.appendChild(el("td", "", c));
        table.appendChild(tr);
      }
      scoringBox.appendChild(table);
      const left = el("div", "leftover");
      left.id = "leftover";
      if (f.leftover) {
        left.appendChild(el("span", "", "Leftover cards on the table go to " + sides[f.leftover.side] +
          " (last to capture): " + cardsName(f.leftover.cards, faces) + " "));
        for (const c of f.leftover.cards) left.appendChild(cardElement(c, faces, "small leftover-card"));
      } else {
        left.textContent = "No cards were left on the table.";
      }
      scoringBox.appendChild(left);
    }

    function moveName(m) {
      return cardName(m.played, faces) +
        (m.captured.length ? " taking " + cardsName(m.captured, faces) : " (laid)");
    }

    /* The analysis of the decision that led to this frame (arena analyse):
       its class and loss, the best move, then every move best first. */
    function drawAnalysis(f) {
      analysisBox.textContent = "";
      const a = f.analysis;
      analysisBox.hidden = !a;
      if (!a) return;
      const headLine = el("div", "analysis-head");
      headLine.appendChild(el("span", "analysis-title", "Analysis of " + seatName(a.seat) + "'s move: "));
      let verdict = "the best move";
      if (!a.is_best) verdict = a.class ? a.class : "not flagged";
      const mark = el("span", "verdict", verdict);
      mark.dataset.verdict = a.is_best ? "best" : (a.class || "none");
      headLine.appendChild(mark);
      if (!a.is_best) {
        headLine.appendChild(el("span", "loss", " — loses " + a.loss.toFixed(2) + " ± " +
          a.loss_se.toFixed(2) + " deal points against the best, " + moveName(a.best) + " (" +
          signed(a.best.mean) + ")"));
      }
      analysisBox.appendChild(headLine);
      const list = el("ol", "analysis-moves");
      for (const m of a.moves) {
        const item = el("li", m.chosen ? "chosen" : "", signed(m.mean) + " ± " + m.se.toFixed(2) +
          "  " + moveName(m) + (m.chosen ? "  ← played" : ""));
        list.appendChild(item);
      }
      analysisBox.appendChild(list);
      analysisBox.appendChild(el("div", "analysis-method", "Expected deal points of each move, " +
        "from what this seat could see (" + a.samples + " sampled deals)."));
    }

    function show(i) {
      if (!frames.length) {
        caption.textContent = "No deal yet.";
        return;
      }
      at = Math.max(0, Math.min(frames.length - 1, i));
      const f = frames[at];
      root.dataset.faces = faces;
      facesButton.textContent = faces === "italian" ? "French suits" : "Italian suits";
      const where = place(at);
      positionText.textContent = "deal " + where.deal + ", step " + where.step + " of " + where.last +
        " (" + (at + 1) + " of " + frames.length + " in the match)";
      refreshDeals();
      if (f.deal) dealSelect.value = String(f.deal);
      scoreLine.textContent = "Score: " + sides.map((n, s) => n + " " + f.score[s]).join(" \u2014 ");
      caption.textContent = describe(f);
      note.textContent = "";
      if (f.fault) note.appendChild(el("div", "fault", "Fault (" + f.fault.kind + "): " + f.fault.message));
      if (f.comment) note.appendChild(el("div", "comment", "Comment from " + names[f.seat] + ": " + f.comment));
      drawAnalysis(f);
      for (let s = 0; s < seats; s++) drawSeat(f, s);
      drawCentre(f);
      drawPiles(f);
      drawScoring(f);
      resultBox.textContent = "";
      if (f.kind === "over" && f.result) {
        resultBox.appendChild(el("h2", "", f.result.outcome));
        resultBox.appendChild(el("p", "", resultWords(f.result)));
      }
      document.body.dataset.step = String(at);
      playButton.textContent = playTimer === null ? "\u25b7 play" : "\u275a\u275a pause";
      root.dataset.playing = playTimer === null ? "0" : "1";
      if (at > 0 || location.hash) writeFragment(where);
    }

    /* Deal and step of frame i (see the top of this file), and the deal's last step. */
    function place(i) {
      let start;
      for (start = i; start > 0 && frames[start].kind !== "deal"; start--);
      let end = i;
      while (end + 1 < frames.length && frames[end + 1].kind !== "deal") end++;
      return { deal: frames[i].deal, step: i - start, last: end - start };
    }

    function writeFragment(where) {
      const fragment = "#deal=" + where.deal + "&step=" + where.step;
      if (location.hash === fragment) return;
      try {
        history.replaceState(null, "", fragment);
      } catch (err) {
        /* a page that may not rewrite its address keeps the old one */
      }
    }

    /* The frame a fragment names, or 0 (the start) when it names none. */
    function fromFragment(hash) {
      const params = new URLSearchParams(hash.replace(/^#/, ""));
      const deal = params.get("deal");
      const step = params.get("step") === null ? "0" : params.get("step");
      if (deal === null || !/^[0-9]{1,6}$/.test(deal) || !/^[0-9]{1,6}$/.test(step)) return 0;
      const found = dealStarts().find(([d]) => d === Number(deal));
      if (!found) return 0;
      const i = found[1] + Number(step);
      return i < frames.length && place(i).deal === Number(deal) && place(i).step === Number(step) ? i : 0;
    }

    function schedule() {
      clearTimeout(playTimer);
      playTimer = setTimeout(tick, speed);
    }

    function tick() {
      if (at >= frames.length - 1) {
        pause();
        return;
      }
      show(at + 1);
      if (at >= frames.length - 1) pause();
      else schedule();
    }

    function play() {
      if (!frames.length) return;
      if (at >= frames.length - 1) show(0);  /* at the end: play it again from the start */
      schedule();
      show(at);
    }

    function pause() {
      clearTimeout(playTimer);
      playTimer = null;
      if (frames.length) show(at);
    }

    function toggle() {
      if (playTimer === null) play();
      else pause();
    }

    function key(e) {
      const target = e.target;
      if (target && (target.tagName === "SELECT" || target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === "ArrowRight") show(at + 1);
      else if (e.key === "ArrowLeft") show(at - 1);
      else if (e.key === "Home") show(0);
      else if (e.key === "End") show(frames.length - 1);
      else if (e.key === " ") toggle();
      else if (/^[0-9]$/.test(e.key)) {
        digits += e.key;
        clearTimeout(digitTimer);
        const deals = dealStarts().length;
        if (Number(digits) * 10 > deals) {
          jumpToDeal(Number(digits));
          digits = "";
        } else {
          digitTimer = setTimeout(() => { jumpToDeal(Number(digits)); digits = ""; }, 1200);
        }
      } else if (e.key === "Enter" && digits) {
        clearTimeout(digitTimer);
        jumpToDeal(Number(digits));
        digits = "";
      } else return;
      e.preventDefault();
    }
    document.addEventListener("keydown", key);

    show(fromFragment(location.hash));
    window.addEventListener("hashchange", () => show(fromFragment(location.hash)));

    return {
      show: show,
      play: play,
      pause: pause,
      get playing() { return playTimer !== null; },
      append: function (frame) {
        const following = at >= frames.length - 1;
        frames.push(frame);
        if (frame.kind === "over" && frame.result) data.result = frame.result;
        refreshDeals();
        show(following ? frames.length - 1 : at);
      },
      get index() { return at; },
      get length() { return frames.length; },
    };
  }

  window.ScopaViewer = { mount: mount, cardName: cardName, cardElement: cardElement, backElement: backElement };
})();
