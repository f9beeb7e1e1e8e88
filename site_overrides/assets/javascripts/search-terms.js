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
 * The query message is Material's {type: 2, data: "<query>"} (its SearchMessageType.QUERY);
 * tests/test_search_ranking.py types queries into the built site and fails if this stops working.
 */
(function () {
  "use strict";

  var QUERY = 2;
  var PREFIX_BELOW = 4;  // letters: a last word shorter than this is matched as a prefix
  var send = Worker.prototype.postMessage;

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

  Worker.prototype.postMessage = function (message) {
    var args = Array.prototype.slice.call(arguments);
    if (message && message.type === QUERY && typeof message.data === "string") {
      args[0] = { type: QUERY, data: rewrite(message.data) };
    }
    return send.apply(this, args);
  };
})();
