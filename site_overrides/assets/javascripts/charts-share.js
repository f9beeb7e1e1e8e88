/* tinker-nomics charts: copy buttons and the embed box (site pages and embed pages).
 *
 * Part of the chart loader (charts.js, which loads after this file and calls what it
 * registers on window.tnCharts: copyText, copySnippet, fillBox, setSnippetTheme). Copy buttons
 * fall back to showing the text selected where the clipboard is refused. The embed box below
 * every chart on a site page ("Embed this chart") is written here, when first opened, from
 * the facts in the chart's spec.json (tinkernomics.site.charts.embedbox).
 */
(function () {
  "use strict";

  var tn = window.tnCharts = window.tnCharts || {};

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

  /* The embed box (tinkernomics.site.charts.embedbox): the chart's spec.json has its facts,
     the page a plain embed address for a reader without JavaScript; this
     writes the hosts, the theme menu and every snippet from those facts, for the chosen theme
     and background. Each snippet equals its Python builder (embed.py, share.py, tests/helpers_cite.py;
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

  /* Attribution as text, from the facts' title, date and source titles (as tests/helpers_cite.py writes it:
     caption_parts, cite_text, bibtex; tests/test_embedbox_browser.py compares them). */
  var PUBLISHER = "tinker-nomics";  /* spec.PUBLISHER */
  var LICENCE = "CC BY 4.0";  /* spec.LICENCE */
  var SOURCES_NAMED = 2;  /* cite.SOURCES_NAMED */

  function sourcesText(d, limit) {
    var t = d.sources;
    if (!limit || t.length <= limit) return t.join("; ");
    return t.slice(0, limit).join("; ") + " and " + (t.length - limit) + " more";
  }

  function pageUrl(d) {
    return d.base + d.page + "#chart-" + d.id;
  }

  function dated(d, lead) {
    return d.date ? lead + "Data as of " + d.date + "." : "";
  }

  function captionParts(d) {
    return [d.title + ".", "Source: " + PUBLISHER + ", from " + sourcesText(d, SOURCES_NAMED) +
      "." + dated(d, " "), "Data licence " + LICENCE + "."];
  }

  function citeText(d) {
    return PUBLISHER + (d.date ? " (" + d.date.slice(0, 4) + ")" : "") + ". " + d.title +
      " [chart]. Sources: " + sourcesText(d, 0) + "." + dated(d, " ") + " Data licence " +
      LICENCE + " (" + d.licence + "). " + pageUrl(d);
  }

  var BIBTEX_ESCAPES = { "\\": "\\textbackslash{}", "^": "\\^{}", "~": "\\~{}" };

  function bibtexText(text) {  /* as cite.bibtex_text */
    return text.replace(/[\\{}%&$#_^~]/g, function (c) { return BIBTEX_ESCAPES[c] || "\\" + c; });
  }

  function bibtex(d) {
    var key = ("tinkernomics_" + d.id).toLowerCase().replace(/[^a-z0-9]+/g, "_");
    var fields = [["author", PUBLISHER], ["title", bibtexText(d.title)]];
    if (d.date) fields.push(["year", d.date.slice(0, 4)]);
    var url = pageUrl(d).replace(/\\/g, "%5C").replace(/{/g, "%7B").replace(/}/g, "%7D");
    fields.push(["url", url], ["note", bibtexText(dated(d, "").replace(/\.$/, ". ") +
      "Sources: " + sourcesText(d, 0) + ". Data licence " + LICENCE + ".")]);
    return "@misc{" + key + ",\n" + fields.map(function (f) {
      return "  " + f[0] + " = {" + f[1] + "}";
    }).join(",\n") + "\n}";
  }

  /* The facts are in the chart's spec.json (key "box"). Without a site URL their addresses
     are relative to that file: made absolute. */
  function boxFacts(spec, url) {
    var d = spec.box;
    d.base = new URL(d.base || "./", url).href;
    d.caption = captionParts(d);
    d.cite = citeText(d);
    d.bibtex = bibtex(d);
    return d;
  }

  /* Once, when the box first opens: the facts are fetched (the plain address stays until
     then, and if the fetch fails). */
  function fillBox(details) {
    var plain = details.querySelector(".tn-chart__embed-plain");
    var figure = details.closest("[data-tn-spec]");
    if (!plain || !figure || details.tnFilling) return;
    details.tnFilling = true;
    var url = new URL(figure.getAttribute("data-tn-spec"), location.href).href;
    fetch(url).then(function (response) {
      if (!response.ok) throw new Error(response.status + " " + url);
      return response.json();
    }).then(function (spec) {
      details.tnBox = boxFacts(spec, url);
      var body = document.createElement("div");
      body.innerHTML = boxHtml(details.tnBox);
      while (body.firstChild) details.insertBefore(body.firstChild, plain);
      plain.hidden = true;
      setSnippetTheme(details);
    }).catch(function (error) {
      details.tnFilling = false;
      console.warn("tinker-nomics embed box: " + error);
    });
  }

  tn.copyText = copyText;
  tn.copySnippet = copySnippet;
  tn.fillBox = fillBox;
  tn.setSnippetTheme = setSnippetTheme;
})();
