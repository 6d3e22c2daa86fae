// The web site's own script: mounts the match viewer (live from the server's
// event stream while the match is played) and refreshes a competition's
// standings when a match ends. Everything from the server is set as text.
(function () {
  "use strict";

  function text(tag, value, cls) {
    var el = document.createElement(tag);
    el.textContent = String(value);
    if (cls) { el.className = cls; }
    return el;
  }

  // An event stream the site refused (too many open from this address, or in
  // all): EventSource gives no status or reason, so ask once more with fetch and
  // show the site's words. A stream that opens this time is closed at once.
  function explainRefusal(url, node) {
    if (!node || !window.fetch || !window.AbortController) { return; }
    var asking = new AbortController();
    fetch(url, { signal: asking.signal, headers: { "Accept": "application/json" } })
      .then(function (r) {
        if (r.ok) {
          asking.abort();
          node.textContent = "the live stream closed: reload the page to follow it again";
          return;
        }
        return r.json().then(function (d) {
          node.textContent = "not followed live: " + (d.error || "refused (" + r.status + ")");
          node.setAttribute("data-refused", String(r.status));
        });
      })
      .catch(function () { /* the page keeps what it said */ });
  }

  function mountMatch() {
    var root = document.getElementById("viewer");
    var source = document.getElementById("viewer-data");
    if (!root || !source || !window.ScopaViewer) { return; }
    var data = JSON.parse(source.textContent);
    var faces = root.getAttribute("data-faces") || "italian";
    var viewer = window.ScopaViewer.mount(root, data, { faces: faces });
    var live = root.getAttribute("data-live");
    if (!live) { return; }
    var status = document.getElementById("live-status");
    var count = 0;
    var events = new EventSource(live);
    events.addEventListener("frame", function (e) {
      viewer.append(JSON.parse(e.data));
      count += 1;
      viewer.show(count - 1);
      if (status) { status.textContent = "live: " + count + " frame(s)"; }
    });
    events.addEventListener("end", function () {
      events.close();
      if (status) { status.textContent = "the match has ended"; }
      document.body.setAttribute("data-live-ended", "1");
      readResult(10);
    });
    // The result as every page writes it, from the match's own JSON twin, once
    // the store has it (it is recorded just after the last event is sent).
    function readResult(tries) {
      fetch(location.pathname + "?format=json", { headers: { "Accept": "application/json" } })
        .then(function (r) { return r.json(); })
        .then(function (d) {
          if (d.match.status !== "done" && tries > 1) {
            setTimeout(function () { readResult(tries - 1); }, 500);
            return;
          }
          var result = document.getElementById("match-result");
          if (result) { result.textContent = d.match.result; }
          document.body.setAttribute("data-result-read", "1");
        })
        .catch(function () { /* the page keeps what it said */ });
    }
    events.onerror = function () {
      if (events.readyState === EventSource.CLOSED && status) {
        status.textContent = "the live stream closed";
        explainRefusal(live, status);
      }
    };
  }

  function fillStandings(table, rows) {
    var body = table.tBodies[0];
    while (body.firstChild) { body.removeChild(body.firstChild); }
    rows.forEach(function (r) {
      var tr = document.createElement("tr");
      var link = document.createElement("a");
      link.textContent = r.bot;
      link.href = table.getAttribute("data-engine-base") + encodeURIComponent(r.bot);
      var name = document.createElement("td");
      name.appendChild(link);
      if (r.baseline) {
        var tag = text("span", "baseline", "tag");
        tag.title = "a built-in strategy the organiser entered as a yardstick";
        name.appendChild(tag);
      }
      if (r.sees_every_hand) {
        var seeing = text("span", "sees every hand", "tag");
        seeing.title = "shown every hand: a research bound, not a fair player";
        name.appendChild(seeing);
      }
      tr.appendChild(text("td", r.rank));
      tr.appendChild(name);
      tr.appendChild(text("td", r.elo.toFixed(1)));
      tr.appendChild(text("td", "[" + r.elo_low.toFixed(1) + ", " + r.elo_high.toFixed(1) + "]"));
      tr.appendChild(text("td", r.played));
      tr.appendChild(text("td", r.wins + "/" + r.draws + "/" + r.losses));
      tr.appendChild(text("td", r.faults));
      body.appendChild(tr);
    });
  }

  // As pages.versions_table writes them.
  function fillVersions(table, versions) {
    var body = table.tBodies[0];
    var base = document.getElementById("standings").getAttribute("data-engine-base");
    while (body.firstChild) { body.removeChild(body.firstChild); }
    versions.forEach(function (v) {
      var tr = document.createElement("tr");
      var link = text("a", v.player);
      link.href = base + encodeURIComponent(v.player);
      var player = document.createElement("td");
      player.className = "nowrap";
      player.appendChild(link);
      tr.appendChild(player);
      tr.appendChild(text("td", v.owner));
      tr.appendChild(text("td", v.state));
      tr.appendChild(text("td", v.reason, "why"));
      tr.appendChild(text("td", (v.live_rating < 0 ? "-" : "+") +
        Math.abs(Math.round(v.live_rating)) + " \u00b1 " + Math.round(2 * v.live_sigma),
        "nowrap"));
      tr.appendChild(text("td", v.sets));
      tr.appendChild(text("td", v.entered_at, "nowrap"));
      body.appendChild(tr);
    });
  }

  function matchUrl(key) {
    var cut = key.indexOf("/");
    return "/m/" + encodeURIComponent(key.slice(0, cut)) + "/" +
      encodeURIComponent(key.slice(cut + 1));
  }

  function fillRunning(list, keys) {
    while (list.firstChild) { list.removeChild(list.firstChild); }
    keys.forEach(function (key) {
      var item = document.createElement("li");
      var link = text("a", key);
      link.href = matchUrl(key);
      item.appendChild(link);
      list.appendChild(item);
    });
  }

  function fillLatest(list, matches) {
    while (list.firstChild) { list.removeChild(list.firstChild); }
    matches.forEach(function (m) {
      var item = document.createElement("li");
      var link = text("a", m.id.slice(m.id.indexOf("/") + 1));
      link.href = matchUrl(m.id);
      item.appendChild(link);
      item.appendChild(document.createTextNode(": " + m.result));
      list.appendChild(item);
    });
  }

  // The server says when a match ends (an event stream); the page then reads
  // its own JSON twin again: progress, standings and the matches being played.
  function watchCompetition() {
    var page = document.getElementById("competition");
    if (!page) { return; }
    var api = page.getAttribute("data-api");
    if (page.getAttribute("data-status") !== "running") { return; }
    var refreshed = 0;
    function refresh() {
      fetch(api, { headers: { "Accept": "application/json" } })
        .then(function (r) { return r.json(); })
        .then(function (d) {
          var progress = document.getElementById("progress-text");
          if (progress) {
            progress.textContent = d.competition.matches_done + " of " +
              d.competition.matches_total + " matches";
          }
          var table = document.getElementById("standings");
          if (table && d.standings.rows) { fillStandings(table, d.standings.rows); }
          var versions = document.getElementById("versions");
          if (versions && d.ladder) { fillVersions(versions, d.ladder.versions); }
          var running = document.getElementById("running");
          if (running) { fillRunning(running, d.running); }
          var latest = document.getElementById("latest");
          if (latest) { fillLatest(latest, d.latest); }
          refreshed += 1;
          page.setAttribute("data-refreshed", String(refreshed));
        })
        .catch(function () { /* the next match's end tries again */ });
    }
    var url = page.getAttribute("data-results");
    var results = new EventSource(url);
    results.addEventListener("result", refresh);
    results.onerror = function () {
      if (results.readyState !== EventSource.CLOSED) { return; }
      var note = document.getElementById("results-status");
      if (!note) {
        note = text("p", "");
        note.id = "results-status";
        page.insertBefore(note, page.firstChild);
      }
      explainRefusal(url, note);
    };
  }

  mountMatch();
  watchCompetition();
})();
