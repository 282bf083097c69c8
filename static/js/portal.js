/* Tournament portal: the only script of the public pages (no inline scripts: a CSP forbids them).
 * A page whose table is being recomputed carries data-refresh="SECONDS" on <body>: reload it then,
 * unless the reader has scrolled away from the top or the tab is hidden. */
(function () {
  "use strict";
  var seconds = parseInt(document.body && document.body.getAttribute("data-refresh"), 10);
  if (!seconds || seconds < 5) {
    return;
  }
  window.setTimeout(function () {
    if (document.visibilityState !== "hidden" && window.scrollY < 200) {
      window.location.reload();
    }
  }, seconds * 1000);
}());
