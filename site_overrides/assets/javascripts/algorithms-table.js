/* The algorithms index table: sort and filter (progressive enhancement).
 *
 * The page's HTML already holds every row (tinkernomics/site/pages/templates/
 * algorithms_table.html), so without JavaScript the table is complete and readable. This script
 * adds: a filter bar (name, year, memory, critic, reward model, Tinker loss, ScaleRL fit) built
 * from the rows' data-* values, sort buttons in the headers that carry data-sort, a live count,
 * and paging (PAGE_ROWS at a time) so a catalog of a thousand entries stays one screen long.
 * Runs on every page Material's instant navigation shows (document$); only acts where a
 * .tn-algorithms table exists, once per table. No dependencies, nothing fetched.
 */
(function () {
  "use strict";

  var PAGE_ROWS = 50;
  var MEMORY_RANK = { low: "1", medium: "2", high: "3" };
  var NUMERIC = { year: true, a: true };
  var FILTERS = [
    { key: "year", label: "Year" },
    { key: "memory", label: "Memory", order: ["low", "medium", "high"] },
    { key: "critic", label: "Critic", order: ["yes", "no"] },
    { key: "reward", label: "Reward model", order: ["yes", "no"] },
    { key: "loss", label: "Tinker loss", multi: true },
    { key: "fit", label: "ScaleRL fit", order: ["yes", "no"] },
  ];

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function valuesOf(rows, f) {
    var seen = {};
    rows.forEach(function (row) {
      var v = row.dataset[f.key] || "";
      (f.multi ? v.split(" ") : [v]).forEach(function (x) { if (x) seen[x] = true; });
    });
    var found = Object.keys(seen);
    if (f.order) return f.order.filter(function (x) { return seen[x]; });
    if (f.key === "year") return found.sort().reverse();
    return found.sort(function (a, b) {
      return (a === "none") - (b === "none") || a.localeCompare(b);
    });
  }

  function sortKey(row, key) {
    var v = row.dataset[key] || "";
    if (key === "memory") return MEMORY_RANK[v] || "9";
    return v;
  }

  function compare(key, dir) {
    return function (a, b) {
      var x = sortKey(a, key), y = sortKey(b, key), r;
      if (x === "" || y === "") return (x === "") - (y === "");  // blanks last either way
      r = NUMERIC[key] ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
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
    var form = el("form", { "class": "tn-filters", role: "search",
                            "aria-label": "Filter the algorithms" });
    var name = el("input", { type: "search", name: "q", placeholder: "Name contains…",
                             "aria-label": "Algorithm name contains", autocomplete: "off" });
    var nameLabel = el("label", { "class": "tn-filters__field" });
    nameLabel.append(el("span", {}, "Name"), name);
    form.append(nameLabel);
    var selects = FILTERS.map(function (f) {
      var label = el("label", { "class": "tn-filters__field" });
      var select = el("select", { name: f.key });
      select.append(el("option", { value: "" }, "any"));
      valuesOf(rows, f).forEach(function (v) { select.append(el("option", { value: v }, v)); });
      label.append(el("span", {}, f.label), select);
      form.append(label);
      return { f: f, select: select };
    });
    var reset = el("button", { type: "reset", "class": "md-button tn-filters__reset" }, "Clear");
    form.append(reset);
    var more = el("div", { "class": "tn-algorithms__more" });
    var moreButton = el("button", { type: "button", "class": "md-button" }, "Show more");
    var allButton = el("button", { type: "button", "class": "md-button" }, "Show all");
    more.append(moreButton, allButton);
    root.insertBefore(form, count);
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
      var visible = 0;
      rows.forEach(function (row) { row.hidden = true; });
      hit.forEach(function (row) { row.hidden = visible++ >= state.shown; });
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
      rows.sort(compare(key, state.dir));
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
