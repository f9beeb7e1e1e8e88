/* tinker-nomics: calculator.js only on a page that has a calculator ([data-tn-calc]).
 *
 * calculator.js (about 37 KB) used to be loaded and compiled on every page, about 60 ms of a
 * phone's main thread in Lighthouse's simulation (issue 31). This loader runs on every page view
 * (the first load and each instant navigation: Material's document$); on a page holding a
 * calculator it adds calculator.js, once per visit. calculator.js then boots the calculator and
 * every later one (it subscribes to document$ itself, which hands a new subscriber the current
 * page). The script's address is this file's sibling, so it works under any sub-path.
 */
(function () {
  "use strict";

  var here = document.currentScript ? document.currentScript.src : document.baseURI;
  var added = false;

  function load() {
    if (added || window.tnCalculator || !document.querySelector("[data-tn-calc]")) return;
    added = true;
    var script = document.createElement("script");
    script.src = new URL("calculator.js", here).href;
    document.head.appendChild(script);
  }

  if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(load);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", load);
  else load();
})();
