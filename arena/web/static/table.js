/* Scopa Arena: a person's seat at the table (arena/web/table.py).
   The seat's secret is the address's fragment (#SECRET): it is sent only in
   the Authorization header of the page's own requests, never in a URL.
   The stream (arena/transport/human.py) carries what a bot of this seat is
   sent: the match's start, the seat's view after every play, each decision
   request, each deal's end and the match's; the page draws the latest view.
   Every string from the server reaches the page as text, never as HTML. */
(function () {
  "use strict";

  const root = document.getElementById("table");
  if (!root || !window.ScopaViewer) return;
  const V = window.ScopaViewer;
  const secret = decodeURIComponent(location.hash.slice(1));
  const api = root.dataset.api || "/api/seat";  // the seat's requests: events, sit, move
  const SUIT = { DENARI: "d", COPPE: "c", SPADE: "s", BASTONI: "b" };
  const SUIT_ORDER = "dcsb";

  const state = {
    seat: null, name: "", person: null, started: null, view: null, question: null,
    deadlineAt: null, dealEnd: null, result: null, over: false, selected: null,
    message: "", faces: localStorage.getItem("scopa-faces") === "french" ? "french" : "italian",
    connected: false, declare: true, superseded: false,
  };

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function card(c) { return { suit: SUIT[c.suit] || "d", rank: c.rank }; }
  function key(c) { return c.rank + (SUIT[c.suit] || "?"); }
  function sorted(cards) {
    return cards.slice().sort((a, b) =>
      SUIT_ORDER.indexOf(SUIT[a.suit]) - SUIT_ORDER.indexOf(SUIT[b.suit]) || a.rank - b.rank);
  }
  function name(c) { return V.cardName(card(c), state.faces); }
  function declarationName(kind) {
    return String(kind || "").replace("DECLARATION_", "").toLowerCase();
  }
  // The shown cards a seat still holds: each packet it declared, less what it played since.
  function shownCards(v, s) {
    const out = [];
    for (const d of (v.declarations || [])) {
      if ((d.seat || 0) !== s) continue;
      const played = (v.plays || []).slice(d.play || 0).filter((p) => (p.seat || 0) === s)
        .map((p) => key(p.move.card));
      for (const c of d.hand) if (!played.includes(key(c))) out.push(c);
    }
    return out;
  }
  /* Three sides in Scopa a tre (each seat its own), two in every other game. */
  function sides() { return state.view && state.view.variant.game === "SCOPA_A_TRE" ? 3 : 2; }
  function side(seat) { return seat % sides(); }
  function seats() { return state.view ? state.view.handSizes.length : 2; }
  /* A side as the person at the table reads it: theirs, the other one, or with three, the player. */
  function sideName(s, capital) {
    const mine = sides() === 2 ? "your side" : "you";
    const text = s === side(state.seat) ? mine : sides() === 2 ? "their side" : seatName(s);
    return capital ? text.charAt(0).toUpperCase() + text.slice(1) : text;
  }
  function seatName(s) {
    if (s === state.seat) return "you";
    const info = state.started && state.started.seats.find((x) => x.seat === s);
    const who = info ? info.engineName : "seat " + s;
    const partner = seats() > sides() && side(s) === side(state.seat) ? " (partner)" : "";
    return who + " (seat " + s + ")" + partner;
  }

  // Talking to the table ---------------------------------------------------------

  function headers() {
    return { "Authorization": "Bearer " + secret, "Content-Type": "application/json" };
  }

  function post(path, body) {
    return fetch(path, { method: "POST", headers: headers(), body: JSON.stringify(body),
      cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" })
      .then((r) => r.json().then((d) => ({ status: r.status, data: d })));
  }

  function handle(kind, id, data) {
    if (kind === "seat") {
      state.seat = data.seat; state.name = data.name; state.person = data.person;
    } else if (kind === "MatchStarted") {
      state.started = data;
    } else if (kind === "view") {
      state.view = data;
      if (state.dealEnd) state.dealEnd.afterView = false;
    } else if (kind === "decision") {
      state.question = { ask: Number(id), request: data };
      state.view = data.observation;
      state.deadlineAt = performance.now() + data.clock.deadlineMs;
      state.selected = null;
    } else if (kind === "clock") {
      if (state.question && state.question.ask === data.ask) {
        state.deadlineAt = performance.now() + data.left_ms;
      }
    } else if (kind === "closed") {
      if (state.question && state.question.ask === data.ask) {
        state.question = null; state.selected = null;
      }
    } else if (kind === "DealEnded") {
      state.dealEnd = data;
      data.afterView = true;  // its score is newer than the view's
    } else if (kind === "MatchEnded") {
      state.result = data.result;
    } else if (kind === "end") {
      state.over = true;
    } else if (kind === "superseded") {
      // The seat was opened in more pages than it keeps: this, the oldest, lets go.
      state.superseded = true;
      state.question = null;
      state.message = "This seat is open in other pages, and this one stopped following it: " +
        "reload it to play here.";
    }
  }

  // The stream, read with fetch so that the secret goes in a header; parsed
  // as Server-Sent Events. It is opened again (from its start) when it drops.
  function connect() {
    state.connected = false;
    fetch(api + "/events", { headers: headers(), cache: "no-store", credentials: "omit",
      referrerPolicy: "no-referrer" })
      .then((response) => {
        if (response.status === 401) {
          state.message = "This address is not a seat's: open the one your seat was given.";
          state.over = true;
          draw();
          return;
        }
        if (!response.ok || !response.body) throw new Error("status " + response.status);
        // A fresh stream starts from the match's start: forget the old one.
        Object.assign(state, { started: null, view: null, question: null, dealEnd: null,
          result: null, selected: null });
        state.connected = true;
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        function pump() {
          return reader.read().then((chunk) => {
            if (chunk.done) return;
            buffer += decoder.decode(chunk.value, { stream: true });
            let cut;
            while ((cut = buffer.indexOf("\n\n")) >= 0) {
              const block = buffer.slice(0, cut);
              buffer = buffer.slice(cut + 2);
              let kind = "message", id = null, data = "";
              for (const line of block.split("\n")) {
                if (line.startsWith("event: ")) kind = line.slice(7);
                else if (line.startsWith("id: ")) id = line.slice(4);
                else if (line.startsWith("data: ")) data += line.slice(6);
              }
              if (data) handle(kind, id, JSON.parse(data));
            }
            draw();
            return pump();
          });
        }
        return pump();
      })
      .catch(() => { /* dropped: opened again below */ })
      .then(() => {
        state.connected = false;
        if (!state.over && !state.superseded) { draw(); setTimeout(connect, 1000); }
        else draw();
      });
  }

  function sit(nameText) {
    post(api + "/sit", { name: nameText }).then((r) => {
      if (r.status === 200) { state.person = r.data.person; state.message = ""; }
      else state.message = r.data.error || "could not sit down";
      draw();
    }).catch(() => { state.message = "the table cannot be reached"; draw(); });
  }

  function play(move) {
    const q = state.question;
    if (!q) return;
    state.message = "";
    post(api + "/move", { ask: q.ask, move: withDeclaration(move) }).then((r) => {
      if (r.status !== 200) {
        // The referee's words; the decision is still the seat's to make.
        state.message = "That move was not played: " + (r.data.error || r.status);
        state.selected = null;
      }
      draw();
    }).catch(() => { state.message = "the table cannot be reached; try again"; draw(); });
  }

  // What can be played ---------------------------------------------------------------

  // Cirulla: where a declaration is open, each move is offered again declaring it;
  // the cards and their captures are chosen among the plain ones, and the
  // declaration goes with the move when the box is ticked.
  function offered() { return state.question ? state.question.request.legalMoves : []; }
  function declaring(m) { return m.declaration && m.declaration !== "DECLARATION_NONE"; }
  function legal() { return offered().filter((m) => !declaring(m)); }
  function movesOf(c) { return legal().filter((m) => key(m.card) === key(c)); }
  function openDeclaration() {
    const m = offered().find(declaring);
    return m ? m.declaration.replace("DECLARATION_", "").toLowerCase() : null;
  }
  function sameMove(a, b) {
    const keys = (m) => sorted(m.captures || []).map(key).join(",");
    return key(a.card) === key(b.card) && keys(a) === keys(b);
  }
  function withDeclaration(move) {
    if (!state.declare) return move;
    return offered().find((m) => declaring(m) && sameMove(m, move)) || move;
  }

  function choose(c) {
    const moves = movesOf(c);
    if (!moves.length) {
      state.message = state.question ? name(c) + " cannot be played now" : "it is not your turn";
    } else if (moves.length === 1) {
      play(moves[0]);
    } else {
      state.selected = key(c);
      state.message = "Choose what " + name(c) + " takes.";
    }
    draw();
  }

  // Drawing ---------------------------------------------------------------------------

  function cardButton(c, cls, onClick, label) {
    const b = el("button", "card-button " + (cls || ""));
    b.type = "button";
    b.appendChild(V.cardElement(card(c), state.faces));
    b.setAttribute("aria-label", label || name(c));
    if (onClick) b.addEventListener("click", onClick); else b.disabled = true;
    return b;
  }

  function cards(cs, small) {
    const row = el("div", "cards");
    for (const c of sorted(cs)) row.appendChild(V.cardElement(card(c), state.faces, small ? "small" : ""));
    if (!cs.length) row.appendChild(el("span", "empty", "none"));
    return row;
  }

  function clockText(ms) {
    const s = Math.max(0, Math.ceil(ms / 1000));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  function drawClock(node) {
    const q = state.question;
    if (q && state.deadlineAt !== null) {
      const left = state.deadlineAt - performance.now();
      node.textContent = "your clock: " + clockText(left) + " (+" +
        (q.request.clock.incrementMs / 1000) + " s a move)";
      node.dataset.running = "1";
      node.classList.toggle("low", left < 20000);
    } else {
      const clock = state.started && state.started.clock;
      node.dataset.running = "0";
      node.classList.remove("low");
      node.textContent = clock ? "your clock waits" : "";
    }
  }

  function draw() {
    root.textContent = "";
    root.dataset.faces = state.faces;
    // For tests and assistive tools: which decision waits, and whether the match is over.
    root.dataset.ask = state.question ? String(state.question.ask) : "";
    root.dataset.over = state.result ? "1" : "";
    const top = el("div", "bar");
    top.appendChild(el("h1", "", (state.person || state.name || "Your seat") +
      (state.seat !== null ? ", seat " + state.seat : "")));
    const faces = el("button", "faces", state.faces === "italian" ? "French suits" : "Italian suits");
    faces.type = "button";
    faces.addEventListener("click", () => {
      state.faces = state.faces === "italian" ? "french" : "italian";
      localStorage.setItem("scopa-faces", state.faces);
      draw();
    });
    top.appendChild(faces);
    const clock = el("span", "clock");
    clock.id = "clock";
    drawClock(clock);
    top.appendChild(clock);
    root.appendChild(top);

    const message = el("p", "message", state.message);
    message.id = "message";
    message.setAttribute("role", "status");
    message.setAttribute("aria-live", "polite");

    if (!secret) {
      root.appendChild(el("p", "message", "Open this page from the address your seat was given (it ends in #...)."));
      return;
    }
    if (state.seat !== null && !state.person) {
      const form = el("form", "sit");
      form.appendChild(el("label", "", "Your name at the table: "));
      const input = el("input");
      input.name = "name"; input.maxLength = 40; input.required = true; input.autofocus = true;
      input.value = localStorage.getItem("scopa-name") || "";
      form.firstChild.appendChild(input);
      const go = el("button", "", "Sit down");
      go.type = "submit";
      form.appendChild(go);
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        localStorage.setItem("scopa-name", input.value);
        sit(input.value);
      });
      root.appendChild(form);
      root.appendChild(message);
      return;
    }
    if (!state.connected && !state.over && !state.superseded) root.appendChild(el("p", "status", "connecting to the table..."));
    const v = state.view;
    if (!v) {
      root.appendChild(el("p", "status", "Waiting for the match to start (every seat must be taken)."));
      root.appendChild(message);
      return;
    }
    const game = v.variant.game;
    const status = el("p", "status");
    status.id = "status";
    const turn = state.result ? "match over" : state.question ? "your turn" :
      "waiting for " + seatName(v.toMove);
    // The match score: the latest of the view's, the last deal's end and the match's end.
    const scores = state.result ? state.result.finalScores :
      state.dealEnd && state.dealEnd.afterView ? state.dealEnd.result.matchScores : v.matchScores;
    const mySide = side(state.seat);
    const target = v.variant.target ? " to " + v.variant.target : "";
    const rivals = [];
    for (let s = 0; s < sides(); s++) if (s !== mySide) rivals.push(sideName(s) + " " + scores[s]);
    status.textContent = game.toLowerCase() + target + ": " + sideName(mySide) + " " + scores[mySide] +
      ", " + rivals.join(", ") + "; dealer " + seatName(v.dealer) + "; stock " +
      v.stockCount + "; " + turn;
    root.appendChild(status);

    // The other seats: their names and how many cards they hold.
    const others = el("div", "others");
    for (let s = 0; s < v.handSizes.length; s++) {
      if (s === state.seat) continue;
      const box = el("div", "other" + (v.toMove === s && !state.result ? " to-move" : ""));
      box.dataset.side = side(s);
      box.appendChild(el("div", "who", seatName(s)));
      const backs = el("div", "cards");
      const shown = shownCards(v, s);
      for (const c of sorted(shown)) backs.appendChild(V.cardElement(card(c), state.faces));
      for (let i = shown.length; i < v.handSizes[s]; i++) backs.appendChild(V.backElement());
      box.appendChild(backs);
      for (const d of (v.declarations || []).filter((x) => (x.seat || 0) === s)) {
        box.appendChild(el("p", "declared", "declared " + declarationName(d.kind) + ": " +
          sorted(d.hand).map(name).join(", ")));
      }
      others.appendChild(box);
    }
    root.appendChild(others);

    const centre = el("div", "centre");
    centre.appendChild(el("h2", "", "Table"));
    const table = el("div", "cards table-cards");
    table.id = "table-cards";
    for (const c of sorted(v.table)) table.appendChild(V.cardElement(card(c), state.faces));
    if (!v.table.length) table.appendChild(el("span", "empty", "empty"));
    centre.appendChild(table);
    // The last plays, newest first.
    const last = el("ol", "last-plays");
    last.id = "last-plays";
    const first = Math.max(0, v.plays.length - seats());
    v.plays.slice(first).forEach((p, i) => {
      const takes = p.move.captures && p.move.captures.length;
      const declared = (v.declarations || []).find((d) => (d.play || 0) === first + i);
      last.prepend(el("li", "", seatName(p.seat || 0) + ": " +
        (declared ? "declares " + declarationName(declared.kind) + ", " : "") + name(p.move.card) +
        (takes ? " takes " + sorted(p.move.captures).map(name).join(", ") : " laid") +
        (p.scopa ? " (scopa!)" : "")));
    });
    centre.appendChild(last);
    root.appendChild(centre);

    // Capture choices for the selected card.
    if (state.selected && state.question) {
      const choices = el("div", "choices");
      choices.id = "choices";
      const moves = legal().filter((m) => key(m.card) === state.selected);
      const chosen = moves.length ? moves[0].card : null;
      if (chosen) choices.appendChild(el("span", "takes", name(chosen) + " takes:"));
      moves.forEach((m, i) => {
        const b = el("button", "choice");
        b.type = "button";
        b.dataset.index = i + 1;
        b.appendChild(el("span", "key", String(i + 1)));
        for (const c of sorted(m.captures)) b.appendChild(V.cardElement(card(c), state.faces, "small"));
        b.setAttribute("aria-label", "take " + sorted(m.captures).map(name).join(", "));
        b.addEventListener("click", () => play(m));
        choices.appendChild(b);
      });
      const cancel = el("button", "cancel", "Back");
      cancel.type = "button";
      cancel.addEventListener("click", () => { state.selected = null; state.message = ""; draw(); });
      choices.appendChild(cancel);
      root.appendChild(choices);
    }

    const mine = el("div", "mine" + (state.question ? " to-move" : ""));
    mine.dataset.side = side(state.seat);
    mine.appendChild(el("h2", "", "Your hand" + (state.question ? ": your turn" : "")));
    const hand = el("div", "cards hand");
    hand.id = "hand";
    sorted(v.hand).forEach((c, i) => {
      const playable = movesOf(c).length > 0;
      const b = cardButton(c, playable ? "playable" : "", playable ? () => choose(c) : null,
        name(c) + (playable ? ", playable (key " + (i + 1) + ")" : ""));
      b.dataset.card = key(c);
      b.dataset.index = i + 1;
      if (state.selected === key(c)) b.classList.add("selected");
      hand.appendChild(b);
    });
    mine.appendChild(hand);
    const open = openDeclaration();
    if (open) {
      const label = el("label", "declare");
      label.id = "declare";
      const box = document.createElement("input");
      box.type = "checkbox";
      box.checked = state.declare;
      box.addEventListener("change", () => { state.declare = box.checked; });
      label.appendChild(box);
      label.appendChild(document.createTextNode(" Declare " + open + " with this play (" +
        (open === "decino" ? 10 : 3) + " points; your hand is shown to all). Key: d"));
      mine.appendChild(label);
    }
    root.appendChild(mine);
    root.appendChild(message);

    // The piles taken, each side's.
    const piles = el("div", "piles");
    for (let s = 0; s < sides(); s++) {
      const pile = el("div", "pile");
      pile.dataset.side = s;
      const scope = v.scope[s] ? ", " + v.scope[s] + " scop" + (v.scope[s] > 1 ? "e" : "a") : "";
      const worth = { DECLARATION_CIRULLA: 3, DECLARATION_DECINO: 10 };
      const declared = (v.declarations || []).filter((d) => side(d.seat || 0) === s)
        .reduce((n, d) => n + (worth[d.kind] || 0), 0);
      pile.appendChild(el("h3", "", sideName(s, true) +
        ": " + v.capturedCounts[s] + " cards" + scope + (declared ? ", declared " + declared : "")));
      pile.appendChild(cards(v.capturedCards[s].cards || [], true));
      piles.appendChild(pile);
    }
    root.appendChild(piles);

    if (state.dealEnd) {
      const r = state.dealEnd.result;
      const box = el("div", "deal-end");
      box.id = "deal-end";
      box.appendChild(el("h2", "", "Last deal scored (deal " + (r.dealNumber + 1) + ")"));
      r.sides.forEach((x, s) => box.appendChild(el("p", "", sideName(s) +
        ": " + x.total + " (cards " + x.cards + ", denari " + x.denari + ", primiera " + x.primiera +
        (x.settebello ? ", settebello" : "") + (x.reBelloPoint ? ", re bello" : "") +
        (x.napolaPoint ? ", napola " + x.napolaPoint : "") +
        (x.grandePoint ? ", grande " + x.grandePoint : "") +
        (x.declaredPoint ? ", declared " + x.declaredPoint : "") + ", scope " + x.scope + ")")));
      box.appendChild(el("p", "", "match score " + r.matchScores.join(" - ")));
      root.appendChild(box);
    }
    if (state.result) {
      const r = state.result;
      const box = el("div", "result");
      box.id = "result";
      const won = r.winnerSide === undefined || r.winnerSide === null ? "no winner" :
        r.winnerSide === side(state.seat) ? "your side won" : "your side lost";
      box.appendChild(el("h2", "", "Match over: " + won + ", " + r.finalScores.join(" - ")));
      box.appendChild(el("p", "", r.reason));
      root.appendChild(box);
    }
    const help = el("p", "help", "Keys: 1-9 a card of your hand (in order), then 1-9 what it takes; " +
      "Esc goes back; d ticks or clears a declaration.");
    root.appendChild(help);
  }

  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.tagName === "INPUT") return;
    if (e.key === "Escape" && state.selected) {
      state.selected = null; state.message = ""; draw(); e.preventDefault(); return;
    }
    if (e.key === "d" && openDeclaration()) {
      state.declare = !state.declare; draw(); e.preventDefault(); return;
    }
    if (!/^[1-9]$/.test(e.key) || !state.view) return;
    const n = Number(e.key);
    if (state.selected) {
      const moves = legal().filter((m) => key(m.card) === state.selected);
      if (n <= moves.length) play(moves[n - 1]);
    } else {
      const hand = sorted(state.view.hand);
      if (n <= hand.length) choose(hand[n - 1]);
    }
    e.preventDefault();
  });

  setInterval(() => {
    const node = document.getElementById("clock");
    if (node) drawClock(node);
  }, 250);
  draw();
  if (secret) connect();
})();
