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
 * Python needs no change here. boot() is idempotent (Material's instant navigation). */
(function () {
  "use strict";

  if (window.tnCalculator) { window.tnCalculator.boot(); return; }

  /* ------------------------------------------------------------------ formatting (formatting.py)
   * toFixed/toExponential round the exact binary value half up, as Decimal's ROUND_HALF_UP.
   * The number style (thresholds, digits) is numberformat.CALCULATOR, shipped by the page as
   * number_format and set by Page before anything is written. */

  var STYLE = null, BIG = Infinity;
  function setStyle(style) {
    if (style.rounding !== "half_up") fail("number_format: only half_up rounding is written here");
    STYLE = style;
    BIG = style.exp_from;
  }
  function exponential(value, digits) { return value.toExponential(digits).replace("e+", "e"); }

  /* Thousands separators in the integer part of a plain decimal string. */
  function group(text) {
    var m = /^(-?)(\d+)(.*)$/.exec(text);
    return m[1] + m[2].replace(/\B(?=(\d{3})+$)/g, ",") + m[3];
  }

  function trim(text) { return text.indexOf(".") < 0 ? text : text.replace(/0+$/, "").replace(/\.$/, ""); }

  /* numberformat.write: the style's significant digits, at most its decimals, else an exponent. */
  function fmtNumber(value) {
    var s = STYLE, size = Math.abs(value), text, decimals;
    if (value === 0) return "0";
    if (size >= s.exp_from || size < s.exp_below) {
      text = exponential(value, s.exp_digits).split("e");
      return (s.exp_trim ? trim(text[0]) : text[0]) + "e" + text[1];
    }
    decimals = Math.max(0, s.significant - 1 - Math.floor(Math.log10(size)));
    if (s.max_decimals !== null) decimals = Math.min(decimals, s.max_decimals);
    return group(trim(value.toFixed(decimals)));
  }

  function fmtCount(value) { return Math.abs(value) >= BIG ? exponential(value, 3) : group(value.toFixed(0)); }

  function fmtUsd(value) {
    if (Math.abs(value) >= BIG) return "$" + exponential(value, 2);
    var text = group(value.toFixed(Math.abs(value) >= 1000 ? 0 : 2));
    return text.charAt(0) === "-" ? "-$" + text.slice(1) : "$" + text;
  }

  /* A number as the catalog gives it (6 significant digits hide float noise). */
  function plain(value) { return String(Number(value.toPrecision(6))); }

  /* A catalog price as its source states it (formatting.fmt_value "rate", derive.format_money):
     whole dollars bare, else at least cents: $2, $0.60, $6.225 (never $0.6 beside $0.60). */
  function fmtRate(value) {
    if (Number.isInteger(value)) return "$" + group(String(value));
    var cents = value.toFixed(2);
    return "$" + (Number(cents) === value ? group(cents) : plain(value));
  }

  function fmtValue(kind, value) {
    if (value === null || value === undefined) return "–";
    switch (kind) {
      case "count": return fmtCount(value);
      case "gb": return fmtNumber(value / 1e9) + " GB";
      case "flops": return exponential(value, 2);
      case "hours": case "number": return fmtNumber(value);
      case "percent": return fmtNumber(value * 100) + "%";
      case "ratio": return fmtNumber(value) + "×";
      case "rate": return fmtRate(value);
      case "plain": return plain(value);
      case "int": return String(Math.round(value));
      default: return fmtUsd(value);
    }
  }

  /* ------------------------------------------------------------------ the graph (tree.py) */

  function has(obj, key) { return obj !== null && Object.prototype.hasOwnProperty.call(obj, key); }

  /* tree._finite: a result that is not a finite real number (0/0, -1/0, (-8)**0.5, 10**400)
     is missing, as in Python. */
  function finite(x) { return isFinite(x) ? x : null; }

  function binary(op, a, b) {
    switch (op) {
      case "+": return finite(a + b);
      case "-": return finite(a - b);
      case "*": return finite(a * b);
      case "/": return b === 0 ? null : finite(a / b);
      case "**": return finite(Math.pow(a, b));
    }
    return (op === ">" ? a > b : op === ">=" ? a >= b : op === "<" ? a < b : op === "<=" ? a <= b : a === b) ? 1 : 0;
  }

  function fail(message) { throw new Error("calculator: " + message); }
  function call(name, args, env) {
    var i, v, values = [];
    if (name === "missing") return evalTree(args[0], env) === null ? 1 : 0;
    for (i = 0; i < args.length; i++) {
      v = evalTree(args[i], env);
      if (name === "coalesce" && v !== null) return v;
      if (v === null && name !== "coalesce") return null;
      values.push(v);
    }
    return name === "coalesce" ? null : name === "ceil" ? Math.ceil(values[0]) : Math[name].apply(null, values);
  }

  /* A missing value (null) makes every result that reads it missing, as in tree.evaluate. */
  function evalTree(t, env) {
    var k = t[0], a, b;
    if (k === "n") return t[1];
    if (k === "v") return has(env, t[1]) ? (env[t[1]] === null ? null : finite(env[t[1]])) : fail("unknown name " + t[1]);
    if (k === "f") return call(t[1], t[2], env);
    if (k === "if") return (a = evalTree(t[1], env)) === null ? null : evalTree(a !== 0 ? t[2] : t[3], env);
    if (k === "neg") return (a = evalTree(t[1], env)) === null ? null : -a;
    a = evalTree(t[1], env);
    b = evalTree(t[2], env);
    return a === null || b === null ? null : binary(k, a, b);
  }

  /* graph.evaluate: every quantity in order; a row is [key, format, shown, when, tree]. */
  function evaluate(graph, env) {
    var values = Object.assign({}, env);
    graph.forEach(function (q) { values[q[0]] = (q[3] === null || evalTree(q[3], values)) ? evalTree(q[4], values) : null; });
    return values;
  }

  /* ------------------------------------------------------------------ inputs (inputs.py) */

  function chosen(q, key, allowed, fallback) { return has(q, key) && has(allowed, q[key]) ? q[key] : fallback; }

  function flag(q, key) { return !has(q, key) ? null : q[key] === "1" ? true : q[key] === "0" ? false : null; }

  /* inputs.valid and inputs.ranged, by the key's declaration (inputs.INPUTS, shipped). */
  function isNumber(inp) { return inp.kind === "int" || inp.kind === "num"; }
  function valid(d, inp, raw) { return new RegExp("^(?:" + d.spec[inp.kind] + ")$").test(raw); }
  function ranged(d, raw, inp) {
    if (raw === undefined || !valid(d, inp, raw)) return null;
    return Math.min(Math.max(Number(raw), inp.lo), inp.hi);
  }

  /* estimate.prefixed: a table's named inputs as graph inputs ("model" + total_b -> model.total_b). */
  function prefixed(env, prefix, values) {
    Object.keys(values).forEach(function (k) { env[prefix + "." + k] = values[k]; });
  }
  function nulls(values) { return Object.fromEntries(Object.keys(values).map(function (k) { return [k, null]; })); }

  /* inputs.listed: the ids a list key gives that it offers, once each, in the link's order. */
  function listed(q, inp) {
    var ok = inp.options.map(function (o) { return o[0]; }), seen = [];
    (has(q, inp.key) ? q[inp.key].split(",") : []).forEach(function (id) {
      if (ok.indexOf(id) >= 0 && seen.indexOf(id) < 0) seen.push(id);
    });
    return seen;
  }

  /* A model's row in a price list for a variant, as resolved in Python (pagedata row_of). */
  function priceRow(plist, model, variant) {
    var of = has(plist.row_of, model) ? plist.row_of[model] : null;
    return of ? plist.rows[has(of, variant) ? of[variant] : of[""]] : null;
  }

  /* inputs.choose: the link's choices and flags, each read by the key that declares it. */
  function choose(d, algoId, algo, q) {
    var S = d.spec, K = d.keys, model = chosen(q, K.model, d.models, d.defaults.model);
    return {
      model: model, algorithm: algoId, variant: has(q, K.variant) ? q[K.variant] : "",
      lora: q[K.lora] !== S.tuning[1],
      price_list: chosen(q, K.price_list, d.price_lists, d.defaults.price_list),
      hardware: chosen(q, K.hardware, d.hardware, d.defaults.hardware),
      lora_flops: S.lora_flops.indexOf(q[K.lora_flops]) >= 0 ? q[K.lora_flops] : S.lora_flops[0],
      teacher: chosen(q, K.teacher, d.models, algo.teacher || model), cache: flag(q, K.cache) === true
    };
  }

  /* inputs.choose: every number key's input, its default when absent or invalid. */
  function numbers(d, algo, q) {
    var env = {};
    d.inputs.filter(isNumber).forEach(function (inp) {
      var v = ranged(d, has(q, inp.key) ? q[inp.key] : undefined, inp);
      env[inp.name] = v !== null ? v : inp.typical ? algo.typical[inp.name] : inp.default;
    });
    return env;
  }

  /* estimate.resolve: what the choice names (the roles kept, for the link's reference flag,
     as resolved in Python: estimate.held). */
  function resolve(d, algo, c, q) {
    var held = algo.held[has(algo.held, q[d.keys.score_reference]) ? q[d.keys.score_reference] : ""];
    var teacher = held.teacher ? c.teacher : "", plist = d.price_lists[c.price_list];
    return { c: c, algo: algo, held: held, teacher: teacher, m: d.models[c.model], hw: d.hardware[c.hardware],
      plist: plist, row: priceRow(plist, c.model, c.variant), trow: teacher ? priceRow(plist, teacher, "") : null };
  }

  function resolvedNames(d, r) {
    var S = d.spec, c = r.c, row = r.row, names = {
      model: c.model, teacher: r.teacher, algorithm: c.algorithm, hw: c.hardware, price_list: c.price_list,
      model_name: r.m.name, hw_name: r.hw.name, algorithm_name: r.algo.name, fit_on: r.algo.fit_on || "",
      row: row ? row.key : "", variant: row ? row.variant : "", teacher_row: r.trow ? r.trow.key : "",
      not_covered: r.held.not_covered
    };
    /* The formulas that price training and VRAM for this choice (estimate.formula_names). */
    Object.assign(names, S.formula_names[String(c.lora)][c.lora_flops]);
    /* Named texts of the model and teacher (the recipe's cookbook names): {model.<key>:text}. */
    Object.keys(r.m.texts).forEach(function (k) { names["model." + k] = r.m.texts[k]; });
    if (r.teacher) Object.keys(d.models[r.teacher].texts).forEach(function (k) { names["teacher." + k] = d.models[r.teacher].texts[k]; });
    /* The price list's texts (its date, calculator/asof.py): {price.<key>:text}. */
    Object.keys(r.plist.texts).forEach(function (k) { names["price." + k] = r.plist.texts[k]; });
    return names;
  }

  /* estimate.environment: the inputs the algorithm, its kept roles and the price list set, as
     shipped (estimate.algorithm_env, role_env, price_list_env), and the tables' inputs. */
  function environment(d, r, q, env) {
    var c = r.c;
    Object.assign(env, r.algo.env, r.held.env, r.plist.env, {
      "price.teacher_prefill": r.trow ? r.trow.inputs.prefill : null
    });
    /* A choice's flag input (inputs.Input.flag): 1 where its field has the declared value. */
    d.inputs.forEach(function (inp) { if (inp.flag[0]) env[inp.flag[0]] = c[inp.sets] === inp.flag[1] ? 1 : 0; });
    prefixed(env, "model", r.m.inputs);
    prefixed(env, "teacher", r.teacher ? d.models[r.teacher].inputs : nulls(r.m.inputs));
    prefixed(env, "price", r.row ? r.row.inputs : d.spec.no_row);
    prefixed(env, "hw", r.hw.inputs);
    /* waysgraph.environment: the chosen model's flags, every GPU's inputs, the list's date. */
    Object.assign(env, r.m.flags, { "price.effective": r.plist.effective });
    Object.keys(d.hardware).forEach(function (k) {
      var g = "gpus." + d.hardware[k].slot;
      prefixed(env, g, d.hardware[k].inputs);
      env[g + ".chosen"] = k === c.hardware ? 1 : 0;
    });
    /* A list key sets <name>.<suffix> per id it offers and <name>.any (inputs.Input.options). */
    d.inputs.filter(function (inp) { return inp.kind === "list"; }).forEach(function (inp) {
      var ids = listed(q, inp);
      env[inp.name + ".any"] = ids.length ? 1 : 0;
      inp.options.forEach(function (o) { env[inp.name + "." + o[1]] = ids.indexOf(o[0]) >= 0 ? 1 : 0; });
    });
    return env;
  }

  /* inputs.choose, estimate.resolve and estimate.environment: names and input values. */
  function inputs(d, algoId, algo, q) {
    var r = resolve(d, algo, choose(d, algoId, algo, q), q);
    return { choice: r.c, names: resolvedNames(d, r), env: environment(d, r, q, numbers(d, algo, q)),
      roles: r.held.roles, held: r.held };
  }

  function fillNames(template, names) { return template.replace(/\{(\w+)\}/g, function (_, k) { return names[k]; }); }

  /* figures.figure_keys: the figures this estimate used, by the shipped rules. */
  function figureKeys(d, names, values, figs) {
    var env = Object.assign({ teacher_differs: names.teacher && names.teacher !== names.model ? 1 : 0 }, values);
    var keys = [];
    d.rules.forEach(function (rule) {
      if (rule[1] !== null && !evalTree(rule[1], env)) return;
      var key = fillNames(rule[0], names);
      if (has(figs, key) && keys.indexOf(key) < 0) keys.push(key);
    });
    return keys;
  }

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

  /* ------------------------------------------------------------------ the page */

  /* The query keys, their order in a link, what a change clears and what a field shows all come
     from the page (inputs.link_inputs): a key declared in Python needs no change here. */
  function Page(root) {
    this.root = root;
    this.d = JSON.parse(root.querySelector(".tn-calc__data").content.textContent);
    setStyle(this.d.number_format);
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
    var est = inputs(this.d, algoId, this.algos[algoId], this.state);
    est.values = evaluate(this.d.graph, est.env);
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
    est.figures = figureKeys(d, est.names, est.values, d.figs);
    est.numbers = {};
    d.graph.forEach(function (q) { if (q[2]) est.numbers[q[0]] = est.values[q[0]]; });
    this.last = est;
    this.results.innerHTML = new View(d, est).html(window.location.href);
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
      [K.price_list, n.price_list], [K.hardware, n.hw], [K.lora, d.spec.tuning[est.choice.lora ? 0 : 1]],
      [K.lora_flops, est.choice.lora_flops], [K.cache, est.choice.cache],
      [K.score_reference, est.held.reference]].forEach(function (kv) { values[kv[0]] = kv[1]; });
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

  function boot() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-tn-calc]"), function (root) {
      if (root.tnPage) return;
      root.tnPage = new Page(root);
      root.tnPage.bind();
      root.tnPage.update(null);
    });
  }

  window.tnCalculator = {
    boot: boot,
    /* For tests and the console: the last estimate on the page, and the evaluator. */
    last: function () { var root = document.querySelector("[data-tn-calc]"); return root && root.tnPage ? root.tnPage.last : null; },
    evaluate: evaluate,
    format: { number: fmtNumber, count: fmtCount, usd: fmtUsd, value: fmtValue }
  };

  if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(boot);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
