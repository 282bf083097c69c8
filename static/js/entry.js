/* Result entry forms: progressive enhancement only; the plain form works without it.
 * Tour grid: a cell click cycles 0 -> 1 -> ? -> 0, typing a mask redraws its cells, a question's header
 * marks it removed (X) for every team or restores it. Game form: "Add a seat" clones an empty seat row.
 * No inline scripts or handlers: a CSP forbids them. */
(function () {
  "use strict";

  var CYCLE = { "0": "1", "1": "?", "?": "0", "": "1" };

  function normalize(text) {
    return text.replace(/\s+/g, "").replace(/x/g, "X");
  }

  function markOf(mask, q) {
    return q < mask.length ? mask.charAt(q) : "";
  }

  function setupTour(form) {
    var questions = parseInt(form.getAttribute("data-questions"), 10) || 0;
    var rows = Array.prototype.slice.call(form.querySelectorAll("tr.entry-row"));

    function input(row) { return row.querySelector("input.mask-input"); }
    function absent(row) { return row.querySelector("input.absent-toggle"); }

    function padded(mask) {
      while (mask.length < questions) { mask += "0"; }
      return mask;
    }

    function draw(row) {
      var mask = normalize(input(row).value);
      var cells = row.querySelectorAll("button.cell");
      for (var q = 0; q < cells.length; q += 1) {
        var mark = markOf(mask, q);
        cells[q].setAttribute("data-mark", mark);
        cells[q].textContent = mark || "\u00b7";
        cells[q].disabled = absent(row).checked || mark === "X";
      }
      row.classList.toggle("absent", absent(row).checked);
    }

    function setMark(row, q, mark) {
      var mask = padded(normalize(input(row).value));
      input(row).value = mask.slice(0, q) + mark + mask.slice(q + 1);
      draw(row);
    }

    rows.forEach(function (row) {
      input(row).addEventListener("input", function () { draw(row); });
      absent(row).addEventListener("change", function () {
        if (!absent(row).checked && !normalize(input(row).value)) {
          input(row).value = padded("");
        }
        draw(row);
      });
      Array.prototype.forEach.call(row.querySelectorAll("button.cell"), function (cell) {
        cell.addEventListener("click", function () {
          var q = parseInt(cell.getAttribute("data-q"), 10);
          var mark = markOf(normalize(input(row).value), q);
          if (mark !== "X") {
            setMark(row, q, CYCLE[mark] || "0");
          }
        });
      });
      draw(row);
    });

    Array.prototype.forEach.call(form.querySelectorAll("button.col-toggle"), function (button) {
      button.disabled = false;
      button.addEventListener("click", function () {
        var q = parseInt(button.getAttribute("data-q"), 10);
        var playing = rows.filter(function (row) { return !absent(row).checked; });
        var removed = playing.length > 0 && playing.every(function (row) {
          return markOf(normalize(input(row).value), q) === "X";
        });
        playing.forEach(function (row) { setMark(row, q, removed ? "0" : "X"); });
        button.setAttribute("aria-pressed", removed ? "false" : "true");
      });
    });
  }

  function setupGame(form) {
    var add = form.querySelector("button.add-seat");
    var count = form.querySelector("input.seat-count");
    var body = form.querySelector("table.entry-seats tbody");
    if (!add || !count || !body) {
      return;
    }
    add.hidden = false;
    add.addEventListener("click", function () {
      var rows = body.querySelectorAll("tr.seat-row");
      var last = rows[rows.length - 1];
      if (!last) {
        return;
      }
      var index = parseInt(count.value, 10) || rows.length;
      var row = last.cloneNode(true);
      row.classList.remove("has-problems");
      row.setAttribute("data-index", String(index));
      row.querySelector(".seat-number").textContent = String(rows.length + 1);
      Array.prototype.forEach.call(row.querySelectorAll("input, select"), function (field) {
        field.name = field.name.replace(/^seat-\d+-/, "seat-" + index + "-");
        field.removeAttribute("aria-invalid");
        field.removeAttribute("aria-describedby");
        if (field.type === "checkbox") {
          field.checked = false;
        } else if (field.tagName === "SELECT") {
          field.selectedIndex = 0;
        } else {
          field.value = "";
        }
      });
      body.appendChild(row);
      count.value = String(index + 1);
      var first = row.querySelector("input[type=text]");
      if (first) {
        first.focus();
      }
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("form.tour-entry"), setupTour);
  Array.prototype.forEach.call(document.querySelectorAll("form.game-entry"), setupGame);
}());
