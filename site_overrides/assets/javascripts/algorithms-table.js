/* The algorithms index table: sort and filter (progressive enhancement).
 *
 * The page's HTML already holds every row (tinkernomics/site/pages/templates/
 * algorithms_table.html), so without JavaScript the table is complete and readable. This script
 * wires up the filter bar the page carries (name, year, memory, critic, reward model, Tinker loss,
 * ScaleRL fit; hidden without JavaScript), sort buttons in the headers that carry data-sort, a
 * live count ("18 of 27 algorithms"),
 * and paging (PAGE_ROWS at a time) so a catalog of a thousand entries stays one screen long.
 * The filters and the sort order live in the page address (?memory=high&sort=-year), so a link
 * shows the same rows, in a fresh tab or back from an algorithm's page: each control's key is
 * its data-param or its name, a value the page's select does not offer is ignored, and the sort
 * keys are the headers' data-sort. Other parameters and the #fragment are kept as they are.
 * Runs on every page Material's instant navigation shows (document$); only acts where a
 * .tn-algorithms table exists, once per table. No dependencies, nothing fetched.
 */
(function () {
  "use strict";

  var PAGE_ROWS = 50;
  /* The rows are held back until the table is wired up (algorithms-table.css), then shown
     REVEAL_ROWS a frame once the page is idle (Material's start-up done): the browser styles and
     lays out each batch in a frame of its own, instead of the whole table in one task that holds
     the page, and a reader's first tap, until it ends. */
  var REVEAL_ROWS = 5;
  var idle = window.requestIdleCallback ||
    function (fn) { return setTimeout(fn, 1); };  // Safari before 18.4
  var NUMERIC = { year: true, a: true, gb: true, usd: true };
  /* Columns that sort in the order their filter lists its values (memory: low, medium, high, as
     the page renders the catalog's profiles), read from the page's select, never repeated here. */
  var ORDERED = { memory: true };
  var SORT = "sort";  // ?sort=year ascending, ?sort=-year descending

  function plural(n) { return n + (n === 1 ? " algorithm" : " algorithms"); }

  /* The count in plain words: "All 27 algorithms", "18 of 27 algorithms", and when paging holds
     some back, how many of them are on screen. */
  function countText(shown, hits, total, filtered) {
    var text = filtered ? hits + " of " + plural(total) : "All " + plural(total);
    return shown < hits ? text + " (first " + shown + " shown)" : text;
  }

  /* The form's controls that belong in the address, with their key there. */
  function fields(form) {
    return Array.prototype.filter.call(form.elements, function (c) {
      return c.name && (c.tagName === "SELECT" || c.tagName === "INPUT");
    }).map(function (c) { return { control: c, key: c.getAttribute("data-param") || c.name }; });
  }

  /* Set each control from the address ("" when it names nothing the control offers). */
  function restoreFields(list, params) {
    list.forEach(function (f) {
      var want = params.get(f.key) || "", c = f.control;
      if (c.tagName === "SELECT") {
        var offered = Array.prototype.some.call(c.options, function (o) { return o.value === want; });
        c.value = offered ? want : "";
      } else {
        c.value = want.slice(0, 200);
      }
    });
  }

  function writeAddress(list, state) {
    var params = new URLSearchParams(location.search);
    list.forEach(function (f) {
      var v = f.control.value.trim();
      if (v) params.set(f.key, v); else params.delete(f.key);
    });
    if (state.sort) params.set(SORT, (state.dir < 0 ? "-" : "") + state.sort);
    else params.delete(SORT);
    var query = params.toString();
    var url = location.pathname + (query ? "?" + query : "") + location.hash;
    if (url !== location.pathname + location.search + location.hash) {
      history.replaceState(history.state, "", url);  // Material's instant navigation keeps its state
    }
  }

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
    var state = { shown: PAGE_ROWS, revealed: 0, sort: null, dir: 1 };
    var form = root.querySelector("form.tn-filters");  // in the page: showing it shifts nothing
    var name = form.querySelector('input[type="search"]');
    var list = fields(form);
    var selects = Array.prototype.map.call(form.querySelectorAll("select"), function (select) {
      return { f: { key: select.name, multi: select.hasAttribute("data-multi") }, select: select };
    });
    var more = el("div", { "class": "tn-algorithms__more" });
    var moreButton = el("button", { type: "button", "class": "md-button" }, "Show more");
    var allButton = el("button", { type: "button", "class": "md-button" }, "Show all");
    more.append(moreButton, allButton);
    table.closest(".tn-scroll").after(more);  // after the box and its scroll cue

    /* The filters and sort order the address names (a fresh tab, a shared link, the back button). */
    function restore() {
      var params = new URLSearchParams(location.search), want = params.get(SORT) || "";
      restoreFields(list, params);
      var key = want.replace(/^-/, "");
      var th = Array.prototype.find.call(table.querySelectorAll("thead th[data-sort]"),
        function (h) { return h.dataset.sort === key; });
      if (th) sortBy(th, want.charAt(0) === "-" ? -1 : 1); else update();
    }

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
        if (at >= state.revealed) state.revealed = at + 1;
      }
      var show = new Set(hit.slice(0, Math.min(state.shown, state.revealed)));
      // Touch only rows whose state changes: setting `hidden` on every row, even to the value it
      // has, makes the browser restyle the whole table (a long task on a slow phone).
      rows.forEach(function (row) {
        var hide = !show.has(row);
        if (row.hidden !== hide) row.hidden = hide;
      });
      var on = Math.min(hit.length, state.shown);
      var filtered = list.some(function (f) { return f.control.value.trim() !== ""; });
      var said = countText(on, hit.length, rows.length, filtered);
      // a live region: written only when it changes, or each batch shown would be read out again
      if (count.textContent !== said) count.textContent = said;
      more.hidden = on >= hit.length;
      writeAddress(list, state);
    }

    /* Sort by the header th, ascending or descending (dir 1 or -1). */
    function sortBy(th, dir) {
      var key = th.dataset.sort;
      state.dir = dir;
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
      button.addEventListener("click", function () {
        sortBy(th, state.sort === th.dataset.sort ? -state.dir : 1);
      });
    });
    form.addEventListener("input", function () { state.shown = PAGE_ROWS; update(); });
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    form.addEventListener("reset", function () {
      setTimeout(function () { state.shown = PAGE_ROWS; update(); }, 0);
    });
    moreButton.addEventListener("click", function () { state.shown += PAGE_ROWS; update(); });
    allButton.addEventListener("click", function () { state.shown = rows.length; update(); });
    table.dataset.tnWired = "1";
    restore();  // every row hidden (`hidden`): none revealed yet
    root.setAttribute("data-tn-wired", "1");  // rows now shown by `hidden` (algorithms-table.css)
    idle(reveal, { timeout: 1000 });

    /* A batch a frame, up to what the paging shows (the count already says it); then the table
       is ready (data-tn-ready on the section and the table, which tests wait for). */
    function reveal() {
      if (state.revealed >= Math.min(state.shown, rows.length)) {
        state.revealed = Infinity;
        update();
        root.setAttribute("data-tn-ready", "1");
        table.dataset.tnReady = "1";
        revealTarget(table);
        return;
      }
      requestAnimationFrame(function () {
        state.revealed += REVEAL_ROWS;
        update();
        reveal();
      });
    }
  }

  /* The browser could not scroll to a #row-... target while the table was held back (its rows
     were not laid out): scroll to it now that they are. */
  function revealTarget(table) {
    var id = hashId(location.hash);
    var target = id && document.getElementById(id);
    if (target && table.contains(target)) {
      requestAnimationFrame(function () { target.scrollIntoView(); });
    }
  }

  /* The id a #fragment names, percent-decoded; a malformed escape (#%, #%E0%A4) is not an
     error: it names the id written as it is, as the browser's own scroll to it does. */
  function hashId(hash) {
    var id = hash.slice(1);
    try {
      return decodeURIComponent(id);
    } catch (err) {
      return id;
    }
  }

  function scan() {
    document.querySelectorAll(".tn-algorithms table:not([data-tn-wired])").forEach(enhance);
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(scan);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", scan);
  } else {
    scan();
  }
})();
