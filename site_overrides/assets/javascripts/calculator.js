/* tinker-nomics RL-run cost calculator (the Calculator page, written by tinkernomics.site.calculator.feature).
 *
 * The page carries its data as JSON ([data-tn-calc] .tn-calc__data): catalog values, the
 * catalog's formula expressions translated to JavaScript by tinkernomics.derived.expr.to_js, query
 * ranges, presets and provenance. This file repeats the arithmetic of tinkernomics/calc.py and
 * the query rules of tinkernomics/calcinputs.py operation for operation, in the same order, so
 * the browser shows exactly what the Python reference computes (tests/test_calc_browser.py
 * checks it). Change one, change the other.
 *
 * Settings live in the query string (?m=qwen3-8b&a=grpo&G=16): a link reproduces the estimate.
 * Material's instant navigation re-runs this script when it swaps the page in; boot() is
 * idempotent per container.
 */
(function () {
  "use strict";

  if (window.tnCalculator) {
    window.tnCalculator.boot();
    return;
  }

  /* ------------------------------------------------------------------ formatting
   * Mirror of calcsite.fmt_*: toFixed/toExponential round the exact binary value half up,
   * as Python's Decimal with ROUND_HALF_UP does. */

  var BIG = 1e15;

  function fixed(value, decimals) { return value.toFixed(decimals); }

  function exponential(value, digits) { return value.toExponential(digits).replace("e+", "e"); }

  function group(text) {
    var sign = text.charAt(0) === "-" ? "-" : "";
    var body = text.slice(sign.length);
    var dot = body.indexOf(".");
    var whole = dot < 0 ? body : body.slice(0, dot);
    var rest = dot < 0 ? "" : body.slice(dot);
    var groups = [];
    while (whole.length > 3) {
      groups.unshift(whole.slice(-3));
      whole = whole.slice(0, -3);
    }
    groups.unshift(whole);
    return sign + groups.join(",") + rest;
  }

  function trim(text) {
    return text.indexOf(".") < 0 ? text : text.replace(/0+$/, "").replace(/\.$/, "");
  }

  function fmtNumber(value) {
    if (value === 0) return "0";
    var size = Math.abs(value);
    if (size >= BIG || size < 1e-3) return exponential(value, 2);
    var decimals = size >= 100 ? 0 : size >= 10 ? 1 : size >= 1 ? 2 : 3;
    return group(trim(fixed(value, decimals)));
  }

  function fmtCount(value) {
    return Math.abs(value) >= BIG ? exponential(value, 3) : group(fixed(value, 0));
  }

  function fmtUsd(value) {
    if (Math.abs(value) >= BIG) return "$" + exponential(value, 2);
    var text = group(fixed(value, Math.abs(value) >= 1000 ? 0 : 2));
    return text.charAt(0) === "-" ? "-$" + text.slice(1) : "$" + text;
  }

  function fmtValue(kind, value, C) {
    if (value === null || value === undefined) return "–";
    switch (kind) {
      case "count": return fmtCount(value);
      case "gb": return fmtNumber(value / C.bytes_per_gb) + " GB";
      case "flops": return exponential(value, 2);
      case "hours": return fmtNumber(value);
      case "percent": return fmtNumber(value * C.percent) + "%";
      case "ratio": return fmtNumber(value) + "×";
      case "number": return fmtNumber(value);
      default: return fmtUsd(value);
    }
  }

  function formatKind(formats, key) {
    for (var i = 0; i < formats.length; i++) {
      var f = formats[i];
      if (key.slice(0, f[0].length) === f[0] && key.slice(key.length - f[1].length) === f[1]) {
        return f[2];
      }
    }
    return "usd";
  }

  /* ------------------------------------------------------------------ query (calcinputs.py) */

  function has(obj, key) { return Object.prototype.hasOwnProperty.call(obj, key); }

  function Query(data) {
    this.data = data;
    this.intRe = new RegExp("^(?:" + data.spec.int + ")$");
    this.numRe = new RegExp("^(?:" + data.spec.num + ")$");
  }

  Query.prototype.spec = function (key) {
    var shape = this.data.spec.shape;
    if (has(shape, key)) return { kind: "int", lo: shape[key][1], hi: shape[key][2] };
    return this.data.spec.query[key];
  };

  Query.prototype.ranged = function (q, key, spec) {
    var raw = has(q, key) ? q[key] : null;
    var re = spec.kind === "int" ? this.intRe : this.numRe;
    if (raw === null || !re.test(raw)) return null;
    return Math.min(Math.max(Number(raw), spec.lo), spec.hi);
  };

  Query.prototype.value = function (q, key) { return this.ranged(q, key, this.spec(key)); };

  function or(value, fallback) { return value === null ? fallback : value; }

  function choice(q, key, allowed, fallback) {
    return has(q, key) && has(allowed, q[key]) ? q[key] : fallback;
  }

  function flag(q, key) {
    if (!has(q, key)) return null;
    return q[key] === "1" ? true : q[key] === "0" ? false : null;
  }

  /* calcinputs.inputs_from_query */
  Query.prototype.inputs = function (q) {
    var d = this.data, self = this;
    var model = choice(q, "m", d.models, d.defaults.model);
    var algoId = choice(q, "a", d.algorithms, d.defaults.algorithm);
    var algo = d.algorithms[algoId];
    var algoDefaults = { G: algo.G, K: algo.K };
    var shape = {};
    Object.keys(d.spec.shape).forEach(function (key) {
      var fallback = has(algoDefaults, key) ? algoDefaults[key]
        : has(d.defaults.shape, key) ? d.defaults.shape[key] : 0;
      shape[d.spec.shape[key][0]] = or(self.value(q, key), fallback);
    });
    shape.prefix_cache = flag(q, "cache") === true;
    var inputs = {
      model: model, algorithm: algoId,
      price_list: choice(q, "p", d.price_lists, d.defaults.price_list),
      hardware: choice(q, "hw", d.hardware, d.defaults.hardware),
      shape: shape,
      variant: has(q, "v") ? q.v : "",
      lora: q.ft !== "full",
      lora_rank: this.value(q, "r"), d_model: this.value(q, "D"),
      lora_flops: choice(q, "lf", d.lora_flops, d.defaults.lora_flops),
      score_reference: flag(q, "ref"),
      teacher: choice(q, "tm", d.models, model),
      gpu_price: this.value(q, "gp"),
      target_percent: or(this.value(q, "tf"), d.defaults.target),
      checkpoints: or(this.value(q, "ck"), 1.0),
      storage_months: or(this.value(q, "mo"), 1.0),
      vram_gb: {}
    };
    Object.keys(d.spec.percent).forEach(function (key) {
      var v = self.value(q, key);
      inputs[d.spec.percent[key]] = v === null ? null : v / d.constants.percent;
    });
    d.spec.vram.forEach(function (name) {
      var v = self.ranged(q, name, d.spec.query.vram);
      if (v !== null) inputs.vram_gb[name] = v;
    });
    return inputs;
  };

  /* ------------------------------------------------------------------ the estimate (calc.py) */

  function Calc(data) {
    this.data = data;
    this.C = data.constants;
    this.fns = {};
    var fns = this.fns;
    Object.keys(data.formulas).forEach(function (id) {
      /* The catalog expression, translated by expr.to_js at build time. */
      fns[id] = new Function("v", "return " + data.formulas[id].js + ";");
    });
  }

  function add(values) {
    var total = 0.0;
    for (var i = 0; i < values.length; i++) total = total + values[i];
    return total;
  }

  function pluck(list, key) { return list.map(function (x) { return x[key]; }); }

  Calc.prototype.priceRow = function (plist, model, variant) {
    var rows = plist.rows.filter(function (r) { return r.model === model; });
    var wanted = [variant, ""];
    for (var w = 0; w < wanted.length; w++) {
      for (var i = 0; i < rows.length; i++) if (rows[i].variant === wanted[w]) return rows[i];
    }
    return rows.length ? rows[0] : null;
  };

  Calc.prototype.resolve = function (inputs) {
    var d = this.data;
    var model = d.models[inputs.model], algo = d.algorithms[inputs.algorithm];
    var plist = d.price_lists[inputs.price_list], hw = d.hardware[inputs.hardware];
    var scoreRef = inputs.score_reference === null ? algo.roles.indexOf("reference") >= 0
      : inputs.score_reference;
    var roles = algo.roles.filter(function (r) { return scoreRef || r !== "reference"; });
    var teacherId = roles.indexOf("teacher") >= 0 ? (inputs.teacher || inputs.model) : null;
    var teacher = teacherId === null ? null : d.models[teacherId];
    var rank = inputs.lora_rank === null ? d.defaults.lora_rank : inputs.lora_rank;
    var dModel = inputs.d_model !== null ? inputs.d_model
      : model.d_model !== null ? model.d_model : d.defaults.d_model;
    return {
      inputs: inputs, modelId: inputs.model, model: model, algo: algo, plist: plist, hw: hw,
      scoreRef: scoreRef, roles: roles, teacherId: teacherId, teacher: teacher,
      row: this.priceRow(plist, inputs.model, inputs.variant),
      teacherRow: teacher === null ? null : this.priceRow(plist, teacherId, ""),
      lora_rank: rank, d_model: dModel,
      train: this.trainingVariables(inputs, model, rank, dModel),
      mfu_train: inputs.mfu_train === null ? d.defaults.mfu_train : inputs.mfu_train,
      mfu_prefill: inputs.mfu_prefill === null ? d.defaults.mfu_prefill : inputs.mfu_prefill,
      mfu_decode: inputs.mfu_decode === null ? this.decodeMfu(hw, model) : inputs.mfu_decode,
      gpu_price: inputs.gpu_price === null ? hw.price : inputs.gpu_price
    };
  };

  /* calc.training_variables: the training FLOP formula (full, or the chosen LoRA accounting)
     and the values of the variables it declares, in its declared order. */
  Calc.prototype.trainingVariables = function (inputs, model, rank, dModel) {
    var d = this.data, ids = d.ids, offered = {}, values = {};
    var id = inputs.lora ? d.lora_flops[inputs.lora_flops] : ids.full;
    offered[ids.active] = model.active_b * this.C.params_per_billion;
    offered[ids.rank] = rank;
    offered[ids.d_model] = dModel;
    d.formulas[id].variables.forEach(function (v) { values[v.name] = offered[v.name]; });
    return { id: id, values: values };
  };

  /* calc.decode_mfu: the decode roofline for this GPU and model. */
  Calc.prototype.decodeMfu = function (hw, model) {
    var d = this.data, C = this.C, dec = d.decode;
    if (hw.bandwidth === null) return d.defaults.mfu_prefill;
    var pTotal = model.total_b * C.params_per_billion;
    var pActive = model.active_b * C.params_per_billion;
    var read = Math.min(pTotal, dec.sequences * pActive);
    var bandwidth = hw.bandwidth * C.bytes_per_tb;
    var peak = hw.tflops * C.flops_per_tflop;
    return Math.min(1.0, dec.sequences * dec.flops_per_param * pActive /
      (dec.bytes_per_param * read) * bandwidth / peak);
  };

  /* calc.count_tokens: T·C0 + Δ·T(T−1)/2 prefill per episode (re-prefill every turn). */
  Calc.prototype.tokens = function (s, online) {
    var t = s.turns, c0 = s.prompt_tokens, delta = s.context_growth;
    var episodes = s.steps * s.prompts_per_step * s.group_size;
    var prefill = online ? t * c0 + delta * t * (t - 1) / 2 : 0.0;
    var cached = online && s.prefix_cache ? (t - 1) * c0 + delta * (t - 1) * (t - 2) / 2 : 0.0;
    var sample = online ? s.turns * s.completion_tokens : 0.0;
    var sequence = s.prompt_tokens + s.context_growth * (s.turns - 1) + s.completion_tokens;
    return {
      episodes: episodes, prefill_per_episode: prefill, cached_per_episode: cached,
      sample_per_episode: sample, sequence_per_episode: sequence,
      prefill: episodes * prefill, prefill_cached: episodes * cached,
      prefill_uncached: episodes * prefill - episodes * cached,
      sample: episodes * sample, sequence: episodes * sequence,
      train: episodes * sequence * s.passes
    };
  };

  Calc.prototype.perMillion = function (tokens, price) {
    return tokens * price / this.C.tokens_per_million;
  };

  /* calc.tinker_bill */
  Calc.prototype.tinker = function (r, t) {
    var notCovered = r.roles.filter(function (x) { return x === "critic" || x === "reward_model"; });
    if (r.row === null) return { lines: [], total: 0.0, available: false, notCovered: notCovered };
    var row = r.row, lines = [], self = this;
    function line(key, label, phase, quantity, rate, usd, unit) {
      lines.push({ key: key, label: label, phase: phase, quantity: quantity, rate: rate,
                   usd: usd, unit: unit || "tokens" });
    }
    var cachedPrice = r.plist.cache === null ? row.prefill
      : row.prefill * (1 - r.plist.cache / this.C.percent);
    line("prefill", "Prefill", "rollout", t.prefill_uncached, row.prefill,
         this.perMillion(t.prefill_uncached, row.prefill));
    line("prefill_cached", "Cached prefill", "rollout", t.prefill_cached, cachedPrice,
         this.perMillion(t.prefill_cached, cachedPrice));
    line("sample", "Sample", "rollout", t.sample, row.sample, this.perMillion(t.sample, row.sample));
    if (r.roles.indexOf("reference") >= 0) {
      line("reference", "Reference log-probs (as prefill)", "reference", t.sequence, row.prefill,
           this.perMillion(t.sequence, row.prefill));
    }
    if (r.teacherRow !== null) {
      line("teacher", "Teacher log-probs (as prefill)", "reference", t.sequence,
           r.teacherRow.prefill, this.perMillion(t.sequence, r.teacherRow.prefill));
    }
    line("train", "Train", "training", t.train, row.train, this.perMillion(t.train, row.train));
    if (r.plist.storage !== null) {
      var gbMonths = r.inputs.checkpoints * self.data.checkpoint_gb * r.inputs.storage_months;
      line("storage", "Checkpoint storage", "storage", gbMonths, r.plist.storage,
           gbMonths * r.plist.storage, "GB-months");
    }
    return { lines: lines, total: add(pluck(lines, "usd")), available: true, notCovered: notCovered };
  };

  /* calc.self_hosted */
  Calc.prototype.selfHosted = function (r, t) {
    var d = this.data, C = this.C, self = this, ids = d.ids, lines = [];
    var p = r.model.active_b * C.params_per_billion;
    function values(active) { var v = {}; v[ids.active] = active; return v; }
    function line(key, label, phase, formula, vals, tokens, mfu) {
      var perToken = self.fns[formula](vals);
      var flops = tokens * perToken;
      var hours = flops / (r.hw.tflops * C.flops_per_tflop * mfu) / C.seconds_per_hour;
      lines.push({ key: key, label: label, phase: phase, formula: formula, values: vals,
                   tokens: tokens, flops_per_token: perToken, flops: flops, mfu: mfu,
                   gpu_hours: hours, usd: hours * r.gpu_price });
    }
    line("prefill", "Rollout prefill", "rollout", ids.rollout, values(p), t.prefill_uncached,
         r.mfu_prefill);
    line("decode", "Rollout decode", "rollout", ids.rollout, values(p), t.sample, r.mfu_decode);
    if (r.roles.indexOf("reference") >= 0) {
      line("reference", "Reference log-probs", "reference", ids.reference, values(p), t.sequence,
           r.mfu_prefill);
    }
    if (r.teacher !== null) {
      line("teacher", "Teacher log-probs", "reference", ids.reference,
           values(r.teacher.active_b * C.params_per_billion), t.sequence, r.mfu_prefill);
    }
    if (r.roles.indexOf("reward_model") >= 0) {
      line("reward_model", "Reward model", "reference", ids.reference, values(p), t.sequence,
           r.mfu_prefill);
    }
    var tf = this.trainingFormula(r);
    line("train", "Policy training", "training", tf.id, tf.values, t.train, r.mfu_train);
    if (r.roles.indexOf("critic") >= 0) {
      line("critic", "Critic training", "training", tf.id, tf.values, t.train, r.mfu_train);
    }
    return { lines: lines, flops: add(pluck(lines, "flops")),
             gpu_hours: add(pluck(lines, "gpu_hours")), total: add(pluck(lines, "usd")) };
  };

  Calc.prototype.trainingFormula = function (r) { return r.train; };

  /* calc.memory: f(all) for the total, f(one variable) − f(zeros) per term. */
  Calc.prototype.memory = function (r) {
    var d = this.data, C = this.C;
    var fid = r.inputs.lora ? d.ids.vram_lora : d.ids.vram_full;
    var formula = d.formulas[fid], mapping = d.role_variables[fid], fn = this.fns[fid];
    var values = {}, zeros = {};
    formula.variables.forEach(function (v) {
      if (v.unit === "parameters") {
        var total = 0.0;
        r.roles.forEach(function (role) {
          if (mapping[role] === v.name) {
            var size = role === "teacher" && r.teacher !== null ? r.teacher.total_b
              : r.model.total_b;
            total = total + size * C.params_per_billion;
          }
        });
        values[v.name] = total;
      } else if (has(r.inputs.vram_gb, v.name)) {
        values[v.name] = r.inputs.vram_gb[v.name] * C.bytes_per_gb;
      } else {
        values[v.name] = v.example;
      }
      zeros[v.name] = 0.0;
    });
    var base = fn(zeros);
    var terms = formula.variables.map(function (v) {
      var one = Object.assign({}, zeros);
      one[v.name] = values[v.name];
      return { variable: v.name, label: v.meaning, unit: v.unit, value: values[v.name],
               bytes: fn(one) - base };
    });
    var total = fn(values);
    return { formula: fid, terms: terms, total: total, gpu_memory_gb: r.hw.memory_gb,
             min_gpus: Math.ceil(total / (r.hw.memory_gb * C.bytes_per_gb)) };
  };

  /* calc.convergence with derive.compute_to_reach and derive.scalerl_reward. */
  Calc.prototype.convergence = function (r) {
    var fit = r.algo.scalerl, conv = this.data.conversion;
    if (fit === null) return null;
    var fraction = r.inputs.target_percent / this.C.percent;
    var c = fit.C_mid / Math.pow(1.0 / fraction - 1.0, 1.0 / fit.B);
    var reward = c <= 0 ? fit.R0 : fit.R0 + (fit.A - fit.R0) / (1.0 + Math.pow(fit.C_mid / c, fit.B));
    var chosen = c * conv.tflops / r.hw.tflops;
    return { fraction: fraction, gb200_hours: c, h100_hours: c * conv.factor, reward: reward,
             chosen_hours: chosen, usd: chosen * r.gpu_price, gb200_usd: c * conv.price };
  };

  Calc.prototype.breakEven = function (tinker, own) {
    var setup = this.data.setup_usd;
    if (!tinker.available || own.gpu_hours <= 0) {
      return { gpu_price: null, ratio: null, setup: setup, runs: null };
    }
    var saving = tinker.total - own.total;
    return { gpu_price: tinker.total / own.gpu_hours,
             ratio: own.total > 0 ? tinker.total / own.total : null, setup: setup,
             runs: saving > 0 ? setup / saving : null };
  };

  Calc.prototype.calculate = function (inputs) {
    var r = this.resolve(inputs);
    var t = this.tokens(inputs.shape, r.algo.online);
    var tinker = this.tinker(r, t), own = this.selfHosted(r, t), mem = this.memory(r);
    return { r: r, tokens: t, tinker: tinker, own: own, memory: mem,
             convergence: this.convergence(r), breakEven: this.breakEven(tinker, own),
             wall_clock_hours: own.gpu_hours / mem.min_gpus };
  };

  /* calc.numbers: the flat dict the browser test compares with Python. */
  function numbers(res) {
    var out = {}, t = res.tokens;
    ["episodes", "prefill", "prefill_cached", "prefill_uncached", "sample", "sequence", "train"]
      .forEach(function (name) { out["tokens." + name] = t[name]; });
    res.tinker.lines.forEach(function (l) { out["tinker." + l.key] = l.usd; });
    out["tinker.total"] = res.tinker.available ? res.tinker.total : null;
    res.own.lines.forEach(function (l) {
      out["self." + l.key + ".flops"] = l.flops;
      out["self." + l.key + ".gpu_hours"] = l.gpu_hours;
      out["self." + l.key + ".usd"] = l.usd;
    });
    out["self.flops"] = res.own.flops;
    out["self.gpu_hours"] = res.own.gpu_hours;
    out["self.total"] = res.own.total;
    out["mfu.train"] = res.r.mfu_train;
    out["mfu.prefill"] = res.r.mfu_prefill;
    out["mfu.decode"] = res.r.mfu_decode;
    out.gpu_price = res.r.gpu_price;
    res.memory.terms.forEach(function (term) { out["vram." + term.variable] = term.bytes; });
    out["vram.total"] = res.memory.total;
    out["vram.min_gpus"] = res.memory.min_gpus;
    out.wall_clock_hours = res.wall_clock_hours;
    var c = res.convergence;
    ["gb200_hours", "h100_hours", "reward", "chosen_hours", "usd", "gb200_usd"]
      .forEach(function (name) { out["scalerl." + name] = c === null ? null : c[name]; });
    out["breakeven.gpu_price"] = res.breakEven.gpu_price;
    out["breakeven.ratio"] = res.breakEven.ratio;
    out["breakeven.runs"] = res.breakEven.runs;
    return out;
  }

  /* calcinputs.figure_keys */
  function figureKeys(d, r) {
    var inputs = r.inputs, model = r.model, mid = r.modelId, hw = inputs.hardware;
    var keys = ["model:" + mid + ":total_params"];
    if (hasActive(d, mid)) keys.push("model:" + mid + ":active_params");
    if (has(r.train.values, d.ids.d_model) && inputs.d_model === null && model.d_model !== null) {
      keys.push("model:" + mid + ":d_model");
    }
    if (r.teacher !== null && r.teacherId !== mid) {
      keys.push("model:" + r.teacherId + ":total_params");
      if (hasActive(d, r.teacherId)) keys.push("model:" + r.teacherId + ":active_params");
    }
    if (r.row !== null) keys.push(r.row.key);
    if (r.teacherRow !== null && r.teacher !== null && r.teacherId !== mid) keys.push(r.teacherRow.key);
    var pl = "prices:" + inputs.price_list + ":";
    if (inputs.shape.prefix_cache && r.plist.cache !== null) keys.push(pl + "cache");
    if (r.plist.storage !== null) keys.push(pl + "storage");
    keys.push("hardware:" + hw + ":tflops", "hardware:" + hw + ":memory");
    if (inputs.gpu_price === null) keys.push("hardware:" + hw + ":price");
    var a = inputs.algorithm, algo = r.algo;
    if (inputs.shape.passes === algo.K) keys.push("algorithm:" + a + ":k");
    if (algo.has_g && inputs.shape.group_size === algo.G) keys.push("algorithm:" + a + ":g");
    if (algo.scalerl !== null) ["A", "B", "C_mid"].forEach(function (n) { keys.push("algorithm:" + a + ":" + n); });
    var ids = d.ids;
    keys.push("formula:" + ids.rollout);
    if (["reference", "teacher", "reward_model"].some(function (x) { return r.roles.indexOf(x) >= 0; })) {
      keys.push("formula:" + ids.reference);
    }
    keys.push("formula:" + r.train.id);
    keys.push("formula:" + (inputs.lora ? ids.vram_lora : ids.vram_full));
    if (inputs.mfu_train === null) keys.push("assumption:mfu_train");
    if (inputs.mfu_prefill === null) keys.push("assumption:mfu_prefill");
    if (inputs.mfu_decode === null && r.hw.bandwidth !== null) {
      keys.push("hardware:" + hw + ":bandwidth", "assumption:decode_sequences",
                "assumption:mfu_decode:" + hw);
    }
    keys.push("setup:total");
    return keys.filter(function (k) { return has(d.figures, k); });
  }

  function hasActive(d, modelId) { return has(d.figures, "model:" + modelId + ":active_params"); }

  /* ------------------------------------------------------------------ rendering */

  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c];
    });
  }

  /* A results table in a horizontally scrollable box (phones). */
  function table(head, body) {
    var th = head.map(function (h) { return "<th>" + esc(h) + "</th>"; }).join("");
    return '<div class="tn-calc__scroll"><table class="tn-calc__table"><thead><tr>' + th +
      "</tr></thead><tbody>" + body + "</tbody></table></div>";
  }

  var PHASES = [
    ["rollout", "Rollout"], ["reference", "Scoring (reference, teacher, reward model)"],
    ["training", "Training"], ["storage", "Storage"]
  ];

  function View(data, res, nums) {
    this.d = data;
    this.res = res;
    this.nums = nums;
    this.C = data.constants;
  }

  /* A number as the page shows it, tagged with its calc.numbers key (the tests read these). */
  View.prototype.out = function (key) {
    return '<span data-key="' + esc(key) + '">' +
      esc(fmtValue(formatKind(this.d.formats, key), this.nums[key], this.C)) + "</span>";
  };

  View.prototype.num = function (v) { return esc(fmtNumber(v)); };
  View.prototype.count = function (v) { return esc(fmtCount(v)); };
  View.prototype.usd = function (v) { return esc(fmtUsd(v)); };
  /* A price as the catalog gives it (6 significant digits hide float noise such as 0.0389999…). */
  View.prototype.rate = function (v) { return "$" + this.plain(v); };
  View.prototype.plain = function (v) { return esc(String(Number(v.toPrecision(6)))); };

  View.prototype.flagged = function (keys) {
    var d = this.d, shown = this.keys;
    var bad = keys.filter(function (k) {
      return shown.indexOf(k) >= 0 && d.figures[k].status === "unverified";
    });
    if (!bad.length) return "";
    var labels = bad.map(function (k) { return esc(d.figures[k].label); }).join("; ");
    return ' <a class="tn-calc__flag" href="#calc-inputs" title="Rests on unverified inputs: ' +
      labels + '">unverified input' + (bad.length > 1 ? "s" : "") + "</a>";
  };

  View.prototype.cards = function () {
    var r = this.res.r, t = this.res.tinker, mem = this.res.memory, be = this.res.breakEven;
    var rowName = r.row ? esc(r.model.name + (r.row.variant || "")) : esc(r.model.name);
    var tinker = t.available
      ? this.out("tinker.total") + "<small>" + rowName + " at the " + esc(r.inputs.price_list) +
        " prices" + (t.notCovered.length ? "; without the " + esc(t.notCovered.join(" and ").replace("_", " ")) +
        ", which Tinker does not run" : "") + "</small>"
      : "<span data-key=\"tinker.total\">–</span><small>" + esc(r.model.name) +
        " has no row in the " + esc(r.inputs.price_list) + " price list</small>";
    var own = this.out("self.total") + "<small>" + this.out("self.gpu_hours") + " GPU-hours on " +
      esc(r.hw.name) + " at " + this.out("gpu_price") + " per GPU-hour; ≈ " +
      this.out("wall_clock_hours") + " hours on " + this.count(mem.min_gpus) + " GPU" +
      (mem.min_gpus === 1 ? "" : "s") + "</small>";
    var even = be.gpu_price === null ? "<span data-key=\"breakeven.gpu_price\">–</span><small>needs a Tinker price</small>"
      : this.out("breakeven.gpu_price") + "<small>per GPU-hour (" + this.out("tinker.total") + " ÷ " +
        this.out("self.gpu_hours") + " GPU-hours) makes both bills equal; Tinker costs " +
        this.out("breakeven.ratio") + " the self-hosted compute" +
        (be.runs === null ? "" : "; " + this.out("breakeven.runs") + " such runs repay the " +
          this.usd(be.setup) + " of building the stack") + "</small>";
    var memory = this.out("vram.total") + "<small>fits on " + this.out("vram.min_gpus") + " × " +
      esc(r.hw.name) + " (" + this.num(mem.gpu_memory_gb) + " GB each)</small>";
    function card(title, body) {
      return '<div class="tn-calc__card"><p class="tn-calc__card-title">' + title + "</p>" +
        '<p class="tn-calc__card-value">' + body + "</p></div>";
    }
    return '<div class="tn-calc__cards">' + card("Tinker bill", tinker) +
      card("Self-hosted compute", own) + card("Break-even GPU price", even) +
      card("GPU memory", memory) + "</div>";
  };

  View.prototype.bars = function () {
    var self = this, res = this.res;
    var sums = function (lines) {
      var by = {};
      PHASES.forEach(function (p) { by[p[0]] = 0.0; });
      lines.forEach(function (l) { by[l.phase] = by[l.phase] + l.usd; });
      return by;
    };
    var rows = [];
    if (res.tinker.available) rows.push(["Tinker", sums(res.tinker.lines), res.tinker.total]);
    rows.push(["Self-hosted", sums(res.own.lines), res.own.total]);
    var max = Math.max.apply(null, rows.map(function (x) { return x[2]; }));
    var html = rows.map(function (row) {
      var segs = PHASES.map(function (p) {
        var v = row[1][p[0]];
        if (!(v > 0) || !(max > 0)) return "";
        var width = (100 * v / max).toFixed(3);
        return '<span class="tn-calc__seg tn-calc__seg--' + p[0] + '" style="width:' + width +
          '%" title="' + esc(p[1] + ": " + fmtUsd(v)) + '"></span>';
      }).join("");
      return '<div class="tn-calc__bar-row"><span class="tn-calc__bar-label">' + esc(row[0]) +
        " " + self.usd(row[2]) + '</span><span class="tn-calc__bar">' + segs + "</span></div>";
    }).join("");
    var legend = PHASES.map(function (p) {
      return '<li><span class="tn-calc__swatch tn-calc__seg--' + p[0] + '"></span>' +
        esc(p[1]) + "</li>";
    }).join("");
    return '<h3 id="calc-money">Where the money goes</h3><div class="tn-calc__bars" role="img" ' +
      'aria-label="Cost by phase, Tinker against self-hosted">' + html + "</div>" +
      '<ul class="tn-calc__legend">' + legend + "</ul>";
  };

  View.prototype.tokens = function () {
    var s = this.res.r.inputs.shape, t = this.res.tokens, online = this.res.r.algo.online;
    var rows = [
      ["Episodes", "tokens.episodes", this.count(s.steps) + " steps × " + this.count(s.prompts_per_step) +
        " prompts × G " + this.count(s.group_size)],
      ["Prefill", "tokens.prefill", online
        ? "(T·C0 + Δ·T(T−1)/2 = " + this.count(s.turns) + " × " + this.count(s.prompt_tokens) + " + " +
          this.count(s.context_growth) + " × " + this.count(s.turns) + " × " + this.count(s.turns - 1) +
          " / 2 = " + this.count(t.prefill_per_episode) + " per episode) × episodes; every turn re-sends the whole context"
        : "none: an offline method samples nothing"]
    ];
    if (s.prefix_cache) {
      rows.push(["of which cached", "tokens.prefill_cached", "((T−1)·C0 + Δ·(T−1)(T−2)/2 = " +
        this.count(t.cached_per_episode) + " per episode) × episodes: all but the newest context"]);
    }
    rows.push(["Sampled", "tokens.sample", online ? "T × " + this.count(s.completion_tokens) +
      " completion tokens × episodes" : "none"]);
    rows.push(["Trajectories", "tokens.sequence", "(C0 + Δ·(T−1) + completion = " +
      this.count(t.sequence_per_episode) + ") × episodes: what one scoring pass reads"]);
    rows.push(["Trained", "tokens.train", "trajectories × K (K = " + this.count(s.passes) +
      " optimisation passes)"]);
    var self = this;
    return '<h3 id="calc-tokens">Tokens</h3>' + table(["Kind", "How", "Tokens"],
      rows.map(function (x) {
        return "<tr><th scope=\"row\">" + x[0] + "</th><td>" + x[2] + "</td><td>" + self.out(x[1]) + "</td></tr>";
      }).join(""));
  };

  View.prototype.tinker = function () {
    var t = this.res.tinker, r = this.res.r, self = this;
    var head = '<h3 id="calc-tinker">Tinker bill' + this.flagged(this.priceKeys()) + "</h3>";
    if (!t.available) {
      return head + "<p>" + esc(r.model.name) + " has no price in the " + esc(r.inputs.price_list) +
        " list; pick another price list or model.</p>";
    }
    var rows = t.lines.map(function (l) {
      var how = l.unit === "tokens"
        ? self.count(l.quantity) + " tokens × " + self.rate(l.rate) + " / 1M"
        : self.num(l.quantity) + " GB-months × " + self.rate(l.rate) + " per GB-month";
      if (l.key === "prefill_cached") how += " (prefill price less the " + self.num(r.plist.cache === null ? 0 : r.plist.cache) + "% cached discount)";
      return "<tr><th scope=\"row\">" + esc(l.label) + "</th><td>" + how + "</td><td>" +
        self.out("tinker." + l.key) + "</td></tr>";
    }).join("");
    var notes = "<p class=\"tn-calc__note\">Scoring with a reference or teacher is billed as prefill " +
      "(the cookbook calls <code>compute_logprobs</code> on a sampling client). Tinker trains LoRA " +
      "adapters only, so its bill does not change with the fine-tuning setting." +
      (t.notCovered.length ? " Tinker runs no " + esc(t.notCovered.join(" or ").replace("_", " ")) +
        ": those would have to run elsewhere and are not in this bill." : "") + "</p>";
    return head + table(["Kind", "How", "Cost"], rows +
      '<tr class="tn-calc__total"><th scope="row">Total</th><td></td><td>' + this.out("tinker.total") +
      "</td></tr>") + notes;
  };

  View.prototype.priceKeys = function () {
    var r = this.res.r, keys = [];
    if (r.row) keys.push(r.row.key);
    if (r.teacherRow) keys.push(r.teacherRow.key);
    keys.push("prices:" + r.inputs.price_list + ":cache", "prices:" + r.inputs.price_list + ":storage");
    return keys;
  };

  View.prototype.own = function () {
    var r = this.res.r, self = this, d = this.d;
    var rows = this.res.own.lines.map(function (l) {
      var f = d.formulas[l.formula];
      var vals = Object.keys(l.values).map(function (k) {
        var v = l.values[k];
        return k + " = " + (v >= 1e6 ? exponential(v, 2) : fmtNumber(v));
      }).join(", ");
      var how = self.count(l.tokens) + " tokens × " + esc(exponential(l.flops_per_token, 2)) +
        ' FLOP/token <span class="tn-calc__formula">(' + esc(f.expression) + " with " + esc(vals) +
        ')</span> ÷ (' + self.plain(r.hw.tflops) + " TFLOP/s × " + self.num(l.mfu * 100) + "% MFU)";
      return "<tr><th scope=\"row\">" + esc(l.label) + "</th><td>" + how + "</td><td>" +
        self.out("self." + l.key + ".flops") + "</td><td>" + self.out("self." + l.key + ".gpu_hours") +
        "</td><td>" + self.out("self." + l.key + ".usd") + "</td></tr>";
    }).join("");
    var keys = ["assumption:mfu_train", "assumption:mfu_prefill", "assumption:mfu_decode:" + r.inputs.hardware,
      "formula:" + r.train.id, "hardware:" + r.inputs.hardware + ":price"];
    return '<h3 id="calc-self">Self-hosted compute' + this.flagged(keys) + "</h3>" +
      table(["Phase", "How", "FLOP", "GPU-hours", "Cost"], rows +
      '<tr class="tn-calc__total"><th scope="row">Total</th><td>at ' + this.out("gpu_price") +
      " per GPU-hour</td><td>" + this.out("self.flops") + "</td><td>" + this.out("self.gpu_hours") +
      "</td><td>" + this.out("self.total") + "</td></tr>") +
      '<p class="tn-calc__note">Utilisation: training ' + this.out("mfu.train") + ", prefill and scoring " +
      this.out("mfu.prefill") + ", decode " + this.out("mfu.decode") + ". Compute only: no idle " +
      "GPUs, engineering, storage or egress. The reward model and critic are taken as large as " +
      "the policy.</p>" + this.trainingNote();
  };

  /* Which formula priced the training passes, with its status (the "LoRA FLOP accounting"). */
  View.prototype.trainingNote = function () {
    var r = this.res.r, d = this.d, f = d.formulas[r.train.id];
    var other = "";
    if (r.inputs.lora) {
      var alt = Object.keys(d.lora_flops).filter(function (k) { return k !== r.inputs.lora_flops; })
        .map(function (k) { return d.formulas[d.lora_flops[k]]; });
      other = " Switch with “LoRA FLOP accounting”: " + alt.map(function (a) {
        return esc(a.name) + ' (<code>' + esc(a.expression) + "</code>, " + esc(a.status) + ")";
      }).join(", ") + ".";
    }
    return '<p class="tn-calc__note tn-calc__training-formula" data-formula="' + esc(r.train.id) +
      '">Training FLOPs per token: ' + esc(f.name) + ' <code class="tn-calc__formula">' +
      esc(f.expression) + '</code> <span class="tn-badge tn-badge--' + esc(f.status) + '">' +
      esc(f.status) + "</span>." + other + "</p>";
  };

  View.prototype.memory = function () {
    var mem = this.res.memory, r = this.res.r, self = this, f = this.d.formulas[mem.formula];
    var rows = mem.terms.map(function (term) {
      var value = term.unit === "parameters" ? fmtNumber(term.value) + " parameters"
        : fmtNumber(term.value / self.C.bytes_per_gb) + " GB";
      return "<tr><th scope=\"row\">" + esc(term.variable) + "</th><td>" + esc(term.label) + " = " +
        esc(value) + "</td><td>" + self.out("vram." + term.variable) + "</td></tr>";
    }).join("");
    return '<h3 id="calc-memory">GPU memory' + this.flagged(["formula:" + mem.formula]) + "</h3>" +
      "<p>" + esc(f.name) + ': <code class="tn-calc__formula">' + esc(f.expression) + "</code></p>" +
      table(["Term", "Value", "Bytes"], rows + '<tr class="tn-calc__total"><th scope="row">Total</th><td>÷ ' +
      this.num(mem.gpu_memory_gb) + " GB per " + esc(r.hw.name) + " → " + this.out("vram.min_gpus") +
      " GPUs</td><td>" + this.out("vram.total") + "</td></tr>");
  };

  View.prototype.convergence = function () {
    var c = this.res.convergence, r = this.res.r;
    if (c === null) {
      return '<h3 id="calc-scalerl">Compute to converge</h3><p>' + esc(r.algo.name) +
        " has no ScaleRL fit in the catalog.</p>";
    }
    var fit = r.algo.scalerl, a = r.inputs.algorithm;
    var keys = ["algorithm:" + a + ":A", "algorithm:" + a + ":B", "algorithm:" + a + ":C_mid"];
    return '<h3 id="calc-scalerl">Compute to converge' + this.flagged(keys) + "</h3>" +
      "<p>" + esc(r.algo.name) + "'s ScaleRL fit reaches " + this.num(r.inputs.target_percent) +
      "% of its gain (pass rate " + this.out("scalerl.reward") + " of an asymptote of " +
      this.num(fit.A * 100) + "%) at C = C<sub>mid</sub> / (1/f − 1)<sup>1/B</sup> = " +
      this.num(fit.C_mid) + " / (1/" + this.num(c.fraction) + " − 1)<sup>1/" + this.num(fit.B) +
      "</sup> = " + this.out("scalerl.gb200_hours") + " GB200-hours, " + this.out("scalerl.h100_hours") +
      " H100-equivalent (×" + this.num(this.d.conversion.factor) + ", peak dense BF16 ratio).</p>" +
      "<p>On " + esc(r.hw.name) + ": " + this.out("scalerl.chosen_hours") + " GPU-hours at " +
      this.out("gpu_price") + " = " + this.out("scalerl.usd") + "; on " + esc(this.d.conversion.name) +
      " at its default price: " + this.out("scalerl.gb200_usd") + ". The fit was made on one model " +
      "and dataset; it is an order of magnitude, not a forecast for your run.</p>";
  };

  View.prototype.inputsList = function () {
    var d = this.d, r = this.res.r;
    var items = this.keys.map(function (k) {
      var f = d.figures[k], ref = f.source === null ? null : d.references[f.source];
      /* The decode roofline depends on the model too: show the value this estimate used. */
      var text = k.indexOf("assumption:mfu_decode:") === 0
        ? fmtNumber(r.mfu_decode * 100) + "% for " + r.model.name : f.text;
      var src = ref ? '<a href="' + esc(ref.href) + '">' + esc(ref.title) + "</a>"
        : "no source: assumed here";
      var how = f.how ? '<br><small class="tn-calc__how">' + esc(f.how) + "</small>" : "";
      var instead = f.status === "unverified" && f.instead
        ? '<br><small class="tn-calc__instead">Sources report instead: ' + esc(f.instead) + "</small>" : "";
      return '<li class="tn-calc__input tn-calc__input--' + esc(f.status) + '"><span class="tn-calc__status">' +
        esc(f.status) + "</span> " + esc(f.label) + ": <strong>" + esc(text) + "</strong> · " +
        src + how + instead + "</li>";
    }).join("");
    var bad = this.keys.filter(function (k) { return d.figures[k].status === "unverified"; }).length;
    return '<h3 id="calc-inputs">Inputs and assumptions</h3><p>' + this.keys.length +
      " catalog figures and assumptions produced this estimate; " + bad + " of them are " +
      "<strong>unverified</strong> (not confirmed by a source: given by the original site, a contributor or a " +
      "secondary source, or assumed here; each says which on the Data quality page).</p>" +
      '<ul class="tn-calc__inputs">' + items + "</ul>";
  };

  View.prototype.html = function (keys, link) {
    this.keys = keys;
    return this.cards() + this.bars() + this.tokens() + this.tinker() + this.own() +
      this.memory() + this.convergence() + this.inputsList() +
      '<h3 id="calc-link">Link to this estimate</h3><p class="tn-calc__share">' +
      '<input type="text" readonly class="tn-calc__link" value="' + esc(link) + '" aria-label="Link to this estimate">' +
      '<button type="button" class="md-button tn-calc__copy">Copy link</button></p>';
  };

  /* ------------------------------------------------------------------ the page */

  var ORDER = ["a", "m", "tm", "p", "v", "ft", "lf", "r", "D", "steps", "n", "G", "K", "in", "out",
               "T", "d", "cache", "ref", "hw", "gp", "mt", "mp", "md"];
  var TAIL = ["ck", "mo", "tf"];
  var DEPENDENTS = { a: ["G", "K", "ref", "tm"], m: ["D", "v"], hw: ["gp", "md"], p: ["v"] };

  function readQuery() {
    var q = {};
    new URLSearchParams(window.location.search).forEach(function (value, key) {
      if (!has(q, key)) q[key] = value;
    });
    return q;
  }

  function Page(root) {
    this.root = root;
    this.data = JSON.parse(root.querySelector(".tn-calc__data").textContent);
    this.query = new Query(this.data);
    this.calc = new Calc(this.data);
    this.form = root.querySelector(".tn-calc__form");
    this.results = root.querySelector(".tn-calc__results");
    this.state = readQuery();
  }

  Page.prototype.keyOrder = function () {
    return ORDER.concat(this.data.spec.vram, TAIL);
  };

  Page.prototype.search = function () {
    var state = this.state;
    var parts = this.keyOrder().filter(function (k) { return has(state, k); }).map(function (k) {
      return encodeURIComponent(k) + "=" + encodeURIComponent(state[k]).replace(/%3A/g, ":");
    });
    return parts.length ? "?" + parts.join("&") : "";
  };

  Page.prototype.pin = function (inputs) {
    /* A link names the model, algorithm, price list and GPU even when they were defaults, so
       it keeps meaning the same run when the catalog's defaults change. */
    var pins = { m: inputs.model, a: inputs.algorithm, p: inputs.price_list, hw: inputs.hardware };
    for (var k in pins) if (!has(this.state, k)) this.state[k] = pins[k];
    var known = this.keyOrder(), state = this.state;
    Object.keys(state).forEach(function (k) { if (known.indexOf(k) < 0) delete state[k]; });
  };

  Page.prototype.update = function (source) {
    var inputs = this.query.inputs(this.state);
    this.pin(inputs);
    var url = window.location.pathname + this.search() + window.location.hash;
    window.history.replaceState(window.history.state, "", url);
    var res = this.calc.calculate(inputs);
    var nums = numbers(res);
    var keys = figureKeys(this.data, res.r);
    this.last = { inputs: inputs, numbers: nums, figures: keys };
    this.results.innerHTML = new View(this.data, res, nums).html(keys, window.location.href);
    this.syncForm(res.r, source);
    this.root.setAttribute("data-tn-ready", "1");
    this.root.dispatchEvent(new CustomEvent("tn-calc:update", { bubbles: true }));
  };

  Page.prototype.setField = function (name, value, source) {
    var el = this.form.elements.namedItem(name);
    if (!el || el === source) return;
    if (el.type === "checkbox") el.checked = !!value;
    else el.value = value;
  };

  Page.prototype.syncForm = function (r, source) {
    var s = r.inputs.shape, st = this.state, self = this, d = this.data;
    function shown(key, value) { return has(st, key) ? st[key] : value; }
    var variants = this.form.elements.namedItem("v");
    if (variants && variants !== source) {
      var rows = r.plist.rows.filter(function (x) { return x.model === r.modelId; });
      variants.innerHTML = (rows.length ? rows : [{ variant: "" }]).map(function (x) {
        var label = x.variant ? x.variant : rows.length ? "standard" : "not in this price list";
        return '<option value="' + esc(x.variant) + '">' + esc(label) + "</option>";
      }).join("");
      variants.value = r.row ? r.row.variant : "";
    }
    var values = {
      a: r.inputs.algorithm, m: r.modelId, tm: r.teacherId || r.modelId, p: r.inputs.price_list,
      ft: r.inputs.lora ? "lora" : "full", lf: r.inputs.lora_flops, r: String(r.lora_rank), D: String(r.d_model),
      steps: String(s.steps), n: String(s.prompts_per_step), G: String(s.group_size),
      K: String(s.passes), "in": String(s.prompt_tokens), out: String(s.completion_tokens),
      T: String(s.turns), d: String(s.context_growth), cache: s.prefix_cache, ref: r.scoreRef,
      hw: r.inputs.hardware, gp: shown("gp", String(r.gpu_price)),
      mt: shown("mt", fmtNumber(r.mfu_train * 100)), mp: shown("mp", fmtNumber(r.mfu_prefill * 100)),
      md: shown("md", fmtNumber(r.mfu_decode * 100)), ck: String(r.inputs.checkpoints),
      mo: shown("mo", String(r.inputs.storage_months)), tf: shown("tf", String(r.inputs.target_percent))
    };
    d.spec.vram.forEach(function (name) {
      var v = null;
      [d.ids.vram_lora, d.ids.vram_full].forEach(function (fid) {
        d.formulas[fid].variables.forEach(function (x) { if (x.name === name && v === null) v = x.example; });
      });
      values[name] = shown(name, fmtNumber(v / d.constants.bytes_per_gb));
    });
    Object.keys(values).forEach(function (k) { self.setField(k, values[k], source); });
    this.toggle("tm", r.roles.indexOf("teacher") >= 0);
    /* R and D only matter to an accounting whose formula uses them (the original site's). */
    this.toggle("lf", r.inputs.lora);
    this.toggle("r", has(r.train.values, d.ids.rank));
    this.toggle("D", has(r.train.values, d.ids.d_model));
    this.toggle("ref", r.algo.roles.indexOf("reference") >= 0);
    Array.prototype.forEach.call(this.form.querySelectorAll("input[data-kind]"), function (el) {
      var bad = el.value.trim() !== "" && !(el.getAttribute("data-kind") === "int" ? self.query.intRe : self.query.numRe).test(el.value.trim());
      el.setAttribute("aria-invalid", bad ? "true" : "false");
    });
  };

  Page.prototype.toggle = function (name, on) {
    var label = this.form.querySelector('[data-field="' + name + '"]');
    if (label) label.hidden = !on;
  };

  Page.prototype.onChange = function (el) {
    var key = el.name;
    if (!key) return;
    var value = el.type === "checkbox" ? (el.checked ? "1" : "0") : el.value.trim();
    if (value === "") delete this.state[key];
    else this.state[key] = value;
    (DEPENDENTS[key] || []).forEach(function (dep) { delete this.state[dep]; }, this);
    this.update(el.type === "checkbox" || el.tagName === "SELECT" ? null : el);
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
        self.state = {};
        new URLSearchParams(a.getAttribute("href").replace(/^\?/, "")).forEach(function (v, k) {
          self.state[k] = v;
        });
        self.update(null);
      });
    });
    this.results.addEventListener("click", function (e) {
      var button = e.target.closest(".tn-calc__copy");
      if (!button) return;
      var field = self.results.querySelector(".tn-calc__link");
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
    /* For tests and the console: the last estimate on the page. */
    last: function () {
      var root = document.querySelector("[data-tn-calc]");
      return root && root.tnPage ? root.tnPage.last : null;
    },
    format: { number: fmtNumber, count: fmtCount, usd: fmtUsd, value: fmtValue }
  };

  if (window.document$ && typeof window.document$.subscribe === "function") {
    window.document$.subscribe(boot);
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", boot);
  } else {
    boot();
  }
})();
