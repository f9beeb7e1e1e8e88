/* tinker-nomics chart loader (site pages, embed pages, exported pages).
 *
 * Every chart container ([data-tn-chart], written by tinkernomics.site.charts.feature) arrives with a
 * static SVG of the chart (first paint, no-JS fallback; it follows the palette through CSS) and
 * the Plotly spec as JSON in a <template> (not a <script>: Material's instant navigation
 * re-creates inline scripts without their type, which would run the JSON as code).
 * This file upgrades the SVG to the interactive Plotly chart:
 * - plotly.js (self-hosted, ~1.4 MB gzipped) is fetched once per visit, only on a page with a
 *   chart, and only when the reader shows intent (pointer over the chart, a click or tap on it,
 *   or the "Interactive chart" button): a reader who only looks pays nothing for it. Once it is
 *   loaded, later charts (other pages reached by instant navigation) upgrade as soon as they
 *   come near the viewport. A page that loaded plotly itself (an export) upgrades at once.
 * - Every number, label and colour comes from the spec: this file only applies it. Charts are
 *   re-themed when the palette attribute (data-md-color-scheme) changes, resized with their box
 *   (window, content tabs) and purged when Material's instant navigation replaces the page.
 * - On an embed page it posts the page height to the parent frame (see embed/resize.js).
 */
(function () {
  "use strict";

  var SCHEME = "data-md-color-scheme";
  var script = document.currentScript;
  var plotlySrc = (script && script.getAttribute("data-plotly-src")) ||
    (script && script.src ? new URL("../vendor/plotly.min.js", script.src).href : "");
  var plotlyPromise = null;
  var live = [];
  var visibility = null;

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

  function render(box) {
    if (box.tnState) return;
    box.tnState = "loading";
    var spec = JSON.parse(box.querySelector("template.tn-chart__spec").content.textContent);
    var gd = box.querySelector(".tn-chart__plot");
    loadPlotly().then(function (Plotly) {
      if (!box.isConnected) return null;
      var theme = themeName();
      var layout = themed(spec.layout, spec.themes[theme]);
      return Plotly.newPlot(gd, spec.data, layout, spec.config).then(function () {
        var chart = { box: box, gd: gd, spec: spec, theme: theme, resizer: null };
        chart.resizer = new ResizeObserver(function () {
          if (gd.offsetWidth > 0 && gd.isConnected) Plotly.Plots.resize(gd);
        });
        chart.resizer.observe(gd);
        live.push(chart);
        retheme();  /* in case the palette changed while plotly.js was loading */
        box.tnState = "ready";
        box.classList.add("tn-chart--ready");
        showAll(box, ".tn-chart__needs-plot", true);
        observeVisible();
        box.dispatchEvent(new CustomEvent("tn-chart:ready", { bubbles: true }));
      });
    }).catch(function (error) {
      box.tnState = "failed";
      box.classList.add("tn-chart--failed");
      console.warn("tinker-nomics chart " + box.getAttribute("data-tn-chart") + ": " + error);
    });
  }

  function showAll(box, selector, shown) {
    var found = box.querySelectorAll(selector);
    for (var i = 0; i < found.length; i++) found[i].hidden = !shown;
  }

  function retheme() {
    var name = themeName();
    live.forEach(function (chart) {
      if (chart.theme === name || !chart.gd.isConnected) return;
      chart.theme = name;
      window.Plotly.relayout(chart.gd, chart.spec.themes[name]);
    });
  }

  function downloadImage(box, format) {
    var chart = live.filter(function (c) { return c.box === box; })[0];
    if (!chart) return;
    var image = chart.spec.image;
    var figure = {
      data: chart.gd.data,
      layout: themed(image.layout, chart.spec.themes[themeName()]),
    };
    window.Plotly.downloadImage(figure, {
      format: format, width: image.width, height: image.height, filename: image.filename,
    });
  }

  function copySnippet(button) {
    var area = button.parentNode.querySelector(".tn-chart__snippet");
    var done = function () {
      button.textContent = "Copied";
      setTimeout(function () { button.textContent = "Copy embed code"; }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(area.value).then(done, function () {});
    } else {
      area.select();
      if (document.execCommand("copy")) done();
    }
  }

  /* Snippets carry absolute URLs when the site knows its URL; otherwise resolve them here. */
  function absolutize(area) {
    area.value = area.value.replace(/src="(?!https?:)([^"]+)"/g, function (_, url) {
      return 'src="' + new URL(url, location.href).href + '"';
    });
  }

  function wire(box) {
    if (box.tnWired) return;
    box.tnWired = true;
    box.addEventListener("click", function (event) {
      var target = event.target.closest("button");
      if (!target) return;
      if (target.hasAttribute("data-tn-activate")) {
        render(box);
      } else if (target.hasAttribute("data-tn-image")) {
        downloadImage(box, target.getAttribute("data-tn-image"));
      } else if (target.hasAttribute("data-tn-copy")) {
        copySnippet(target);
      }
    });
    var area = box.querySelector(".tn-chart__snippet");
    if (area) absolutize(area);
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

  /* Embed pages tell the host page their height (embed/resize.js applies it). */
  function reportHeight() {
    if (window.parent === window) return;
    var last = -1;
    var post = function () {
      var height = Math.ceil(document.body.getBoundingClientRect().height);
      if (height === last) return;
      last = height;
      window.parent.postMessage({ type: "tinkernomics:height", height: height }, "*");
    };
    new ResizeObserver(post).observe(document.body);
    document.addEventListener("tn-chart:ready", post);
    post();
  }

  function start() {
    watchScheme();
    if (document.documentElement.hasAttribute("data-tn-embed")) reportHeight();
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
