/* tinker-nomics calculator: number formats, the evaluator and the link's inputs.
 *
 * The first of the calculator's three scripts (calculator.js says what the page ships and how
 * the three share window.tnCalculator). Nothing here reads the page: the number style
 * (numberformat.CALCULATOR, set by the page before anything is written), a generic evaluator
 * of the graph's expression trees as tree.py walks them, and the link's query read into the
 * graph's inputs by the declarations the page ships (inputs.choose, estimate.resolve and
 * estimate.environment resolved in Python). tests/test_evaluator.py runs this file in node. */
(function () {
  "use strict";

  var tn = window.tnCalculator = window.tnCalculator || {};
  if (tn.evaluate) return;

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
      teacher: chosen(q, K.teacher, d.models, algo.teacher || model), cache: flag(q, K.cache) === true,
      critic: chosen(q, K.critic, d.models, ""), reward_model: chosen(q, K.reward_model, d.models, "")
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

  /* estimate.resolve: what the choice names (the roles kept, for the link's reference and
     reward flags, as resolved in Python: estimate.held_by_flags, named in the algorithm's file
     by pagedata.held_data, the entries in the page's pagedata.held_table). */
  function resolve(d, algo, c, q) {
    var pick = function (o, k) { return o[has(o, q[d.keys[k]]) ? q[d.keys[k]] : ""]; };
    var held = d.held[algo.held[pick(pick(algo.held_by, "score_reference"), "score_reward_model")]];
    var teacher = held.teacher ? c.teacher : "", plist = d.price_lists[c.price_list];
    return { c: c, algo: algo, held: held, teacher: teacher, m: d.models[c.model], hw: d.hardware[c.hardware],
      plist: plist, row: priceRow(plist, c.model, c.variant), trow: teacher ? priceRow(plist, teacher, "") : null };
  }

  function resolvedNames(d, r) {
    var S = d.spec, c = r.c, row = r.row, names = {
      model: c.model, teacher: r.teacher, algorithm: c.algorithm, hw: c.hardware, price_list: c.price_list,
      model_name: r.m.name, hw_name: r.hw.name, algorithm_name: r.algo.name, fit_on: r.algo.fit_on || "",
      row: row ? row.key : "", variant: row ? row.variant : "", teacher_row: r.trow ? r.trow.key : "",
      not_covered: r.held.not_covered,
      critic: r.held.env["role.critic"] ? c.critic : "",
      reward_model: r.held.env["role.reward_model"] ? c.reward_model : ""
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
    /* A critic and a reward model at their own sizes where the link names them
       (estimate.SIZED_ROLES), else missing: the policy's size. */
    prefixed(env, "critic", c.critic && r.held.env["role.critic"] ? d.models[c.critic].inputs : nulls(r.m.inputs));
    prefixed(env, "reward", c.reward_model && r.held.env["role.reward_model"] ? d.models[c.reward_model].inputs : nulls(r.m.inputs));
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

  tn.setStyle = setStyle;
  tn.format = { number: fmtNumber, count: fmtCount, usd: fmtUsd, value: fmtValue };
  tn.evaluate = evaluate;
  tn.evalTree = evalTree;
  tn.has = has;
  tn.fail = fail;
  tn.fillNames = fillNames;
  tn.isNumber = isNumber;
  tn.valid = valid;
  tn.listed = listed;
  tn.chosen = chosen;
  tn.inputs = inputs;
  tn.figureKeys = figureKeys;
})();
