/* tinker-nomics chart loader (site pages, embed pages, exported pages): drawing and theming.
 *
 * Every chart container ([data-tn-chart], written by tinkernomics.site.charts.feature) arrives with a
 * static chart (first paint, no-JS fallback: the chart's SVG files, light and dark, which CSS
 * picks by the palette, tinkernomics.site.charts.fallback; an export's inline SVG) and
 * the URL of its Plotly spec (data-tn-spec: embed/<id>/spec.json, one file per chart that its
 * page and its embed page share, fetched with plotly.js on first interaction and joined with
 * the two files it names: embed/spec-base.json and the chart's data.json). An exported page
 * carries the spec inline, as JSON in a <template> (not a <script>: Material's instant
 * navigation re-creates inline scripts without their type, which would run the JSON as code).
 * This file upgrades the static chart to the interactive Plotly chart:
 * - plotly.js (the self-hosted basic bundle, ~395 KB gzipped) is fetched once per visit, only on
 *   a page with a chart, and only when the reader shows intent (pointer over the chart, a click or
 *   tap on it, or the "Interactive chart" button): a reader who only looks pays nothing for it.
 *   Once it is loaded, later charts (other pages reached by instant navigation) upgrade as soon
 *   as they come near the viewport. A page that loaded plotly itself (an export) upgrades at once.
 * - Every number, label and colour comes from the spec: this file only applies it. Charts are
 *   re-themed when the palette attribute (data-md-color-scheme) changes, resized with their box
 *   (window, content tabs) and purged when Material's instant navigation replaces the page.
 * - Below spec.narrow.width_px (phones) the chart takes the spec's narrow overrides.
 * - Activated from its button, the chart takes the keyboard focus (it has role="img" and a
 *   label), so focus does not fall to <body> when the button goes.
 * - "Add a curve" (comparison chart) fetches the chosen curve's traces, written at build
 *   under embed/scalerl-comparison/series/, and adds them: no curve is computed here.
 * - Copy buttons and the embed box are in charts-share.js, the embed page's fit to its frame,
 *   height messages and links in charts-frame.js (embed and exported pages only). Both load
 *   before this file (deferred scripts run in order; the embed page lists them in order) and
 *   register on the one global, window.tnCharts; this file starts everything.
 */
(function () {
  "use strict";

  var tn = window.tnCharts = window.tnCharts || {};
  var SCHEME = "data-md-color-scheme";
  var script = document.currentScript;
  var plotlySrc = (script && script.getAttribute("data-plotly-src")) ||
    (script && script.src ? new URL("../vendor/plotly.min.js", script.src).href : "");
  var plotlyPromise = null;
  var live = [];
  var visibility = null;

  /* The charts drawn and still tracked (charts-frame.js syncs their legends). */
  tn.live = function () { return live; };

  /* The drawn plot's name: the caption's title and description (not a copy in the page). */
  function plotLabel(box) {
    var text = function (sel) {
      var el = box.querySelector(sel);
      return el ? el.textContent.trim() : "";
    };
    return text(".tn-chart__title") + " (interactive chart). " + text(".tn-chart__desc");
  }

  function loadPlotly() {
    if (window.Plotly) return Promise.resolve(window.Plotly);
    if (!plotlyPromise) {
      plotlyPromise = new Promise(function (resolve, reject) {
        var tag = document.createElement("script");
        tag.src = plotlySrc;
        tag.async = true;
        tag.onload = function () { resolve(window.Plotly); };
        tag.onerror = function () {
          plotlyPromise = null;
          reject(new Error("could not load " + plotlySrc));
        };
        document.head.appendChild(tag);
      });
    }
    return plotlyPromise;
  }

  function schemeElement() {
    return document.body && document.body.hasAttribute(SCHEME) ? document.body
      : document.documentElement;
  }

  function themeName() {
    return schemeElement().getAttribute(SCHEME) === "slate" ? "dark" : "light";
  }

  /* Apply Plotly relayout-style keys ("xaxis.gridcolor") to a copy of a nested layout. */
  function themed(layout, theme) {
    var copy = JSON.parse(JSON.stringify(layout));
    Object.keys(theme).forEach(function (path) {
      var keys = path.split(".");
      var node = copy;
      for (var i = 0; i < keys.length - 1; i++) {
        node = node[keys[i]] = node[keys[i]] || {};
      }
      node[keys[keys.length - 1]] = theme[path];
    });
    return copy;
  }

  /* The spec's values at the keys the narrow overrides change (to undo them when wider). */
  function valuesAt(layout, keys) {
    var out = {};
    keys.forEach(function (path) {
      var node = layout;
      path.split(".").forEach(function (key) { node = node == null ? undefined : node[key]; });
      out[path] = node === undefined ? null : node;
    });
    return out;
  }

  function isNarrow(chart) {
    return chart.gd.offsetWidth > 0 && chart.gd.offsetWidth < chart.spec.narrow.width_px;
  }

  function fitWidth(chart) {
    var narrow = isNarrow(chart);
    if (narrow === chart.narrow) return;
    chart.narrow = narrow;
    window.Plotly.relayout(chart.gd, narrow ? chart.spec.narrow.layout : chart.wide);
  }

  function getJSON(url) {
    return fetch(url).then(function (response) {
      if (!response.ok) throw new Error(response.status + " " + url);
      return response.json();
    });
  }

  /* spec.json joined with what it names (tinkernomics.site.charts.plotlyspec.file_figure):
     spec.base, what every chart shares (its layout keys first), and spec.points.file, the
     chart's data.json, whose series[i].points fill trace spec.points.traces[i]'s arrays. */
  function joined(spec, url) {
    var points = spec.points;
    return Promise.all([spec.base ? getJSON(new URL(spec.base, url).href) : {},
      points ? getJSON(new URL(points.file, url).href) : null]).then(function (got) {
      var base = got[0], out = {};
      Object.keys(base).concat(Object.keys(spec)).forEach(function (key) {
        if (key !== "box") out[key] = key in spec ? spec[key] : base[key];  /* the embed box's */
      });
      out.layout = Object.assign({}, base.layout, spec.layout);
      if (points) {
        points.traces.forEach(function (index, i) {
          var rows = got[1].series[i].points;
          ["x", "y", "customdata"].forEach(function (key) {
            out.data[index][key] = rows.map(function (row) { return row[points[key]]; });
          });
        });
      }
      return out;
    });
  }

  /* The chart's Plotly spec: inline in an export, else fetched from its embed folder (one file
     per chart, shared by its page and its embed page), in parallel with plotly.js. */
  function specOf(box) {
    var inline = box.querySelector("template.tn-chart__spec");
    if (inline) return Promise.resolve(JSON.parse(inline.content.textContent));
    var url = new URL(box.getAttribute("data-tn-spec"), location.href).href;
    return getJSON(url).then(function (spec) { return joined(spec, url); });
  }

  function render(box, focus) {
    if (box.tnState) {
      if (focus && box.tnState === "ready") box.querySelector(".tn-chart__plot").focus();
      return box.tnReady;
    }
    box.tnState = "loading";
    var gd = box.querySelector(".tn-chart__plot");
    box.tnReady = Promise.all([loadPlotly(), specOf(box)]).then(function (loaded) {
      var Plotly = loaded[0], spec = loaded[1];
      if (!box.isConnected) return null;
      var theme = themeName();
      var layout = themed(spec.layout, themeOf(spec, theme));
      var narrow = gd.offsetWidth > 0 && gd.offsetWidth < spec.narrow.width_px;
      if (narrow) layout = themed(layout, spec.narrow.layout);
      return Plotly.newPlot(gd, spec.data, layout, spec.config).then(function () {
        var chart = { box: box, gd: gd, spec: spec, theme: theme, resizer: null,
          narrow: narrow, wide: valuesAt(spec.layout, Object.keys(spec.narrow.layout)) };
        chart.resizer = new ResizeObserver(function () {
          if (gd.offsetWidth > 0 && gd.isConnected) {
            fitWidth(chart);
            Plotly.Plots.resize(gd);
          }
        });
        chart.resizer.observe(gd);
        live.push(chart);
        retheme();  /* in case the palette changed while plotly.js was loading */
        box.tnState = "ready";
        /* One image at a time for screen readers: the plot is named once it is drawn, and
           the static SVG (hidden now) leaves the accessibility tree. */
        gd.setAttribute("role", "img");
        gd.setAttribute("aria-label", plotLabel(box));
        box.classList.add("tn-chart--ready");
        showAll(box, ".tn-chart__needs-plot", true);
        if (focus) gd.focus();
        observeVisible();
        box.dispatchEvent(new CustomEvent("tn-chart:ready", { bubbles: true }));
        return chart;
      });
    }).catch(function (error) {
      box.tnState = "failed";
      box.classList.add("tn-chart--failed");
      console.warn("tinker-nomics chart " + box.getAttribute("data-tn-chart") + ": " + error);
      return null;
    });
    return box.tnReady;
  }

  function showAll(box, selector, shown) {
    var found = box.querySelectorAll(selector);
    for (var i = 0; i < found.length; i++) found[i].hidden = !shown;
  }

  /* The spec's theme; on an embed page asked for ?bg=transparent, without backgrounds. */
  function themeOf(spec, name) {
    var theme = spec.themes[name];
    if (document.documentElement.getAttribute("data-tn-bg") !== "transparent") return theme;
    var clear = {};
    Object.keys(theme).forEach(function (key) { clear[key] = theme[key]; });
    clear.paper_bgcolor = clear.plot_bgcolor = "rgba(0,0,0,0)";
    return clear;
  }

  function retheme() {
    var name = themeName();
    live.forEach(function (chart) {
      if (chart.theme === name || !chart.gd.isConnected) return;
      chart.theme = name;
      window.Plotly.relayout(chart.gd, themeOf(chart.spec, name));
    });
  }

  function downloadImage(box, format) {
    var chart = live.filter(function (c) { return c.box === box; })[0];
    if (!chart) return;
    var image = chart.spec.image;
    var figure = {
      data: chart.gd.data,
      /* image.layout: what the image changes of the page's layout, as relayout keys */
      layout: themed(themed(chart.spec.layout, image.layout), chart.spec.themes[themeName()]),
    };
    window.Plotly.downloadImage(figure, {
      format: format, width: image.width, height: image.height, filename: image.filename,
    });
  }

  function addCurve(box, button) {
    var select = box.querySelector(".tn-chart__select");
    var status = box.querySelector(".tn-chart__status-text");
    var option = select.options[select.selectedIndex];
    if (!option || !option.value) return;
    var url = new URL(box.getAttribute("data-tn-series") + option.value + ".json",
      location.href).href;
    button.disabled = true;
    Promise.all([render(box), fetch(url).then(function (r) {
      if (!r.ok) throw new Error(r.status + " " + url);
      return r.json();
    })]).then(function (done) {
      var chart = done[0];
      if (!chart) throw new Error("chart not drawn");
      var grid = chart.gd.data[0];  /* a series file's curve has the chart's shared grid */
      done[1].forEach(function (trace) {
        if (!trace.x) { trace.x = grid.x; trace.customdata = grid.customdata; }
      });
      return window.Plotly.addTraces(chart.gd, done[1]).then(function () {
        option.disabled = true;
        select.selectedIndex = 0;
        status.textContent = "Added " + option.textContent + ".";
      });
    }).catch(function (error) {
      status.textContent = "Could not add the curve (" + error.message + ").";
    }).then(function () { button.disabled = false; });
  }

  function wire(box) {
    if (box.tnWired) return;
    box.tnWired = true;
    box.addEventListener("click", function (event) {
      var target = event.target.closest("button");
      if (!target) return;
      if (target.hasAttribute("data-tn-activate")) {
        render(box, true);
      } else if (target.hasAttribute("data-tn-image")) {
        downloadImage(box, target.getAttribute("data-tn-image"));
      } else if (target.hasAttribute("data-tn-copy")) {
        tn.copySnippet(target);
      } else if (target.hasAttribute("data-tn-copy-link")) {
        tn.copyText(target, new URL(target.getAttribute("data-tn-copy-link"), location.href).href);
      } else if (target.hasAttribute("data-tn-add")) {
        addCurve(box, target);
      }
    });
    var details = box.querySelector(".tn-chart__embed");
    if (details) {
      details.addEventListener("change", function (event) {
        if (event.target.matches(".tn-chart__theme, .tn-chart__bg")) tn.setSnippetTheme(details);
      });
      details.addEventListener("toggle", function () {
        if (details.open) tn.fillBox(details);
      });
      if (details.open) tn.fillBox(details);
    }
    /* Intent to interact: a mouse or pen over the chart, or a click/tap on it. A touch that
       starts a scroll is not intent, so touch upgrades on click (tap) only. */
    var frame = box.querySelector(".tn-chart__frame");
    frame.addEventListener("pointerenter", function (event) {
      if (event.pointerType !== "touch") render(box);
    });
    frame.addEventListener("click", function () { render(box); });
    box.classList.add("tn-chart--armed");
  }

  /* Once plotly.js is loaded, charts upgrade when they come near the viewport. */
  function observeVisible() {
    if (!window.Plotly) return;
    if (visibility) visibility.disconnect();
    visibility = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) return;
        visibility.unobserve(entry.target);
        render(entry.target);
      });
    }, { rootMargin: "300px 0px" });
    var boxes = document.querySelectorAll("[data-tn-chart]");
    for (var i = 0; i < boxes.length; i++) {
      if (!boxes[i].tnState) visibility.observe(boxes[i]);
    }
  }

  /* Each page view (first load and every instant navigation). */
  function scan() {
    live = live.filter(function (chart) {
      if (chart.gd.isConnected) return true;
      chart.resizer.disconnect();
      window.Plotly.purge(chart.gd);
      return false;
    });
    var boxes = document.querySelectorAll("[data-tn-chart]");
    for (var i = 0; i < boxes.length; i++) wire(boxes[i]);
    observeVisible();
  }

  function watchScheme() {
    var observer = new MutationObserver(retheme);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: [SCHEME] });
    if (document.body) {
      observer.observe(document.body, { attributes: true, attributeFilter: [SCHEME] });
    }
  }

  function start() {
    watchScheme();
    if (document.documentElement.hasAttribute("data-tn-embed")) tn.startFrame();
    if (window.document$ && typeof window.document$.subscribe === "function") {
      window.document$.subscribe(scan);
    } else {
      scan();
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
