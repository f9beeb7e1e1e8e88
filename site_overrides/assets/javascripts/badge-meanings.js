/* A status badge's meaning as its tooltip (issue 47). An algorithm page says each status
   meaning once, in a hidden definition its badges name with aria-describedby (screen readers
   read it as the badge's description; tinkernomics/site/pages/figures.py meanings_once) instead
   of a title on every badge. When a pointer or the focus reaches such a badge, this gives it
   that text as its title, so hovering shows the same tooltip the title did. Joined into site.js
   (postbuild/stylesheets.py SCRIPT_SOURCES). */
(function () {
  "use strict";

  function explain(event) {
    var target = event.target;
    var badge = target && target.closest ? target.closest(".tn-badge[aria-describedby]") : null;
    if (!badge || badge.hasAttribute("title")) {
      return;
    }
    var meaning = document.getElementById(badge.getAttribute("aria-describedby"));
    if (meaning) {
      badge.setAttribute("title", meaning.textContent);
    }
  }

  document.addEventListener("pointerover", explain);
  document.addEventListener("focusin", explain);
})();
