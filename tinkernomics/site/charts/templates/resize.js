/* tinker-nomics embeds: include once on a page that has tinker-nomics chart iframes.
 * Each embed page posts {type: "tinkernomics:height", height} to its parent whenever its
 * content changes size; this sets the height of the iframe that sent it. Licence: MIT. */
(function () {
  "use strict";
  if (window.__tinkernomicsResize) return;
  window.__tinkernomicsResize = true;
  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || data.type !== "tinkernomics:height" || typeof data.height !== "number") return;
    var frames = document.getElementsByTagName("iframe");
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].contentWindow === event.source) {
        frames[i].style.height = Math.max(0, Math.ceil(data.height)) + "px";
        /* Sized to its content: no scroll bar (older snippets lack the attribute). */
        frames[i].setAttribute("scrolling", "no");
        return;
      }
    }
  });
})();
