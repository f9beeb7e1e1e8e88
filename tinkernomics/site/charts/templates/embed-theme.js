(function () {
  /* ?theme=light|dark|auto (default auto: the reader's system setting, followed live); the
     snippet repeats a fixed theme as #theme=, which the CSS reads when scripts are off. */
  var pinned = /(?:^#|&)theme=(\w+)/.exec(location.hash);
  var wanted = new URLSearchParams(location.search).get("theme") || (pinned && pinned[1]);
  var root = document.documentElement;
  var query = window.matchMedia("(prefers-color-scheme: dark)");
  function apply() {
    var dark = wanted === "dark" || (wanted !== "light" && query.matches);
    root.setAttribute("data-md-color-scheme", dark ? "slate" : "default");
  }
  apply();
  if (wanted !== "light" && wanted !== "dark" && query.addEventListener) {
    query.addEventListener("change", apply);
  }
})();
