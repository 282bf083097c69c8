/* Tournament portal: sortable tables and the print button. No library, no inline script (CSP).
 *
 * Every standings and players table (and any table.sortable) gets a button in each column heading: a click sorts
 * the rows of each of its bodies by that column, ascending, then descending; the heading says so in aria-sort.
 * A column whose filled cells all read as numbers ("8,4", "−1.5", "3–4" for a shared place) sorts as numbers,
 * any other as text in the page's language; a cell's data-sort-value wins over its text. Tables that arrive later
 * (a live table replaced in place) are made sortable too. A button with data-print prints the page.
 */
(function () {
  "use strict";
  var SELECTOR = "table.standings-table, table.players-table, table.sortable";
  var language = document.documentElement.lang || "ru";
  var collator = window.Intl ? new Intl.Collator(language, { numeric: true, sensitivity: "base" }) : null;

  function cellValue(row, index) {
    var cell = row.cells[index];
    if (!cell) { return ""; }
    var given = cell.getAttribute("data-sort-value");
    return (given !== null ? given : cell.textContent).trim();
  }

  function asNumber(text) {
    if (text === "" || text === "—" || text === "-") { return null; }
    var cleaned = text.replace(/\u2212/g, "-").replace(/\s/g, "").replace(/[–—].*$/, "").replace(",", ".");
    if (!/^[-+]?\d+(\.\d+)?%?$/.test(cleaned)) { return NaN; }
    return parseFloat(cleaned);
  }

  function sortBy(table, index, heading) {
    var descending = heading.getAttribute("aria-sort") === "ascending";
    var headings = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(headings, function (th) { th.removeAttribute("aria-sort"); });
    heading.setAttribute("aria-sort", descending ? "descending" : "ascending");
    Array.prototype.forEach.call(table.tBodies, function (body) {
      var rows = Array.prototype.slice.call(body.rows);
      var numbers = rows.map(function (row) { return asNumber(cellValue(row, index)); });
      var numeric = numbers.some(function (n) { return n !== null; }) &&
        numbers.every(function (n) { return n === null || !isNaN(n); });
      var keyed = rows.map(function (row, position) {
        return { row: row, position: position, number: numbers[position], text: cellValue(row, index) };
      });
      keyed.sort(function (a, b) {
        var order;
        if (numeric) {
          if (a.number === null || b.number === null) {  // empty cells last, whatever the direction
            return (a.number === null) - (b.number === null) || a.position - b.position;
          }
          order = a.number - b.number;
        } else {
          order = collator ? collator.compare(a.text, b.text) : (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);
        }
        return (descending ? -order : order) || a.position - b.position;
      });
      keyed.forEach(function (item) { body.appendChild(item.row); });
    });
  }

  function enhance(table) {
    if (table.getAttribute("data-sortable") === "on" || !table.tHead || !table.tHead.rows.length) { return; }
    table.setAttribute("data-sortable", "on");
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (heading, index) {
      if (heading.colSpan > 1) { return; }
      var button = document.createElement("button");
      button.type = "button";
      button.className = "sort-button";
      while (heading.firstChild) { button.appendChild(heading.firstChild); }
      heading.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, index, heading); });
    });
  }

  function enhanceAll(root) {
    Array.prototype.forEach.call((root || document).querySelectorAll(SELECTOR), enhance);
  }

  function start() {
    enhanceAll(document);
    document.addEventListener("click", function (event) {
      var target = event.target.closest ? event.target.closest("[data-print]") : null;
      if (target) { event.preventDefault(); window.print(); }
    });
    if (window.MutationObserver) {
      new MutationObserver(function () { enhanceAll(document); }).observe(document.body, { childList: true, subtree: true });
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
}());
