/* The algorithms index table: sort and filter (progressive enhancement).
 *
 * The page's HTML already holds every row (tinkernomics/site/pages/templates/
 * algorithms_table.html), so without JavaScript the table is complete and readable. This script
 * wires up the filter bar the page carries (name, year, memory, critic, reward model, Tinker loss,
 * ScaleRL fit; hidden without JavaScript), sort buttons in the headers that carry data-sort, a
 * live count,
 * and paging (PAGE_ROWS at a time) so a catalog of a thousand entries stays one screen long.
 * Runs on every page Material's instant navigation shows (document$); only acts where a
 * .tn-algorithms table exists, once per table. No dependencies, nothing fetched.
 */
(function () {
  "use strict";

  var PAGE_ROWS = 50;
  var NUMERIC = { year: true, a: true, gb: true, usd: true };
  /* Columns that sort in the order their filter lists its values (memory: low, medium, high, as
     the page renders the catalog's profiles), read from the page's select, never repeated here. */
  var ORDERED = { memory: true };

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* value -> position in the filter select named key (values it does not list go last). */
  function ranks(form, key) {
    var select = form.querySelector('select[name="' + key + '"]'), rank = {};
    Array.prototype.forEach.call(select ? select.options : [], function (o, i) { if (o.value) rank[o.value] = i; });
    return function (v) { return Object.prototype.hasOwnProperty.call(rank, v) ? rank[v] : Infinity; };
  }

  function compare(key, dir, rank) {
    return function (a, b) {
      var x = a.dataset[key] || "", y = b.dataset[key] || "", r;
      if (x === "" || y === "") return (x === "") - (y === "");  // blanks last either way
      r = rank ? rank(x) - rank(y) || x.localeCompare(y)
        : NUMERIC[key] ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
      if (r === 0) r = a.dataset.name.localeCompare(b.dataset.name);
      return dir * r;
    };
  }

  function enhance(table) {
    var root = table.closest(".tn-algorithms");
    var tbody = table.tBodies[0];
    var rows = Array.prototype.slice.call(tbody.rows);
    var count = root.querySelector(".tn-algorithms__count");
    var state = { shown: PAGE_ROWS, sort: null, dir: 1 };
    var form = root.querySelector("form.tn-filters");  // in the page: showing it shifts nothing
    var name = form.elements.q;
    var selects = Array.prototype.map.call(form.querySelectorAll("select"), function (select) {
      return { f: { key: select.name, multi: select.hasAttribute("data-multi") }, select: select };
    });
    var more = el("div", { "class": "tn-algorithms__more" });
    var moreButton = el("button", { type: "button", "class": "md-button" }, "Show more");
    var allButton = el("button", { type: "button", "class": "md-button" }, "Show all");
    more.append(moreButton, allButton);
    table.closest(".tn-table-wrap").after(more);

    function matches(row) {
      var q = name.value.trim().toLowerCase();
      if (q && row.cells[0].textContent.toLowerCase().indexOf(q) < 0) return false;
      return selects.every(function (s) {
        var want = s.select.value, have = row.dataset[s.f.key] || "";
        if (!want) return true;
        return s.f.multi ? have.split(" ").indexOf(want) >= 0 : have === want;
      });
    }

    function update() {
      var hit = rows.filter(matches);
      var target = location.hash.indexOf("#row-") === 0 ? location.hash.slice(1) : null;
      if (target) {
        var at = hit.findIndex(function (r) { return r.id === target; });
        if (at >= state.shown) state.shown = at + 1;
      }
      var show = new Set(hit.slice(0, state.shown));
      // Touch only rows whose state changes: setting `hidden` on every row, even to the value it
      // has, makes the browser restyle the whole table (a long task on a slow phone).
      rows.forEach(function (row) {
        var hide = !show.has(row);
        if (row.hidden !== hide) row.hidden = hide;
      });
      var on = Math.min(hit.length, state.shown);
      count.textContent = hit.length === rows.length && on === rows.length
        ? rows.length + " algorithms."
        : "Showing " + on + " of " + hit.length + " matching (" + rows.length + " algorithms).";
      more.hidden = on >= hit.length;
    }

    function sortBy(th) {
      var key = th.dataset.sort;
      state.dir = state.sort === key ? -state.dir : 1;
      state.sort = key;
      rows.sort(compare(key, state.dir, ORDERED[key] ? ranks(form, key) : null));
      var frag = document.createDocumentFragment();
      rows.forEach(function (row) { frag.append(row); });
      tbody.append(frag);
      table.querySelectorAll("th[data-sort]").forEach(function (h) {
        if (h === th) h.setAttribute("aria-sort", state.dir > 0 ? "ascending" : "descending");
        else h.removeAttribute("aria-sort");
      });
      update();
    }

    table.querySelectorAll("thead th[data-sort]").forEach(function (th) {
      var button = el("button", { type: "button", "class": "tn-sort" });
      while (th.firstChild) button.append(th.firstChild);
      button.title = "Sort by " + button.textContent.trim();
      th.append(button);
      button.addEventListener("click", function () { sortBy(th); });
    });
    form.addEventListener("input", function () { state.shown = PAGE_ROWS; update(); });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.addEventListener("reset", function () {
      setTimeout(function () { state.shown = PAGE_ROWS; update(); }, 0);
    });
    moreButton.addEventListener("click", function () { state.shown += PAGE_ROWS; update(); });
    allButton.addEventListener("click", function () { state.shown = rows.length; update(); });
    table.dataset.tnReady = "1";
    update();
  }

  function scan() {
    document.querySelectorAll(".tn-algorithms table:not([data-tn-ready])").forEach(enhance);
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(scan);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", scan);
  } else {
    scan();
  }
})();
