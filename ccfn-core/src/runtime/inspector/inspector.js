// The ccfn inspector's live list: rows arrive as server-sent events and
// are put in place, newest first. Everything else works without it.
(function () {
  "use strict";
  var rows = document.getElementById("invocations");
  if (!rows || !window.EventSource) {
    return;
  }
  var live = document.getElementById("live");
  var keep = parseInt(rows.getAttribute("data-capacity"), 10) || 200;
  var source = new EventSource(rows.getAttribute("data-events"));
  source.onopen = function () {
    live.textContent = "live";
    live.className = "live on";
  };
  source.onerror = function () {
    live.textContent = "reconnecting…";
    live.className = "live";
  };
  // The server restarted since this page was drawn: its rows are gone.
  source.addEventListener("hello", function (message) {
    if (message.data !== rows.getAttribute("data-epoch")) {
      window.location.reload();
    }
  });
  // Some changes were missed: the page is drawn again.
  source.addEventListener("reload", function () {
    window.location.reload();
  });
  source.addEventListener("row", function (message) {
    var change = JSON.parse(message.data);
    var old = document.getElementById("inv-" + change.id);
    if (change.html === null) {
      if (old) {
        old.remove();
      }
      return;
    }
    var template = document.createElement("template");
    template.innerHTML = change.html;
    var row = template.content.firstElementChild;
    row.classList.add("fresh");
    if (old) {
      old.replaceWith(row);
      return;
    }
    // Newest first: before the first row that is older.
    var next = rows.firstElementChild;
    while (next && Number(next.getAttribute("data-seq")) > change.seq) {
      next = next.nextElementSibling;
    }
    rows.insertBefore(row, next);
    var empty = document.getElementById("empty");
    if (empty) {
      empty.remove();
    }
    while (rows.children.length > keep) {
      rows.lastElementChild.remove();
    }
  });
})();
