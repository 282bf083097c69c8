/* Live standings (the project's own script, no library): a standings page whose table carries
 * data-live="VERSION-URL" polls that small JSON document every few seconds. When the stored table changes
 * (its stamp: snapshot_version and computed_at), the page fetches itself again and swaps in every element marked
 * data-live-part (the table, the chart, the players) without a reload; while a recompute is pending it shows
 * its "updating" notice. A hidden tab does not poll. */
(function () {
  "use strict";
  var root = document.querySelector("[data-live]");
  if (!root || !window.fetch || !window.DOMParser) {
    return;
  }
  var url = root.getAttribute("data-live");
  var every = Math.max(1, parseFloat(root.getAttribute("data-live-seconds")) || 3) * 1000;
  var stamp = root.getAttribute("data-live-stamp") || "";

  function showPending(pending) {
    var notices = document.querySelectorAll("[data-live-pending]");
    for (var i = 0; i < notices.length; i += 1) {
      notices[i].hidden = !pending;
    }
    document.documentElement.classList.toggle("live-pending", !!pending);
  }

  function swap(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    var parts = document.querySelectorAll("[data-live-part]");
    for (var i = 0; i < parts.length; i += 1) {
      var id = parts[i].id;
      var next = id ? fresh.getElementById(id) : null;
      if (next) {
        parts[i].replaceWith(document.importNode(next, true));
      }
    }
    var added = fresh.querySelectorAll("[data-live-part]");
    for (var j = 0; j < added.length; j += 1) {
      if (added[j].id && !document.getElementById(added[j].id)) {
        document.querySelector("main").appendChild(document.importNode(added[j], true));
      }
    }
    root = document.querySelector("[data-live]") || root;
    stamp = root.getAttribute("data-live-stamp") || stamp;
    document.dispatchEvent(new CustomEvent("live:updated"));
  }

  function refresh(next) {
    return fetch(window.location.href, {credentials: "same-origin", cache: "no-store"})
      .then(function (response) {
        if (!response.ok) {
          throw new Error(String(response.status));
        }
        return response.text();
      })
      .then(function (html) {
        swap(html);
        stamp = next;
      });
  }

  function tick() {
    if (document.visibilityState === "hidden") {
      window.setTimeout(tick, every);
      return;
    }
    fetch(url, {credentials: "same-origin", cache: "no-store"})
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(function (version) {
        if (!version) {
          return null;
        }
        showPending(version.pending);
        var next = version.stamp || "";
        if (next !== stamp) {
          return refresh(next).then(function () {
            showPending(version.pending);
          });
        }
        return null;
      })
      .catch(function () { /* the next poll tries again */ })
      .then(function () {
        window.setTimeout(tick, every);
      });
  }

  window.setTimeout(tick, every);
}());
