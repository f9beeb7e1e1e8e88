/* tinker-nomics embeds: include once on a page that has tinker-nomics chart iframes.
 * Each embed page posts {type: "tinkernomics:height", height} to its parent whenever its
 * content changes size; this sets the height of the iframe that sent it, and only of a
 * tinker-nomics frame: the message must come from that iframe's own window, the iframe's src
 * on this script's origin (the embed site) and the message from that origin (or from an
 * opaque origin where the iframe is sandboxed without allow-same-origin); the height is kept
 * within MIN_PX..MAX_PX. Any other frame on the page cannot size itself through this script.
 * It answers with {type: "tinkernomics:color-scheme", value: "dark"|"light"|"auto"}, the CSS
 * color-scheme the host gives that iframe (its own, or inherited from the page), and sends it
 * again when the page changes it, so an embed with theme=auto follows the host. The snippet
 * loads this script async, beside its frame: a frame that spoke before it ran is asked to
 * speak again ({type: "tinkernomics:ask"}). Licence: MIT. */
(function () {
  "use strict";
  if (window.__tinkernomicsResize) return;
  window.__tinkernomicsResize = true;
  var MIN_PX = 150, MAX_PX = 4000;
  var own = document.currentScript;
  var site = own && own.src ? new URL(own.src, location.href).origin : location.origin;
  var known = [];

  /* The frame's sandbox leaves it an opaque origin ("null" in its messages). */
  function opaque(frame) {
    var sandbox = frame.getAttribute("sandbox");
    return sandbox !== null && !/(^|\s)allow-same-origin(\s|$)/.test(sandbox);
  }

  /* A tinker-nomics embed frame: its src on the site that served this script. */
  function ours(frame) {
    try {
      return new URL(frame.getAttribute("src") || "", location.href).origin === site;
    } catch (error) {
      return false;
    }
  }

  function target(frame) {
    return opaque(frame) ? "*" : site;
  }

  function schemeOf(frame) {
    var words = (getComputedStyle(frame).colorScheme || "").split(/\s+/);
    var dark = words.indexOf("dark") >= 0, light = words.indexOf("light") >= 0;
    return dark && !light ? "dark" : light && !dark ? "light" : "auto";
  }

  function tell(frame) {
    var value = schemeOf(frame);
    if (frame.__tinkernomicsScheme === value || !frame.contentWindow) return;
    frame.__tinkernomicsScheme = value;
    frame.contentWindow.postMessage({ type: "tinkernomics:color-scheme", value: value },
      target(frame));
  }

  function tellAll() {
    known = known.filter(function (frame) { return frame.isConnected; });
    known.forEach(tell);
  }

  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || data.type !== "tinkernomics:height" || typeof data.height !== "number" ||
        !isFinite(data.height)) return;
    var frames = document.getElementsByTagName("iframe");
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === event.source) {
        var from = opaque(frames[i]) ? "null" : site;
        if (!ours(frames[i]) || event.origin !== from) return;
        var height = Math.min(MAX_PX, Math.max(MIN_PX, Math.ceil(data.height)));
        frames[i].style.height = height + "px";
        /* Sized to its content: no scroll bar (older snippets lack the attribute). */
        frames[i].setAttribute("scrolling", "no");
        if (known.indexOf(frames[i]) < 0) known.push(frames[i]);
        frames[i].__tinkernomicsScheme = null;  /* a reloaded frame asks again */
        tell(frames[i]);
        return;
      }
    }
  });

  /* A host's theme switch usually changes a class or attribute of <html> or <body>. */
  var observer = new MutationObserver(tellAll);
  observer.observe(document.documentElement, { attributes: true });
  if (document.body) observer.observe(document.body, { attributes: true });
  var media = window.matchMedia("(prefers-color-scheme: dark)");
  if (media.addEventListener) media.addEventListener("change", tellAll);

  /* An embed that loaded first posted its height to no listener: ask every frame to post it
     again (a frame still loading posts on its own once loaded; others ignore the message). */
  var frames = document.getElementsByTagName("iframe");
  for (var f = 0; f < frames.length; f++) {
    if (frames[f].contentWindow && ours(frames[f])) {
      frames[f].contentWindow.postMessage({ type: "tinkernomics:ask" }, target(frames[f]));
    }
  }
})();
