(function () {
  /* ?theme=light|dark|auto (default auto: the reader's system setting, followed live, until
     the host page says which scheme it shows: resize.js on the host posts
     {type: "tinkernomics:color-scheme", value: "dark"|"light"|"auto"}, from the iframe's
     CSS color-scheme, and any host may post the same). The snippet repeats a fixed theme as
     #theme=, which the CSS reads when scripts are off. ?bg=transparent: no page background,
     the host's shows through. */
  var pinned = /(?:^#|&)theme=(\w+)/.exec(location.hash);
  var params = new URLSearchParams(location.search);
  var wanted = params.get("theme") || (pinned && pinned[1]);
  var root = document.documentElement;
  var query = window.matchMedia("(prefers-color-scheme: dark)");
  var host = null;
  function apply() {
    var dark = wanted === "dark" ||
      (wanted !== "light" && (host ? host === "dark" : query.matches));
    root.setAttribute("data-md-color-scheme", dark ? "slate" : "default");
  }
  if (params.get("bg") === "transparent") root.setAttribute("data-tn-bg", "transparent");
  apply();
  if (wanted !== "light" && wanted !== "dark") {
    if (query.addEventListener) query.addEventListener("change", apply);
    window.addEventListener("message", function (event) {
      var data = event.data;
      if (event.source !== window.parent || !data || typeof data !== "object" ||
          data.type !== "tinkernomics:color-scheme") return;
      host = data.value === "dark" || data.value === "light" ? data.value : null;
      apply();
    });
  }
})();
