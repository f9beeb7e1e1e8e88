/* tinker-nomics chart loader (site pages, embed pages, exported pages).
 *
 * Every chart container ([data-tn-chart], written by tinkernomics.site.charts.feature) arrives with a
 * static SVG of the chart (first paint, no-JS fallback; it follows the palette through CSS) and
 * the URL of its Plotly spec (data-tn-spec: embed/<id>/spec.json, one file per chart that its
 * page and its embed page share, fetched with plotly.js on first interaction). An exported page
 * carries the spec inline, as JSON in a <template> (not a <script>: Material's instant
 * navigation re-creates inline scripts without their type, which would run the JSON as code).
 * This file upgrades the SVG to the interactive Plotly chart:
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
 * - On an embed page it posts the page's natural height to the parent frame (embed/resize.js,
 *   and WordPress's wp-embed.js when the frame's URL carries its secret), drops what does not
 *   fit a short frame (fit), and in a frame on another origin or sandboxed makes every link
 *   and download open in a new tab (else the top window, else the frame itself).
 * - Copy buttons fall back to showing the text selected where the clipboard is refused.
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

  /* The chart's Plotly spec: inline in an export, else fetched from its embed folder (one file
     per chart, shared by its page and its embed page), in parallel with plotly.js. */
  function specOf(box) {
    var inline = box.querySelector("template.tn-chart__spec");
    if (inline) return Promise.resolve(JSON.parse(inline.content.textContent));
    var url = new URL(box.getAttribute("data-tn-spec"), location.href).href;
    return fetch(url).then(function (response) {
      if (!response.ok) throw new Error(response.status + " " + url);
      return response.json();
    });
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
        gd.setAttribute("aria-label", gd.getAttribute("data-tn-label") || "");
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

  /* Where the clipboard is refused (a frame on another origin without
     allow="clipboard-write", a sandbox, plain http), the text is shown selected, to copy by
     hand: never a silent failure. */
  function showText(button, text) {
    var field = button.parentNode.querySelector(".tn-chart__copy-fallback");
    if (!field) {
      field = document.createElement("input");
      field.type = "text";
      field.readOnly = true;
      field.className = "tn-chart__copy-fallback";
      field.setAttribute("aria-label", "Copy this address (Ctrl+C or long press)");
      button.parentNode.insertBefore(field, button.nextSibling);
    }
    field.value = text;
    field.hidden = false;
    field.focus();
    field.select();
  }

  function copyText(button, text, area) {
    var label = button.textContent;
    var done = function () {
      button.textContent = "copied";
      setTimeout(function () { button.textContent = label; }, 2000);
    };
    var fallback = function () {
      if (area) {
        area.focus();
        area.select();
        var copied = false;
        try { copied = document.execCommand("copy"); } catch (error) { copied = false; }
        if (copied) done();
        return;
      }
      showText(button, text);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, fallback);
    } else {
      fallback();
    }
  }

  function copySnippet(button) {
    var area = button.previousElementSibling;
    if (!area || area.tagName !== "TEXTAREA") {
      area = button.parentNode.querySelector(".tn-chart__snippet");
    }
    copyText(button, area.value, area);
  }

  /* The embed box (tinkernomics.site.charts.embedbox): the page ships the chart's facts as
     JSON in a <template>, and a plain embed address for a reader without JavaScript; this
     writes the hosts, the theme menu and every snippet from those facts, for the chosen theme
     and background. Each snippet equals its Python builder (embed.py, share.py, cite.py;
     tests/test_embedbox_browser.py holds the two sides together). A fixed theme is in the
     iframe's query (for the embed page's script) and repeated as a fragment (its CSS reads
     that when scripts are off in the frame), with bg=transparent if asked. */
  var FRAME_MAX_PX = 960;  /* embed.EMBED_MAX_WIDTH_PX */
  var NARROW_STEP = "clamp(0px, (600.5px - 100cqw) * 1000, 100000px)";  /* embed.height_css */
  var NARROW_MEDIA = "(max-width: 600px)";  /* share.NARROW_MEDIA, DARK_MEDIA */
  var DARK_MEDIA = "(prefers-color-scheme: dark)";

  function esc(text) {  /* as Python's html.escape */
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
  }

  function markdownText(text) {  /* as share._markdown_text */
    return text.replace(/[\\`*_[\]<>]/g, "\\$&");
  }

  function secants(terms) {  /* as embed._secants */
    var width = "min(100cqw, " + FRAME_MAX_PX + "px)";
    var lines = terms.map(function (t) { return t[0] + "px + " + t[1] + " * " + width; });
    return lines.length > 1 ? "max(" + lines.join(", ") + ")" : lines[0];
  }

  function frameSnippets(d, theme, clear) {
    var query = function (amp) {
      return "?theme=" + theme + (clear ? amp + "bg=transparent" : "") +
        (theme === "auto" ? "" : "#theme=" + theme);
    };
    var dir = d.base + "embed/" + d.id + "/";
    var attributes = 'src="' + esc(dir) + query("&amp;") + '" width="100%" height="' +
      d.height + '" title="' + esc(d.title + " (tinker-nomics)") + '" frameborder="0" ' +
      'scrolling="no" loading="lazy" allow="clipboard-write"';
    var script = "\n<script src=\"" + d.base + "embed/resize.js\" async></script>";
    var css = "height:" + d.height + "px;height:min(" + secants(d.narrow) + ", " +
      secants(d.wide) + " + " + NARROW_STEP + ")";
    return [
      '<div style="container-type:inline-size;max-width:' + FRAME_MAX_PX + 'px"><iframe ' +
        attributes + ' style="display:block;width:100%;' + css + ';border:0"></iframe></div>' +
        script,
      "<iframe " + attributes + "></iframe>" + script,
      dir + query("&"),
    ];
  }

  function imageSnippets(d, theme) {
    var file = function (stem) { return d.base + "embed/" + d.id + "/" + stem + ".png"; };
    var wide = file(theme === "dark" ? "chart-dark" : "chart");
    var sources = theme === "auto"
      ? [[NARROW_MEDIA + " and " + DARK_MEDIA, "chart-narrow-dark"],
        [NARROW_MEDIA, "chart-narrow"], [DARK_MEDIA, "chart-dark"]]
      : [[NARROW_MEDIA, theme === "dark" ? "chart-narrow-dark" : "chart-narrow"]];
    var page = d.base + d.page + "#chart-" + d.id;
    var c = d.caption;
    var picture = sources.map(function (s) {
      return '<source media="' + s[0] + '" srcset="' + esc(file(s[1])) + '">';
    }).join("") + '<img src="' + esc(wide) + '" width="' + d.png[0] + '" height="' +
      d.png[1] + '" alt="' + esc(d.alt) + '" loading="lazy" style="max-width:100%;height:auto">';
    return [
      '<figure><a href="' + esc(page) + '"><picture>' + picture + "</picture></a><figcaption>" +
        esc(c[0]) + " " + esc(c[1]) + ' <a href="' + esc(d.licence) + '">' + esc(c[2]) +
        '</a> <a href="' + esc(page) + '">' + esc(page) + "</a></figcaption></figure>",
      "[![" + markdownText(d.alt) + "](" + wide + ")](" + page + ")\n*" +
        markdownText(c.join(" ")) + "* <" + page + ">",
      c.join(" ") + " " + page, d.cite, d.bibtex,
    ];
  }

  function setSnippetTheme(details) {
    var theme = details.querySelector(".tn-chart__theme").value;
    var clear = details.querySelector(".tn-chart__bg").checked;
    var texts = frameSnippets(details.tnBox, theme, clear)
      .concat(imageSnippets(details.tnBox, theme));
    var areas = details.querySelectorAll(".tn-chart__snippet");
    for (var i = 0; i < areas.length; i++) areas[i].value = texts[i];
  }

  function snippetArea(rows, label, button) {
    return '<textarea class="tn-chart__snippet" readonly rows="' + rows +
      '" spellcheck="false" aria-label="' + label + '"></textarea>\n' +
      '<button type="button" class="md-button tn-chart__copy" data-tn-copy>' + button +
      "</button>";
  }

  function host(title, text, areas) {
    return '<div class="tn-chart__host"><p class="tn-chart__host-title">' + title + "</p>\n" +
      (text ? "<p>" + text + "</p>\n" : "") + areas.join("\n") + "</div>";
  }

  /* The box's menu and hosts (the same on every page) around this chart's facts. */
  function boxHtml(d) {
    var t = esc(d.title);
    var origin = esc(new URL(d.base).origin);
    return "<p>One snippet per kind of host; each frame is " + d.height + " px tall to start " +
      "with and, in any smaller box down to 300×300, drops the Share row, then the legend, " +
      "then the caption rather than overlap. Theme: <select class=\"tn-chart__theme\" " +
      "aria-label=\"Theme of the embedded chart\"><option value=\"auto\">reader's system " +
      "setting</option><option value=\"light\">light</option><option value=\"dark\">dark" +
      "</option></select> <label><input type=\"checkbox\" class=\"tn-chart__bg\"> " +
      "transparent background</label></p>\n<div class=\"tn-chart__hosts\">\n" + [
      host("Blog or CMS", "Sizes itself without a script; the script makes the height exact. " +
        "A site with a strict Content-Security-Policy adds <code class=\"tn-chart__csp\">" +
        "script-src " + origin + "; frame-src " + origin + "</code>.",
        [snippetArea(5, "Embed code for " + t, "Copy embed code")]),
      host("Strict policy, no inline style", "No <code>style</code> attribute for a " +
        "<code>style-src 'self'</code> policy to drop; the height is an attribute, the script " +
        "from this site.", [snippetArea(5, "Embed code without inline style for " + t,
        "Copy strict embed code")]),
      host("Notion, Medium, link previews", "Paste the address into an embed block; links " +
        "open in a new tab from a sandboxed frame. The theme menu pins the page's theme " +
        "(<code>?theme=dark</code>) where the system setting is not the page's.",
        [snippetArea(2, "Embed address of " + t, "Copy address")]),
      host("Newsletter: image and caption", "The narrow image on phones, the dark one for a " +
        "dark system setting; alt text states what the chart shows.",
        [snippetArea(5, "Image HTML for " + t, "Copy image HTML"),
          snippetArea(3, "Image Markdown for " + t, "Copy image Markdown")]),
      host("Caption and citation", "", [snippetArea(3, "Caption for " + t, "Copy caption"),
        snippetArea(3, "Citation of " + t, "Copy citation"),
        snippetArea(5, "BibTeX for " + t, "Copy BibTeX")]),
    ].join("\n") + "\n</div>";
  }

  /* Without a site URL the facts' addresses are relative to the page: make them absolute. */
  function boxFacts(details) {
    var d = JSON.parse(details.querySelector("template.tn-chart__box").content.textContent);
    var base = new URL(d.base || "./", location.href).href;
    if (base !== d.base) {
      var page = function (b) { return b + d.page + "#chart-" + d.id; };
      d.cite = d.cite.split(page(d.base)).join(page(base));
      d.bibtex = d.bibtex.split(page(d.base)).join(page(base));
      d.base = base;
    }
    return d;
  }

  function fillBox(details) {
    var plain = details.querySelector(".tn-chart__embed-plain");
    if (!plain || !details.querySelector("template.tn-chart__box")) return;
    details.tnBox = boxFacts(details);
    var body = document.createElement("div");
    body.innerHTML = boxHtml(details.tnBox);
    while (body.firstChild) details.insertBefore(body.firstChild, plain);
    plain.hidden = true;
    setSnippetTheme(details);
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
        copySnippet(target);
      } else if (target.hasAttribute("data-tn-copy-link")) {
        copyText(target, new URL(target.getAttribute("data-tn-copy-link"), location.href).href);
      } else if (target.hasAttribute("data-tn-add")) {
        addCurve(box, target);
      }
    });
    var details = box.querySelector(".tn-chart__embed");
    if (details) {
      details.addEventListener("change", function (event) {
        if (event.target.matches(".tn-chart__theme, .tn-chart__bg")) setSnippetTheme(details);
      });
      fillBox(details);
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

  function cropLegend(crop) {
    var svgs = document.querySelectorAll(".tn-embed .tn-chart__fallback svg");
    var frame = document.querySelector(".tn-embed .tn-chart__frame");
    for (var i = 0; i < svgs.length; i++) {
      var svg = svgs[i];
      if (!svg.tnViewBox) svg.tnViewBox = svg.getAttribute("viewBox");
      var box = svg.tnViewBox.split(/\s+/).map(parseFloat);
      var lines = svg.querySelectorAll(".tn-svg__legend line");
      var top = lines.length ? parseFloat(lines[0].getAttribute("y1")) - 16 : box[3];
      var height = crop ? Math.min(box[3], top) : box[3];
      svg.setAttribute("viewBox", box[0] + " " + box[1] + " " + box[2] + " " + height);
      var layout = svg.classList.contains("tn-svg--narrow") ? "narrow" : "wide";
      if (frame) frame.style.setProperty("--tn-ar-" + layout, box[2] + " / " + height);
    }
  }

  /* The interactive chart's legend follows, once the level is settled. */
  function syncPlotLegend() {
    live.forEach(function (chart) {
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

  function start() {
    watchScheme();
    if (document.documentElement.hasAttribute("data-tn-embed")) {
      reportHeight();
      guardLinks();
    }
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
