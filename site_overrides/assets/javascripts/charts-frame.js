/* tinker-nomics charts: the embed page in its frame (embed pages and exported pages).
 *
 * Part of the chart loader (charts.js, which loads after this file and calls
 * window.tnCharts.startFrame on a page marked data-tn-embed; this file reads the drawn charts
 * through window.tnCharts.live). On an embed page it posts the page's natural height to the
 * parent frame (embed/resize.js, and WordPress's wp-embed.js when the frame's URL carries its
 * secret), drops what does not fit a short frame (fit), and in a frame on another origin or
 * sandboxed makes every link and download open in a new tab (else the top window, else the
 * frame itself). Site pages do not load it.
 */
(function () {
  "use strict";

  var tn = window.tnCharts = window.tnCharts || {};

  /* The embed page fills its frame (charts.css): its natural height is the figure's content
     (scrollHeight, clipped or not) with the chart box at its own aspect ratio instead of the
     size it was given, then the credit line. */
  function naturalHeight() {
    var main = document.querySelector(".tn-embed__main");
    var figure = main && main.querySelector(".tn-chart");
    var frame = figure && figure.querySelector(".tn-chart__frame");
    var credit = main && main.lastElementChild;
    if (!figure || !frame || !credit) return document.body.getBoundingClientRect().height;
    var ratio = getComputedStyle(frame).aspectRatio.split("/").map(parseFloat);
    var box = frame.getBoundingClientRect();
    var own = ratio.length === 2 && ratio[0] > 0 ? box.width * ratio[1] / ratio[0] : box.height;
    var style = getComputedStyle(credit);
    var after = credit.getBoundingClientRect().height + (parseFloat(style.marginTop) || 0) +
      (parseFloat(style.marginBottom) || 0) +
      (parseFloat(getComputedStyle(main).paddingBottom) || 0);
    return figure.getBoundingClientRect().top + window.scrollY + figure.scrollHeight -
      box.height + own + after;
  }

  /* An embed shorter than it needs drops, in order, the Share row (level 1), the legend for a
     one-line key (2: the static chart's view box is cropped above its legend, the interactive
     chart hides its own) and the caption's description (3), stopping at the first level at
     which what is left fits (charts.css, classes tn-fit-1..3); a level fits when the chart
     box loses at most FIT_SLACK of its own height (it keeps its proportions, a little
     narrower), rather than drop a whole row for a few pixels. Returns the height the page
     needs with nothing dropped, which the host is told. */
  var FIT_SLACK = 0.05;
  var fitLevel = 0;

  /* The static chart ends above its legend: the frame's drawing height per layout
     (--tn-h-wide, --tn-h-narrow, charts.fallback) drops to where the legend starts
     (data-tn-legend), which crops the picture; an export's inline SVG crops its view box. */
  var LAYOUTS = ["wide", "narrow"];

  function cropLegend(crop) {
    var frame = document.querySelector(".tn-embed .tn-chart__frame");
    if (!frame) return;
    var tops = (frame.getAttribute("data-tn-legend") || "").split(" ").map(parseFloat);
    if (!frame.tnHeights) {
      frame.tnHeights = LAYOUTS.map(function (layout) {
        return parseFloat(frame.style.getPropertyValue("--tn-h-" + layout));
      });
    }
    LAYOUTS.forEach(function (layout, i) {
      var full = frame.tnHeights[i];
      var height = crop && tops[i] > 0 ? Math.min(full, tops[i]) : full;
      if (full > 0) frame.style.setProperty("--tn-h-" + layout, String(height));
      var svg = frame.querySelector(".tn-svg--" + layout);
      if (!svg) return;
      if (!svg.tnViewBox) svg.tnViewBox = svg.getAttribute("viewBox");
      var box = svg.tnViewBox.split(/\s+/);
      svg.setAttribute("viewBox", box[0] + " " + box[1] + " " + box[2] + " " + height);
    });
  }

  /* ?bg=transparent (the theme script's data-tn-bg): the host's background shows through the
     static chart too. Its pictures are the chart's files, which have a background: shown from
     their text with every filled rectangle unfilled (the file is the one the browser has). */
  function clearBackground() {
    if (document.documentElement.getAttribute("data-tn-bg") !== "transparent") return;
    var found = document.querySelectorAll(".tn-embed .tn-chart__pic source, " +
      ".tn-embed .tn-chart__pic img");
    Array.prototype.forEach.call(found, function (el) {
      var attr = el.tagName === "IMG" ? "src" : "srcset";
      var url = new URL(el.getAttribute(attr), location.href).href;
      fetch(url).then(function (response) {
        if (!response.ok) throw new Error(response.status + " " + url);
        return response.text();
      }).then(function (text) {
        var clear = text.replace(/(<rect\b[^>]*?) fill="(?!none")[^"]*"/g, '$1 fill="none"');
        el.setAttribute(attr, "data:image/svg+xml," + encodeURIComponent(clear));
      }).catch(function (error) { console.warn("tinker-nomics embed: " + error); });
    });
  }

  /* The interactive chart's legend follows, once the level is settled. */
  function syncPlotLegend() {
    tn.live().forEach(function (chart) {
      var shown = fitLevel < 2 && chart.spec.layout.showlegend !== false;
      if (chart.gd.isConnected && chart.legend !== shown) {
        chart.legend = shown;
        window.Plotly.relayout(chart.gd, { showlegend: shown });
      }
    });
  }

  function setFitLevel(level) {
    var root = document.documentElement;
    for (var n = 1; n <= 3; n++) root.classList.toggle("tn-fit-" + n, level >= n);
    if ((level >= 2) !== (fitLevel >= 2)) cropLegend(level >= 2);
    fitLevel = level;
  }

  function chartHeight() {
    var frame = document.querySelector(".tn-embed .tn-chart__frame");
    if (!frame) return 0;
    var ratio = getComputedStyle(frame).aspectRatio.split("/").map(parseFloat);
    var width = frame.getBoundingClientRect().width;
    return ratio.length === 2 && ratio[0] > 0 ? width * ratio[1] / ratio[0] : 0;
  }

  function fits() {
    return naturalHeight() - window.innerHeight <= FIT_SLACK * chartHeight() + 0.5;
  }

  /* Without its description the caption may leave room: show as many of its lines as fit. */
  function clampDescription() {
    var root = document.documentElement;
    var desc = document.querySelector(".tn-embed .tn-chart__desc");
    root.classList.remove("tn-fit-clamp");
    if (!desc) return;
    var line = parseFloat(getComputedStyle(desc).lineHeight) || 22;
    var lines = Math.floor((window.innerHeight - naturalHeight()) / line);
    root.classList.add("tn-fit-clamp");
    for (; lines >= 1; lines--) {
      root.style.setProperty("--tn-desc-lines", String(lines));
      if (naturalHeight() <= window.innerHeight + 0.5) return;
    }
    root.classList.remove("tn-fit-clamp");
  }

  function fit() {
    var root = document.documentElement;
    if (!root.classList.contains("tn-fill")) return naturalHeight();
    root.classList.add("tn-fitted");
    root.classList.remove("tn-fit-clamp");
    setFitLevel(0);
    var full = naturalHeight();
    while (fitLevel < 3 && !fits()) setFitLevel(fitLevel + 1);
    if (fitLevel === 3) clampDescription();
    syncPlotLegend();
    return full;
  }

  /* WordPress's oEmbed sanitiser adds #?secret=... to the frame's URL and sandboxes it; its
     host script (wp-embed.js) then sets the height and follows links the frame posts with
     that secret ({message: "height" | "link", value, secret}). */
  var wpSecret = (/[#&?]secret=([A-Za-z0-9]+)/.exec(location.hash) || [])[1] || "";

  function toParent(message) {
    window.parent.postMessage(message, "*");
  }

  /* Embed pages tell the host page their height (embed/resize.js, or WordPress's script). */
  function reportHeight() {
    var framed = window.parent !== window;
    var last = -1;
    var post = function (again) {
      var height = Math.ceil(fit());
      if (!framed || (height === last && again !== true)) return;
      last = height;
      toParent({ type: "tinkernomics:height", height: height });
      if (wpSecret) toParent({ message: "height", value: height, secret: wpSecret });
    };
    new ResizeObserver(post).observe(document.body);
    window.addEventListener("resize", post);
    document.addEventListener("tn-chart:ready", post);
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(post);
    window.addEventListener("message", function (event) {
      var data = event.data;
      if (event.source !== window.parent || !data) return;
      /* resize.js, loaded after this frame had spoken, or WordPress's host script, ready */
      if (data.type === "tinkernomics:ask" || (data.message === "ready" && data.secret === wpSecret)) {
        post(true);
      }
    });
    post();
  }

  /* In a frame on another origin (a blog, Notion, Medium/Embedly) or sandboxed (an opaque
     origin; WordPress), links leave the frame for a new tab: target=_top throws in a sandbox
     without top navigation, and a sandbox without allow-downloads drops the download of
     the Share row's files, which open in the new tab instead. */
  function crossOrigin() {
    if (window.parent === window) return false;
    try {
      return !window.parent.location.href;
    } catch (error) {
      return true;
    }
  }

  /* A new tab (allow-popups), else the top window, else this frame itself. */
  function leaveFrame(url, tabFirst) {
    var opened = null;
    if (tabFirst) {
      try { opened = window.open(url, "_blank"); } catch (error) { opened = null; }
    }
    if (opened) {
      try { opened.opener = null; } catch (error) { /* another origin already */ }
      return;
    }
    try {
      window.top.location.href = url;
      return;
    } catch (error) { /* sandboxed: no top navigation */ }
    location.href = url;
  }

  /* WordPress's sandbox (allow-scripts only) has no popups: its host script follows the
     link it is told of, else the top window or this frame. */
  function openFromFrame(url) {
    if (wpSecret) {
      toParent({ message: "link", value: url, secret: wpSecret });
      setTimeout(function () { leaveFrame(url, false); }, 400);  /* the host did not */
    } else {
      leaveFrame(url, true);
    }
  }

  function guardLinks() {
    if (window.parent === window || !(crossOrigin() || wpSecret || window.origin === "null")) {
      return;
    }
    var links = document.querySelectorAll(".tn-embed a[href]");
    for (var i = 0; i < links.length; i++) {
      links[i].removeAttribute("download");
      links[i].setAttribute("target", "_blank");
      links[i].setAttribute("rel", "noopener");
    }
    document.documentElement.classList.add("tn-framed");
    document.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest("a[target=_blank]");
      if (!link || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) {
        return;
      }
      event.preventDefault();
      openFromFrame(link.href);
    });
  }

  tn.startFrame = function () {
    clearBackground();
    reportHeight();
    guardLinks();
  };
})();
