/* tinker-nomics calculator: the results as HTML (layout.py's blocks and templates).
 *
 * The second of the calculator's three scripts (calculator.js says what the page ships and how
 * the three share window.tnCalculator). A View fills the layout's blocks (text, tables, cards,
 * bars, slots, code, the inputs and their sources) for one estimate: every number in its
 * quantity's format, every text escaped. */
(function () {
  "use strict";

  var tn = window.tnCalculator = window.tnCalculator || {};
  if (tn.View) return;
  var has = tn.has, evalTree = tn.evalTree, fillNames = tn.fillNames;
  var fmtValue = tn.format.value, fmtUsd = tn.format.usd;

  /* ------------------------------------------------------------------ rendering (layout.py) */

  function option(value, label) { return '<option value="' + esc(value) + '">' + esc(label) + "</option>"; }
  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  function View(d, est) {
    var formats = this.formats = {};
    this.d = d;
    this.est = est;
    d.graph.forEach(function (q) { formats[q[0]] = { format: q[1], shown: q[2] }; });
  }

  View.prototype.formula = function (kind, id) {
    var f = this.d.formulas[has(this.est.names, id) ? this.est.names[id] : id];
    if (kind === "formula") return '<code class="tn-calc__formula">' + esc(f.expression) + "</code>";
    if (kind === "badge") return '<span class="tn-badge tn-badge--' + esc(f.status) + '">' + esc(f.status) + "</span>";
    return esc(kind === "status" ? f.status : f.name);
  };

  /* A template: {key} in the quantity's format (tagged data-key when shown), {key:format}. */
  View.prototype.fill = function (template) {
    var self = this, values = this.est.values;
    return template.replace(/\{([A-Za-z_][\w.]*)(?::([\w.]+))?\}/g, function (_, key, kind) {
      if (/^(formula|formula_name|badge|status)$/.test(key)) return self.formula(key, kind);
      if (kind === "text") return esc(self.est.names[key]);
      var q = self.formats[key], v = has(values, key) ? values[key] : null;
      var text = esc(fmtValue(kind || (q ? q.format : "number"), v));
      return !kind && q && q.shown ? '<span data-key="' + esc(key) + '">' + text + "</span>" : text;
    });
  };
  View.prototype.holds = function (when) { return when === null || !!evalTree(when, this.est.values); };
  View.prototype.pick = function (cases) {
    for (var i = 0; i < cases.length; i++) if (this.holds(cases[i][0])) return this.fill(cases[i][1]);
    return null;
  };
  View.prototype.heading = function (b) {
    var d = this.d, shown = this.est.figures, names = this.est.names;
    var bad = b.flags.map(function (k) { return fillNames(k, names); }).filter(function (k) {
      return shown.indexOf(k) >= 0 && d.figs[k].status === "unverified";
    });
    var flag = !bad.length ? "" : ' <a class="tn-calc__flag" href="#calc-inputs" title="Rests on unverified inputs: ' +
      bad.map(function (k) { return esc(d.figs[k].label); }).join("; ") + '">unverified input' +
      (bad.length > 1 ? "s" : "") + "</a>";
    return b.title ? '<h3 id="' + b.id + '">' + esc(b.title) + flag + "</h3>" : "";
  };
  /* A cell: the first of its cases that holds, then every one of its parts that holds. */
  View.prototype.cell = function (c) { return (c.cases ? this.pick(c.cases) || "" : "") + this.parts(c.parts || []); };
  View.prototype.parts = function (list) {
    var self = this;
    return list.filter(function (p) { return self.holds(p[0]); }).map(function (p) { return self.fill(p[1]); }).join("");
  };
  /* Rows by the value of their "order" quantity, smallest first, missing last; ties keep the
     layout's order (a stable sort). */
  View.prototype.sorted = function (rows) {
    var v = this.est.values;
    function at(r) { var x = has(v, r.order) ? v[r.order] : null; return x === null ? Infinity : x; }
    return rows.map(function (r, i) { return [r, i]; }).sort(function (a, b) {
      var x = at(a[0]), y = at(b[0]);
      return x < y ? -1 : x > y ? 1 : a[1] - b[1];
    }).map(function (x) { return x[0]; });
  };
  /* A slot: blocks the chosen algorithm's file ships under this name, else the "empty" text. */
  View.prototype.slot = function (b) {
    var self = this, blocks = has(this.est.slots, b.name) ? this.est.slots[b.name] : [];
    return this.heading(b) + (blocks.length ? blocks.map(function (x) { return self.block(x); }).join("") : this.pick(b.empty) || "");
  };
  /* Copyable code assembled from conditional parts (filled and escaped like any template). */
  View.prototype.code = function (b) {
    var self = this;
    return this.parts(b.before) + b.codes.map(function (c) {
      return '<div class="tn-calc__code"><p class="tn-calc__code-label">' + esc(c.label) + "</p><pre><code tabindex=\"0\">" +
        self.parts(c.parts) + '</code></pre><button type="button" class="md-button tn-calc__copy-code">' + esc(c.copy) + "</button></div>";
    }).join("") + this.parts(b.after);
  };
  View.prototype.block = function (b) {
    if (!this.holds(b.when)) return "";
    if (b.type === "text") return this.heading(b) + (this.pick(b.cases) || "");
    return this[b.type](b);
  };
  View.prototype.table = function (b) {
    var self = this, head = this.heading(b);
    var missing = b.missing ? this.pick(b.missing) : null;
    if (missing !== null) return head + missing;
    var shown = b.rows.filter(function (r) { return self.holds(r.when); });
    if (b.sort) shown = this.sorted(shown);
    var rows = shown.map(function (r) {
      return "<tr" + (r.key ? ' data-row="' + esc(r.key) + '"' : "") + '><th scope="row">' + esc(r.label) +
        "</th><td>" + self.cell(r) + "</td>" + r.cells.map(function (k) {
        return "<td>" + (typeof k === "string" ? self.fill("{" + k + "}") : self.cell(k)) + "</td>";
      }).join("") + "</tr>";
    }).join("");
    if (b.total.length) {
      rows += '<tr class="tn-calc__total"><th scope="row">Total</th>' +
        b.total.map(function (t) { return "<td>" + self.fill(t) + "</td>"; }).join("") + "</tr>";
    }
    var th = b.head.map(function (h) { return "<th>" + esc(h) + "</th>"; }).join("");
    var parts = function (list) { return list.map(function (c) { return self.pick(c) || ""; }).join(""); };
    var name = esc(b.title || "Cost table");  /* a named, focusable box: keyboard readers scroll it */
    /* the box in a .tn-scroll, which draws the scroll cue (tinkernomics.css) */
    return head + parts(b.before) + '<div class="tn-scroll tn-scroll--calc"><div class="tn-calc__scroll" tabindex="0" role="region" aria-label="' +
      name + ' (scrolls sideways)"><table class="tn-calc__table' + (b.class ? " " + esc(b.class) : "") + '"><thead><tr>' +
      th + "</tr></thead><tbody>" + rows + "</tbody></table></div></div>" + parts(b.after);
  };
  View.prototype.cards = function (b) {
    var self = this;
    return '<div class="tn-calc__cards">' + b.cards.map(function (c) {
      return '<div class="tn-calc__card"><p class="tn-calc__card-title">' + esc(c.title) + "</p>" +
        '<p class="tn-calc__card-value">' + self.pick(c.cases) + "</p></div>";
    }).join("") + "</div>";
  };
  View.prototype.bars = function (b) {
    var v = this.est.values, rows = [];
    if (v["tinker.total"] !== null) rows.push(["Tinker", "tinker", v["tinker.total"]]);
    rows.push(["Self-hosted", "self", v["self.total"]]);
    var max = Math.max.apply(null, rows.map(function (x) { return x[2]; }));
    var html = rows.map(function (row) {
      var segs = b.phases.map(function (p) {
        var part = v[row[1] + ".phase." + p[0]];
        if (!(part > 0) || !(max > 0)) return "";
        return '<span class="tn-calc__seg tn-calc__seg--' + p[0] + '" style="width:' +
          (100 * part / max).toFixed(3) + '%" title="' + esc(p[1] + ": " + fmtUsd(part)) + '"></span>';
      }).join("");
      return '<div class="tn-calc__bar-row"><span class="tn-calc__bar-label">' + esc(row[0]) + " " +
        esc(fmtValue("usd", row[2])) + '</span><span class="tn-calc__bar">' + segs + "</span></div>";
    }).join("");
    return this.heading(Object.assign({ flags: [] }, b)) + '<div class="tn-calc__bars" role="img" ' +
      'aria-label="Cost by phase, Tinker against self-hosted">' + html + '</div><ul class="tn-calc__legend">' +
      b.phases.map(function (p) {
        return '<li><span class="tn-calc__swatch tn-calc__seg--' + p[0] + '"></span>' + esc(p[1]) + "</li>";
      }).join("") + "</ul>";
  };
  View.prototype.inputs = function () {
    var d = this.d, est = this.est, keys = est.figures;
    var items = keys.map(function (k) {
      var f = d.figs[k], ref = f.source === null ? null : d.refs[f.source];
      var text = f.text;
      return '<li class="tn-calc__input tn-calc__input--' + esc(f.status) + '"><span class="tn-calc__status">' +
        esc(f.status) + "</span> " + esc(f.label) + ": <strong>" + esc(text) + "</strong> · " +
        (ref ? '<a href="' + esc(ref.href) + '">' + esc(ref.title) + "</a>" : "no source: assumed here") +
        (f.where ? '<br><small class="tn-calc__where">Where in the source: ' + esc(f.where) + "</small>" : "") +
        (f.how ? '<br><small class="tn-calc__how">' + esc(f.how) + "</small>" : "") +
        (f.status === "unverified" && f.instead
          ? '<br><small class="tn-calc__instead">Sources report instead: ' + esc(f.instead) + "</small>" : "") + "</li>";
    }).join("");
    var bad = keys.filter(function (k) { return d.figs[k].status === "unverified"; }).length;
    return '<h3 id="calc-inputs">Inputs and assumptions</h3><p>' + keys.length +
      " catalog figures and assumptions produced this estimate; " + bad + " of them are " +
      "<strong>unverified</strong> (not confirmed by a source: given by the original site, a contributor or a " +
      "secondary source, or assumed here; each says which on the Data quality page).</p>" +
      '<ul class="tn-calc__inputs">' + items + "</ul>";
  };
  View.prototype.html = function (link) {
    var self = this;
    return this.d.blocks.map(function (b) { return self.block(b); }).join("") + '<h3 id="calc-link">Link to this estimate</h3><p class="tn-calc__share">' +
      '<input type="text" readonly class="tn-calc__link" value="' + esc(link) + '" aria-label="Link to this estimate">' +
      '<button type="button" class="md-button tn-calc__copy">Copy link</button></p>';
  };

  tn.View = View;
  tn.esc = esc;
  tn.option = option;
})();
