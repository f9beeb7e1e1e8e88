/* tinker-nomics compare view (compare/, tinkernomics.site.compare).
 *
 * The page arrives complete: a table comparing the featured algorithms, rendered at build.
 * This file only re-columns it. The selection lives in the page address (?a=grpo&a=dapo, two
 * to four, in order): on load the address is read, the selects are set, and each algorithm's
 * column is taken from the page or fetched: the "column" of the algorithm's file
 * (data-tn-columns + <id>.json), written at build by the same code as the page's cells, less
 * what unshare() and restore() put back: the pieces it shares with other columns, held once in
 * data-tn-shared. A change of the selects rewrites
 * the address (history.replaceState), so a copied link, or a fresh tab, shows the same table.
 * Nothing here knows a value or a rule: the choices are the selects' options, the limits the
 * root's data-tn-min / data-tn-max, the rows the table's data-tn-row keys.
 */
(function () {
  "use strict";

  /* The page lists the choices once, in the first select; the others hold only their own
     choice (tinkernomics.site.compare, compare.html): each gets a copy of the list, keeping
     its "(none)" and its value. */
  function fillSelects(root) {
    var selects = root.querySelectorAll("select[name=a]");
    var choices = Array.prototype.filter.call(selects[0].options, function (o) { return o.value; });
    Array.prototype.forEach.call(selects, function (select, i) {
      if (i === 0) return;
      var value = select.value;
      Array.prototype.filter.call(select.options, function (o) { return o.value; })
        .forEach(function (o) { o.remove(); });
      choices.forEach(function (o) {
        var copy = o.cloneNode(true);
        copy.defaultSelected = copy.value === value;
        select.appendChild(copy);
      });
      select.value = value;
    });
  }

  function known(root) {
    var select = root.querySelector("select[name=a]");
    return select ? Array.prototype.map.call(select.options, function (o) { return o.value; })
      .filter(Boolean) : [];
  }

  function unique(ids) {
    return ids.filter(function (id, i) { return id && ids.indexOf(id) === i; });
  }

  function fromAddress(root) {
    var ids = new URLSearchParams(window.location.search).getAll("a");
    var valid = known(root);
    return unique(ids).filter(function (id) { return valid.indexOf(id) !== -1; });
  }

  function fromSelects(root) {
    return unique(Array.prototype.map.call(root.querySelectorAll("select[name=a]"),
      function (s) { return s.value; }));
  }

  function setSelects(root, ids) {
    root.querySelectorAll("select[name=a]").forEach(function (s, i) { s.value = ids[i] || ""; });
  }

  /* The cells of one column, by row key (thead: "head"). Columns and cells are kept in Maps,
     never as properties of a plain object: an algorithm id such as "constructor", "__proto__"
     or "toString" is a property every object already holds. */
  function cellsOf(table, id) {
    var cells = new Map();
    table.querySelectorAll("[data-tn-algo=\"" + CSS.escape(id) + "\"]").forEach(function (cell) {
      var row = cell.closest("tr");
      cells.set(row.getAttribute("data-tn-row") || "head", cell);
    });
    return cells;
  }

  function fetched(url, read) {
    return fetch(url).then(function (response) {
      if (!response.ok) throw new Error(url + ": " + response.status);
      return read(response);
    });
  }

  /* The pieces of HTML two or more columns share, fetched once (data-tn-shared; written
     by tinkernomics.site.compare.shared): a column holds <tn-s data-k="n"></tn-s> where
     the n-th piece was. Catalog text is escaped in the files, so only the build writes a "<". */
  function sharedPieces(root) {
    if (!root.tnShared) {
      root.tnShared = fetched(root.getAttribute("data-tn-shared"), function (response) {
        return response.json();
      }).catch(function (err) {
        root.tnShared = null;
        throw err;
      });
    }
    return root.tnShared;
  }

  function unshare(text, pieces) {
    return text.replace(/<tn-s data-k="(\d+)"><\/tn-s>/g, function (ref, k) {
      var piece = pieces[Number(k)];
      return typeof piece === "string" ? piece : "";
    });
  }

  /* An algorithm's column: the "column" of its file (data-tn-columns + <id>.json, written by
     tinkernomics.site.algorithmfiles; the calculator reads the same file's other keys). */
  function fetchColumn(root, id) {
    var url = root.getAttribute("data-tn-columns") + encodeURIComponent(id) + ".json";
    return Promise.all([
      fetched(url, function (response) { return response.json(); }),
      sharedPieces(root)
    ]).then(function (got) {
      var column = got[0] && typeof got[0].column === "string" ? got[0].column : "";
      if (!column) throw new Error(url + ": no column");
      var doc = new DOMParser().parseFromString(unshare(column, got[1]), "text/html");
      return cellsOf(restore(doc, id), id);
    });
  }

  /* A column leaves out what this restores from the column itself
     (tinkernomics.site.compare.feature.column_html): the cells' labels, which the heading holds,
     and the hover text of a reference's citations after its first, which that one holds. */
  function restore(doc, id) {
    var head = doc.querySelector("thead [data-tn-algo]");
    var name = head ? head.textContent.trim() : id;
    doc.querySelectorAll("tbody tr[data-tn-row] > td").forEach(function (td) {
      td.setAttribute("data-tn-algo", id);
      td.setAttribute("data-label", name);
    });
    var titles = new Map();
    doc.querySelectorAll("a.tn-cite[href]").forEach(function (a) {
      var href = a.getAttribute("href");
      if (a.hasAttribute("title")) {
        if (!titles.has(href)) titles.set(href, a.getAttribute("title"));
      } else if (titles.has(href)) {
        a.setAttribute("title", titles.get(href));
      }
    });
    return doc;
  }

  function place(table, ids, columns) {
    table.querySelectorAll("[data-tn-algo]").forEach(function (cell) { cell.remove(); });
    table.querySelectorAll("tr").forEach(function (tr) {
      var key = tr.getAttribute("data-tn-row") || "head";
      ids.forEach(function (id) {
        var cell = columns.get(id).get(key);
        if (cell) tr.appendChild(document.importNode(cell, true));
      });
    });
  }

  function say(root, text) {
    var status = root.querySelector(".tn-compare__status");
    if (status) status.textContent = text;
  }

  function show(root, ids) {
    var table = root.querySelector("table");
    var min = Number(root.getAttribute("data-tn-min"));
    var max = Number(root.getAttribute("data-tn-max"));
    ids = ids.slice(0, max);
    if (ids.length < min) {
      say(root, "Choose at least " + min + " different algorithms.");
      return Promise.resolve();
    }
    var columns = root.tnColumns;
    var missing = ids.filter(function (id) { return !columns.has(id); });
    return Promise.all(missing.map(function (id) {
      return fetchColumn(root, id).then(function (cells) { columns.set(id, cells); });
    })).then(function () {
      place(table, ids, columns);
      say(root, "Comparing " + ids.map(function (id) {
        return columns.get(id).get("head").textContent.trim();
      }).join(", ") + ".");
      root.setAttribute("data-tn-shown", ids.join(" "));
    }).catch(function (err) {
      say(root, "This comparison could not be loaded (" + err.message + ").");
    });
  }

  function remember(ids) {
    var params = new URLSearchParams(window.location.search);
    params.delete("a");
    ids.forEach(function (id) { params.append("a", id); });
    var url = window.location.pathname + "?" + params.toString() + window.location.hash;
    window.history.replaceState(window.history.state, "", url);
  }

  function boot() {
    var root = document.querySelector("[data-tn-compare]:not([data-tn-ready])");
    if (!root) return;
    root.setAttribute("data-tn-ready", "1");
    fillSelects(root);
    var table = root.querySelector("table");
    root.tnColumns = new Map();
    Array.prototype.forEach.call(table.querySelectorAll("thead [data-tn-algo]"), function (th) {
      var id = th.getAttribute("data-tn-algo");
      var copies = new Map();
      cellsOf(table, id).forEach(function (cell, key) { copies.set(key, cell.cloneNode(true)); });
      root.tnColumns.set(id, copies);
    });
    var form = root.querySelector("form");
    function chosen(event) {
      if (event) event.preventDefault();
      var ids = fromSelects(root);
      remember(ids);
      show(root, ids);
    }
    form.addEventListener("submit", chosen);
    form.addEventListener("change", function () { chosen(null); });
    var ids = fromAddress(root);
    var min = Number(root.getAttribute("data-tn-min"));
    if (ids.length && ids.length < min) {  // ?a=grpo: beside the featured ones
      ids = unique(ids.concat(fromSelects(root))).slice(0, min);
    }
    if (ids.length) {
      setSelects(root, ids);
      show(root, ids);
    } else {
      root.setAttribute("data-tn-shown", fromSelects(root).join(" "));
    }
  }

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(boot);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", boot);
  } else {
    boot();
  }
})();
