/* tinker-nomics: the calculator's scripts only on a page that has a calculator ([data-tn-calc]).
 *
 * calculator.js (about 37 KB with its parts) used to be loaded and compiled on every page, about
 * 60 ms of a phone's main thread in Lighthouse's simulation (issue 31). This loader runs on every
 * page view (the first load and each instant navigation: Material's document$); on a page
 * holding a calculator it adds the calculator's scripts (PARTS, run in this order: an added
 * script with async = false keeps its place), once per visit. calculator.js, the last, then
 * boots the calculator and every later one (it subscribes to document$ itself, which hands a new
 * subscriber the current page). The scripts' addresses are this file's siblings, so it works
 * under any sub-path.
 */
(function () {
  "use strict";

  var here = document.currentScript ? document.currentScript.src : document.baseURI;
  var added = false;
  var PARTS = ["calculator-eval.js", "calculator-view.js", "calculator.js"];

  function load() {
    if (added || window.tnCalculator || !document.querySelector("[data-tn-calc]")) return;
    added = true;
    PARTS.forEach(function (name) {
      var script = document.createElement("script");
      script.src = new URL(name, here).href;
      script.async = false;
      document.head.appendChild(script);
    });
  }

  if (window.document$ && typeof window.document$.subscribe === "function") window.document$.subscribe(load);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", load);
  else load();
})();
