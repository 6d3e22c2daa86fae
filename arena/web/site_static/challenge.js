// Opens a challenge (arena/web/challenges.py): the participant's token goes in
// the Authorization header of this one request, never in an address; the
// answer is the seat's address, whose secret is in its fragment.
(function () {
  "use strict";
  var form = document.getElementById("challenge-form");
  if (!form) { return; }
  var message = document.getElementById("challenge-message");
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var token = form.elements.token.value.trim();
    message.textContent = "opening the challenge...";
    fetch("/api/challenges", {
      method: "POST",
      headers: { "Authorization": "Bearer " + token, "Content-Type": "application/json" },
      body: JSON.stringify({ opponent: form.elements.opponent.value }),
      cache: "no-store",
      credentials: "omit",
    }).then(function (r) {
      return r.json().then(function (d) { return { status: r.status, data: d }; });
    }).then(function (r) {
      if (r.status === 201) {
        location.assign(r.data.seat);
      } else {
        message.textContent = r.data.error || ("could not open the challenge (" + r.status + ")");
      }
    }).catch(function () { message.textContent = "the server cannot be reached"; });
  });
})();
