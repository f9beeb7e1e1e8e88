/* tinker-nomics search: every word of a query is required (issue 31).
 *
 * Material's search (lunr, in a web worker) treats the words of a query as alternatives:
 * "reward model" listed any page holding "model". Lunr requires a word written "+word", and
 * Material leaves such words as they are. This script rewrites the query the page sends to the
 * search worker: each plain word becomes "+word" (required; a short last word "+wor*", a
 * prefix, so results follow the reader's typing).
 * Words the reader marked (+word, -word, word~1, word^2, field:word) and quoted phrases are left
 * alone. Stop words are indexed (mkdocs.yml: search pipeline without the stop-word filter), so a
 * required "of" still matches. Nothing else changes: ranking, page boosts and synonyms are the
 * index's (search: boost in the pages' front matter; "also known as" lines on reader pages).
 *
 * Material has no public way to change how a query is read, so the query message itself is
 * rewritten. This script does not know that message's shape: the theme adapter does
 * (macros/theme.py, rule 5) and the page carries it, <meta name="tn-theme-search"
 * content='{"query": {fields that mark it}, "data": "the field holding the text"}'>. Without
 * that tag (a build without the MkDocs hooks) the script changes nothing.
 * tests/test_search_terms.py searches a tiny site in Chromium and fails if this stops working.
 */
(function () {
  "use strict";

  var PREFIX_BELOW = 4;  // letters: a last word shorter than this is matched as a prefix

  function readShape() {
    var meta = document.querySelector('meta[name="tn-theme-search"]');
    try {
      var shape = meta && JSON.parse(meta.getAttribute("content"));
      if (shape && shape.query && typeof shape.data === "string") return shape;
    } catch (err) {
      return null;
    }
    return null;
  }

  // A word holding a hyphen is two words of the index (mkdocs.yml: the search separator
  // splits at white space and hyphens): "clip-higher" requires "clip" and "higher". Left as
  // it was, lunr would read "-higher" as "without higher".
  function words(word) {
    if (!word || /^[+-]|[~^*:]/.test(word)) {
      return [{ text: word, marked: true }];
    }
    return word.split(/-+/).filter(Boolean).map(function (part) {
      return { text: part, marked: false };
    });
  }

  // Every plain word is required, as a whole word. A short last word is taken as a prefix,
  // since the reader is still typing it ("pri" finds "price"); a longer one is whole, so
  // "model" does not match every title starting with "model" (titles weigh a thousand times
  // the text).
  function rewrite(query) {
    if (query.indexOf("\"") !== -1) {
      return query;
    }
    var all = [].concat.apply([], query.trim().split(/\s+/).map(words));
    return all.map(function (word, i) {
      if (word.marked) return word.text;
      var typing = i === all.length - 1 && word.text.length < PREFIX_BELOW;
      return "+" + word.text + (typing ? "*" : "");
    }).join(" ");
  }

  function isQuery(message, shape) {
    if (!message || typeof message[shape.data] !== "string") return false;
    return Object.keys(shape.query).every(function (key) {
      return message[key] === shape.query[key];
    });
  }

  var shape = readShape();
  if (!shape) return;
  var send = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (message) {
    var args = Array.prototype.slice.call(arguments);
    if (isQuery(message, shape)) {
      var rewritten = Object.assign({}, message);
      rewritten[shape.data] = rewrite(message[shape.data]);
      args[0] = rewritten;
    }
    return send.apply(this, args);
  };
})();
