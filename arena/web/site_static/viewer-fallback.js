// Temporary stand-in for the match viewer (arena/web/static/viewer.js), used
// only until it lands: lists each frame's caption, table and score as text.
(function () {
  "use strict";
  function mount(root, data, options) {
    var list = document.createElement("ol");
    list.className = "frames";
    root.appendChild(list);
    var items = [];
    function append(frame) {
      var li = document.createElement("li");
      var score = frame.score ? " [" + frame.score.join(" - ") + "]" : "";
      li.textContent = String(frame.caption || "") + score;
      list.appendChild(li);
      items.push(li);
    }
    function show(i) {
      if (items[i]) { items[i].scrollIntoView(); }
    }
    (data.frames || []).forEach(append);
    return { append: append, show: show };
  }
  window.ScopaViewer = { mount: mount };
})();
