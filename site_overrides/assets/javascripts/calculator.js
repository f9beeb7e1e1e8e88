/* tinker-nomics RL-run cost calculator (the Calculator page, tinkernomics.site.calculator).
 *
 * The page carries JSON ([data-tn-calc] .tn-calc__data): the graph of quantities (every number
 * of an estimate is an expression tree, tinkernomics/derived/calculator), the layout of the
 * results as templates, every query key with its kind, range, default, dependents, kept keys
 * and link order (inputs.INPUTS), and tables of models, price lists and GPUs as named objects whose "inputs"
 * are graph inputs; algorithms are fetched from the site when chosen (algorithms/<id>.json). No
 * cost arithmetic and no rule lives here: every key is found by the Choice field it sets
 * (inputs.KEYS), the roles kept per reference flag, the price row of each model and variant and
 * the inputs an algorithm, its roles and a price list set come resolved from Python
 * (estimate.held, algorithm_env, role_env, price_list_env; pagedata row_of), and the number style
 * is numberformat.CALCULATOR. What the script still names: the Choice fields, the tables' input
 * prefixes (model., teacher., price., hw., gpus.) and the names its templates fill. A generic
 * evaluator walks the trees as tree.py does (a result that is not a finite number is missing,
 * shown "–"), and the templates are filled in. A quantity, cost line or query key added in
 * Python needs no change here. boot() is idempotent (Material's instant navigation).
 *
 * Three plain scripts share the one global window.tnCalculator, loaded in this order by
 * calculator-loader.js (only on a page with a calculator): calculator-eval.js (number formats,
 * the evaluator and the link's inputs: no page needed), calculator-view.js (the results as
 * HTML from the layout's templates), then this file: the page (the form, the link it keeps in
 * the address bar, the copy buttons, the summary) and boot(). */
(function () {
  "use strict";

  var tn = window.tnCalculator = window.tnCalculator || {};
  if (tn.boot) { tn.boot(); return; }
  var has = tn.has, fail = tn.fail, evalTree = tn.evalTree, esc = tn.esc, option = tn.option;
  var isNumber = tn.isNumber, valid = tn.valid, listed = tn.listed, chosen = tn.chosen;
  var fmtNumber = tn.format.number, fmtCount = tn.format.count, fmtValue = tn.format.value;

  /* The query keys, their order in a link, what a change clears and what a field shows all come
     from the page (inputs.link_inputs): a key declared in Python needs no change here. */
  function Page(root) {
    this.root = root;
    this.d = JSON.parse(root.querySelector(".tn-calc__data").content.textContent);
    tn.setStyle(this.d.number_format);
    this.form = root.querySelector(".tn-calc__form");
    this.results = root.querySelector(".tn-calc__results");
    /* The page ships the fields disabled (a static page cannot compute): live from here on. */
    Array.prototype.forEach.call(this.form.querySelectorAll("fieldset[disabled]"), function (f) { f.disabled = false; });
    /* this.keys: each key's declaration; d.keys: the key of each Choice field (inputs.KEYS). */
    var keys = this.keys = {}, by = this.d.keys = {};
    this.d.inputs.forEach(function (inp) { keys[inp.key] = inp; if (inp.sets) by[inp.sets] = inp.key; });
    var state = this.state = {};
    this.algos = {};
    new URLSearchParams(window.location.search).forEach(function (v, k) { if (!has(state, k)) state[k] = v; });
    /* inputs.choose: a link that names no algorithm starts from the default run (the first
       preset); each setting it gives replaces the run's. */
    if (!has(state, this.d.keys.algorithm)) state = this.state = Object.assign({}, this.d.defaults.query, state);
  }

  Page.prototype.fetch = function (name) {
    return fetch(new URL(this.d.algorithms + name + ".json", document.baseURI)).then(function (r) {
      return r.ok ? r.json() : fail(name + ".json: HTTP " + r.status);
    });
  };

  /* The algorithm list, then the chosen algorithm's file (each fetched once). */
  Page.prototype.load = function () {
    var self = this;
    var index = this.index ? Promise.resolve(this.index) : this.fetch("index").then(function (rows) {
      self.form.elements.namedItem(self.d.keys.algorithm).innerHTML = rows.map(function (r) { return option(r[0], r[1]); }).join("");
      return (self.index = Object.fromEntries(rows));
    });
    return index.then(function (ix) {
      var id = chosen(self.state, self.d.keys.algorithm, ix, self.d.defaults.algorithm);
      return has(self.algos, id) ? id : self.fetch(id).then(function (data) { self.algos[id] = data; return id; });
    });
  };
  /* A number the link sets to an invalid value (inputs.valid): marked, and left out of the link. */
  Page.prototype.invalid = function (key) {
    var inp = this.keys[key];
    return has(this.state, key) && isNumber(inp) && !valid(this.d, inp, this.state[key]);
  };
  Page.prototype.search = function () {
    var self = this, state = this.state, parts = this.d.inputs.map(function (inp) { return inp.key; })
      .filter(function (k) { return has(state, k) && !self.invalid(k); });
    var keys = this.keys, text = function (k) {
      return keys[k].kind === "list" ? listed(state, keys[k]).join(",") : state[k];
    };
    parts = parts.filter(function (k) { return text(k) !== ""; });
    return parts.length ? "?" + parts.map(function (k) {
      return encodeURIComponent(k) + "=" + encodeURIComponent(text(k)).replace(/%3A/g, ":").replace(/%2C/g, ",");
    }).join("&") : "";
  };

  /* A link names the model, algorithm, price list and GPU even when they were defaults, so it
     keeps meaning the same run when the catalog's defaults change. */
  Page.prototype.pin = function (c) {
    var state = this.state, keys = this.keys;
    this.d.inputs.forEach(function (inp) { if (inp.pin) state[inp.key] = c[inp.pin]; });
    Object.keys(state).forEach(function (k) { if (!has(keys, k)) delete state[k]; });
  };
  /* A failed load or evaluation is shown in the result area (once), never rethrown. */
  Page.prototype.update = function (source, switched) {
    var self = this;
    return this.load().then(function (id) { self.compute(id, source, switched); }).catch(function (err) {
      var old = self.results.querySelector(".tn-calc__error");
      if (old) old.remove();
      self.results.insertAdjacentHTML("afterbegin", '<p class="tn-calc__error" role="alert">' +
        esc(err && err.message ? err.message : String(err)) + "</p>");
      self.root.setAttribute("data-tn-error", "1");
    });
  };
  Page.prototype.estimate = function (algoId) {
    var est = tn.inputs(this.d, algoId, this.algos[algoId], this.state);
    est.values = tn.evaluate(this.d.graph, est.env);
    return est;
  };
  /* `switched`: what a change of a key that keeps others left to check (Page.keeping), carried
     with its own update, so an update still in flight cannot take it. */
  Page.prototype.compute = function (algoId, source, switched) {
    var d = this.d, algo = this.algos[algoId], est = this.estimate(algoId);
    var note = switched ? this.settle(est, algo, switched) : "";
    if (switched && switched.dropped) est = this.estimate(algoId);
    this.pin(est.choice);
    window.history.replaceState(window.history.state, "", window.location.pathname + this.search() + window.location.hash);
    d.figs = Object.assign({}, d.figures, algo.figures);
    d.refs = Object.assign({}, d.references, algo.references);
    est.slots = algo.blocks || {};
    est.figures = tn.figureKeys(d, est.names, est.values, d.figs);
    est.numbers = {};
    d.graph.forEach(function (q) { if (q[2]) est.numbers[q[0]] = est.values[q[0]]; });
    this.last = est;
    this.results.innerHTML = new tn.View(d, est).html(window.location.href);
    this.syncForm(est, source);
    this.summarise(est, note, switched);
    this.root.removeAttribute("data-tn-error");
    this.root.setAttribute("data-tn-ready", "1");
    this.root.dispatchEvent(new CustomEvent("tn-calc:update", { bubbles: true }));
  };
  Page.prototype.syncForm = function (est, source) {
    var v = est.values, n = est.names, st = this.state, self = this, d = this.d;
    var K = d.keys, variants = this.form.elements.namedItem(K.variant), values = {};
    if (variants !== source) {
      var rows = d.price_lists[n.price_list].rows.filter(function (x) { return x.model === n.model; });
      variants.innerHTML = (rows.length ? rows : [{ variant: "" }]).map(function (x) {
        return option(x.variant, x.variant || (rows.length ? "standard" : "not in this price list"));
      }).join("");
      variants.value = n.variant;
    }
    /* What the choice and flag fields show, by the Choice field each key sets (inputs.KEYS). */
    [[K.algorithm, n.algorithm], [K.model, n.model], [K.teacher, n.teacher || n.model],
      [K.critic, est.choice.critic], [K.reward_model, est.choice.reward_model],
      [K.price_list, n.price_list], [K.hardware, n.hw], [K.lora, d.spec.tuning[est.choice.lora ? 0 : 1]],
      [K.lora_flops, est.choice.lora_flops], [K.cache, est.choice.cache],
      [K.score_reference, est.held.reference], [K.score_reward_model, est.held.reward_model]
    ].forEach(function (kv) { values[kv[0]] = kv[1]; });
    /* A number field shows what the link set when it is invalid or a decimal, else the value
       used (its input, or the quantity it overrides: inputs.Input.shows, per, fmt). */
    d.inputs.filter(isNumber).forEach(function (inp) {
      var x = v[inp.shows || inp.name], typed = has(st, inp.key) && (self.invalid(inp.key) || inp.kind === "num");
      values[inp.key] = typed ? st[inp.key] : x === null || x === undefined ? ""
        : inp.fmt === "number" ? fmtNumber(x / inp.per) : String(x / inp.per);
    });
    Object.keys(values).forEach(function (k) {
      var el = self.form.elements.namedItem(k);
      if (!el || el === source) return;
      if (el.type === "checkbox") el.checked = !!values[k];
      else el.value = values[k];
    });
    /* A list key's boxes show the quantities <shows>.<suffix> (inputs.Input.options). */
    d.inputs.filter(function (inp) { return inp.kind === "list"; }).forEach(function (inp) {
      inp.options.forEach(function (o) {
        var box = self.form.querySelector('input[name="' + inp.key + '"][value="' + o[0] + '"]');
        if (box && box !== source) box.checked = v[inp.shows + "." + o[1]] === 1;
      });
    });
    d.inputs.forEach(function (inp) {
      var box = inp.when === null ? null : self.form.querySelector('[data-field="' + inp.key + '"]');
      if (box) box.hidden = !evalTree(inp.when, v);
    });
    Array.prototype.forEach.call(this.form.querySelectorAll("input[data-kind]"), function (el) {
      var inp = self.keys[el.name], text = el.value.trim();
      var bad = (text !== "" && !valid(d, inp, text)) || (inp.typical && v[inp.name] === null);
      el.setAttribute("aria-invalid", bad ? "true" : "false");
    });
  };
  Page.prototype.onChange = function (el) {
    if (!el.name) return;
    var list = has(this.keys, el.name) && this.keys[el.name].kind === "list";
    var value = list ? Array.prototype.filter.call(this.form.querySelectorAll('input[name="' + el.name + '"]'),
      function (box) { return box.checked; }).map(function (box) { return box.value; }).join(",")
      : el.type === "checkbox" ? (el.checked ? "1" : "0") : el.value.trim();
    if (value === "") delete this.state[el.name];
    else this.state[el.name] = value;
    (has(this.keys, el.name) ? this.keys[el.name].dependents : []).forEach(function (dep) { delete this.state[dep]; }, this);
    this.edited = true;
    this.update(el.type === "checkbox" || el.tagName === "SELECT" ? null : el, this.keeping(el.name));
  };
  /* A change of a key that keeps others (inputs.Input.keeps): what the reader had set, as the
     form showed it, and whether it applied (its `when`) to the estimate before the change. */
  Page.prototype.keeping = function (key) {
    var self = this, before = this.last ? this.last.values : null;
    var keeps = has(this.keys, key) ? this.keys[key].keeps : [];
    var items = keeps.filter(function (k) { return has(self.state, k); }).map(function (k) {
      var el = self.form.elements.namedItem(k), label = self.form.querySelector('[data-field="' + k + '"] .tn-calc__label');
      var text = el.type === "checkbox" ? (el.checked ? "on" : "off")
        : el.tagName === "SELECT" ? (el.selectedIndex < 0 ? el.value : el.options[el.selectedIndex].text) : el.value;
      var when = self.keys[k].when;
      return { key: k, label: label ? label.textContent : k, text: text,
        applied: when === null || before === null || !!evalTree(when, before) };
    });
    return items.length ? { key: key, items: items, dropped: 0 } : null;
  };
  /* After such a change: a kept key that applied before and whose `when` fails on the new
     estimate is dropped from the link; the note names it, and the kept values that differ from
     the new choice's typical ones (inputs.Input.typical). */
  Page.prototype.settle = function (est, algo, sw) {
    var self = this, name = esc(algo.name), dropped = [], kept = [], typical = 0;
    sw.items.forEach(function (it) {
      var inp = self.keys[it.key], usual = algo.typical[inp.name];
      if (it.applied && inp.when !== null && !evalTree(inp.when, est.values)) {
        delete self.state[it.key];
        dropped.push(esc(it.label) + " = " + esc(it.text));
      } else if (inp.typical && est.env[inp.name] !== usual) {
        typical += usual === null ? 0 : 1;
        kept.push(esc(it.label) + " = " + esc(it.text) + " (" + (usual === null
          ? name + " has no typical value in the catalog" : name + "'s typical: " + esc(fmtCount(usual))) + ")");
      }
    });
    sw.dropped = dropped.length;
    var parts = [];
    if (dropped.length) parts.push(dropped.join(", ") + (dropped.length > 1 ? " do" : " does") + " not apply to " + name + "; dropped.");
    if (kept.length) parts.push("Kept from your run: " + kept.join(", ") + "." + (typical ? " Clear a field to use the typical value." : ""));
    return parts.join(" ");
  };
  /* The summary that stays in view ([data-tn-sum] numbers, outside the results), the note of a
     switch, and one spoken sentence a second after the last change (not on every keystroke). */
  Page.prototype.summarise = function (est, note, switched) {
    var formats = {}, box = this.root.querySelector(".tn-calc__summary");
    this.d.graph.forEach(function (q) { formats[q[0]] = q[1]; });
    Array.prototype.forEach.call(this.root.querySelectorAll("[data-tn-sum]"), function (el) {
      var key = el.getAttribute("data-tn-sum");
      el.textContent = fmtValue(formats[key], has(est.values, key) ? est.values[key] : null);
    });
    Array.prototype.forEach.call(this.root.querySelectorAll(".tn-calc__switch"), function (el) { el.remove(); });
    var spoken = "";
    if (note) {
      this.results.insertAdjacentHTML("afterbegin", '<p class="tn-calc__note tn-calc__switch">' + note + "</p>");
      spoken = " " + this.results.querySelector(".tn-calc__switch").textContent;
      var field = this.form.querySelector('[data-field="' + switched.key + '"]');
      /* a visual copy where the reader acted; hidden from the field's accessible name (the
         status line says it once) */
      if (field) field.insertAdjacentHTML("beforeend", '<small class="tn-calc__switch" aria-hidden="true">' + note + "</small>");
    }
    if (!box || !this.edited) return;  /* nothing to say before the reader changes something */
    var status = box.querySelector(".tn-calc__said"), said = box.querySelector(".tn-calc__summary-list");
    window.clearTimeout(this.saying);
    this.saying = window.setTimeout(function () {
      var text = Array.prototype.map.call(said.querySelectorAll(".tn-calc__summary-item"), function (item) {
        return item.querySelector("dt").textContent + " " + item.querySelector("dd").textContent;
      }).join("; ");
      status.textContent = "Estimate: " + text + "." + spoken;
    }, 1000);
  };
  Page.prototype.bind = function () {
    var self = this;
    function discrete(el) { return el.tagName === "SELECT" || el.type === "checkbox"; }
    /* Text fields recompute as you type; selects and boxes once, on change. */
    this.form.addEventListener("input", function (e) { if (!discrete(e.target)) self.onChange(e.target); });
    this.form.addEventListener("change", function (e) { if (discrete(e.target)) self.onChange(e.target); });
    this.form.addEventListener("submit", function (e) { e.preventDefault(); });
    Array.prototype.forEach.call(this.root.querySelectorAll(".tn-calc__preset"), function (a) {
      a.addEventListener("click", function (e) {
        e.preventDefault();
        /* a.href, not the attribute: Material's instant navigation rewrites the attribute to
           an absolute URL, whose first key then read "http://…/calculator/?p" (the preset's
           price list was lost). */
        self.state = Object.fromEntries(new URL(a.href).searchParams);
        self.edited = true;
        self.update(null);
      });
    });
    this.results.addEventListener("click", function (e) {
      var code = e.target.closest(".tn-calc__copy-code");
      if (code) {
        if (navigator.clipboard) navigator.clipboard.writeText(code.parentNode.querySelector("code").textContent).catch(function () {});
        code.textContent = "Copied";
        return;
      }
      var button = e.target.closest(".tn-calc__copy"), field = self.results.querySelector(".tn-calc__link");
      if (!button) return;
      field.select();
      if (navigator.clipboard) navigator.clipboard.writeText(field.value).catch(function () {});
      button.textContent = "Copied";
    });
  };

  /* A link to a place on a calculator's page moves there and keeps the reader's inputs.
     Material's instant navigation rewrites a link's attribute to an absolute URL without the
     query ("#estimate" becomes ".../calculator/#estimate") and loads it, which booted the
     calculator from its defaults: the numbers the reader had typed were gone. Capture phase,
     before Material's own click handler; other pages and modified clicks are left alone. */
  function samePageLink(e) {
    var a = e.target.closest ? e.target.closest("a[href]") : null;
    if (!a || !a.hash || e.defaultPrevented || e.button || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    if (!document.querySelector("[data-tn-calc]")) return;
    var url = new URL(a.href, location.href);
    if (url.origin !== location.origin || url.pathname !== location.pathname) return;
    var target = document.getElementById(decodeURIComponent(url.hash.slice(1)));
    if (!target) return;
    e.preventDefault();
    e.stopPropagation();
    history.replaceState(history.state, "", location.search + url.hash);
    if (!target.hasAttribute("tabindex") && !target.matches("a[href], button, input, select, textarea")) target.setAttribute("tabindex", "-1");
    target.scrollIntoView();
    target.focus({ preventScroll: true });
  }
  document.addEventListener("click", samePageLink, true);

  function boot() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-tn-calc]"), function (root) {
      if (root.tnPage) return;
      root.tnPage = new Page(root);
      root.tnPage.bind();
      root.tnPage.update(null);
    });
  }

  tn.boot = boot;
  /* For tests and the console: the last estimate on the page (tn.evaluate and tn.format are
     the evaluator and the number formats, from calculator-eval.js). */
  tn.last = function () { var root = document.querySelector("[data-tn-calc]"); return root && root.tnPage ? root.tnPage.last : null; };

  if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(boot);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
