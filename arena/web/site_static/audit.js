// The organiser's audit page (arena/web/audit.py): the token goes in the
// Authorization header of this one request, never in an address or storage.
(function () {
  "use strict";
  var form = document.getElementById("audit-form");
  var out = document.getElementById("audit");
  if (!form || !out) { return; }
  var message = document.getElementById("audit-message");
  var cid = out.getAttribute("data-competition");

  function cell(row, text) {
    var td = document.createElement("td");
    td.textContent = text;
    row.appendChild(td);
  }

  function p(value) {
    if (value === null || value === undefined) { return "-"; }
    var text = value < 1e-4 ? value.toExponential(1) : value.toPrecision(2);
    return value < 0.01 ? text + " (look)" : text;
  }

  function table(heads, rows) {
    var t = document.createElement("table");
    var head = document.createElement("tr");
    heads.forEach(function (h) {
      var th = document.createElement("th");
      th.textContent = h;
      head.appendChild(th);
    });
    t.appendChild(head);
    rows.forEach(function (values) {
      var tr = document.createElement("tr");
      values.forEach(function (v) { cell(tr, String(v)); });
      t.appendChild(tr);
    });
    return t;
  }

  function heading(text) {
    var h = document.createElement("h2");
    h.textContent = text;
    return h;
  }

  function show(data) {
    out.textContent = "";
    out.appendChild(heading("Probes (" + data.logs + " finished matches)"));
    if (!data.probes.length) {
      var none = document.createElement("p");
      none.textContent = "No probed decision yet.";
      out.appendChild(none);
    } else {
      out.appendChild(table(
        ["partnership", "decisions", "probes", "unanswered", "disagree", "expected", "p"],
        data.probes.map(function (s) {
          return [s.partnership.join(" + "), s.decisions, s.probes, s.unanswered,
            s.disagreements, s.expected.toFixed(1), p(s.p_value)];
        })));
    }
    out.appendChild(heading("Log audit (the last `arena remote audit`)"));
    var values = data.saved && data.saved.values;
    if (!values) {
      var never = document.createElement("p");
      never.textContent = "Not run yet: `arena remote audit " + cid + "` runs it and saves it here.";
      out.appendChild(never);
      return;
    }
    out.appendChild(table(
      ["partnership", "decisions", "matches", "control", "effect", "p"],
      values.partnerships.map(function (s) {
        return [s.names.join(" + "), s.decisions, s.matches, s.control,
          Number(s.effect).toFixed(3), p(s.p_value)];
      })));
  }

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    message.textContent = "reading the logs...";
    fetch("/api/c/" + encodeURIComponent(cid) + "/audit", {
      headers: { "Authorization": "Bearer " + form.elements.token.value.trim() },
      cache: "no-store",
      credentials: "omit",
    }).then(function (r) {
      return r.json().then(function (d) { return { status: r.status, data: d }; });
    }).then(function (r) {
      if (r.status === 200) {
        message.textContent = "";
        show(r.data);
      } else {
        message.textContent = r.data.error || ("refused (" + r.status + ")");
      }
    }).catch(function () { message.textContent = "the server cannot be reached"; });
  });
})();
