// The ccfn inspector's live list: rows arrive as server-sent events and
// are put in place, newest first. And a call's page, while its simulated
// call goes on, is drawn again each second. Everything else works
// without it.
(function () {
  "use strict";
  var call = document.getElementById("call");
  if (!call || !call.hasAttribute("data-live") || !window.fetch) {
    return;
  }
  function again() {
    fetch(window.location.href, { cache: "no-store", credentials: "same-origin" })
      .then(function (response) {
        return response.ok ? response.text() : null;
      })
      .then(function (text) {
        var drawn = text && new DOMParser().parseFromString(text, "text/html").getElementById("call");
        if (drawn) {
          call.replaceWith(drawn);
          call = drawn;
        }
        if (call.hasAttribute("data-live")) {
          window.setTimeout(again, 1000);
        }
      })
      .catch(function () {
        window.setTimeout(again, 5000);
      });
  }
  window.setTimeout(again, 1000);
})();

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
