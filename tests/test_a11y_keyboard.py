"""Keyboard (issue 16): on every page type, pressing Tab reaches every visible control, and
each one, once focused, shows a focus indicator (an outline or a box shadow that it does not
have unfocused). Screenshots of focus states: benchmarks or by hand with
``TN_FOCUS_SHOTS=DIR`` set (one PNG per page, with a focused control)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_a11y import PAGE_TYPES, open_served, reset_storage, served_site
from helpers_browser import NO_SEARCH_INDEX, wait_scripts_ready

pytestmark = [pytest.mark.build, pytest.mark.browser, pytest.mark.sweep]

EXTRA_TABS = 50
"""Presses allowed beyond a page's own controls before tabbing gives up: the bound follows the
page (its controls grow with the catalog: a badge and a citation per figure), so a data pull
request that adds figures never trips it, while a focus trap still ends the loop."""
FOCUSABLE_JS = """() => {
  const sel = 'a[href], button, input, select, textarea, summary, [tabindex]';
  const all = [...document.querySelectorAll(sel)].filter(e =>
      e.tabIndex >= 0 && !e.disabled && !e.closest('[inert], [hidden]') &&
      !(e.tagName === 'INPUT' && e.type === 'hidden') &&
      // a radio group is one tab stop (its checked radio, else its first); arrows move inside
      !(e.type === 'radio' && e !== (
        document.querySelector(`input[type=radio][name="${e.name}"]:checked`) ||
        document.querySelector(`input[type=radio][name="${e.name}"]`))) &&
      e.checkVisibility({visibilityProperty: true}) && e.getClientRects().length > 0);
  all.forEach((e, i) => e.dataset.tnKey = String(i));
  return all.map(e => e.dataset.tnKey);
}"""
"""Controls a reader can Tab to: tag each with a key and return the keys."""
ACTIVE_JS = """() => {
  const e = document.activeElement;
  if (!e || e === document.body) return null;
  const look = (s) => ({outline: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0
                          ? s.outlineStyle + s.outlineWidth + s.outlineColor : '',
                        shadow: s.boxShadow === 'none' ? '' : s.boxShadow});
  const focused = look(getComputedStyle(e));
  return {key: e.dataset.tnKey || null, focused,
          label: e.tagName + (e.className ? '.' + String(e.className).split(' ')[0] : '') +
                 ' ' + (e.getAttribute('aria-label') || e.textContent || '').trim().slice(0, 40)};
}"""
UNFOCUSED_JS = """(key) => {
  const e = document.querySelector(`[data-tn-key="${key}"]`);
  const s = getComputedStyle(e);
  return {outline: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0
                   ? s.outlineStyle + s.outlineWidth + s.outlineColor : '',
          shadow: s.boxShadow === 'none' ? '' : s.boxShadow};
}"""
PAGES = {k: v for k, v in PAGE_TYPES.items() if k != "api"}
FOCUS_PAGE = PAGE_TYPES["algorithm page"]
"""Where the focus style is compared with the unfocused look."""
RECORD_JS = """() => {
  const snapshot = """ + ACTIVE_JS + """;
  window.tnTabs = [];
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Tab') window.tnTabs.push('down');
  }, true);
  document.addEventListener('keyup', (e) => {
    if (e.key === 'Tab') window.tnTabs.push(snapshot());
  }, true);
}"""
"""Record every Tab press in the page: 'down' when it starts, then, once focus has moved (the
key's release goes to the newly focused element), what ``ACTIVE_JS`` reads. A press whose
release never reaches the document moved focus out of it. Presses need no round trip each."""
TAKE_JS = "() => window.tnTabs.splice(0)"
"""The presses recorded since the last read."""
SCHEME = "light"
"""Tab order and focus styles do not change with the palette: the default one is checked."""


def press_states(log: list) -> list[dict | None]:
    """One state per recorded press (``RECORD_JS``): ``ACTIVE_JS``'s reading, or None where
    focus left the document. Reading stops at the first press that left it."""
    states: list[dict | None] = []
    i = 0
    while i < len(log):
        if log[i] != "down":  # a release whose press started outside the document
            states.append(None)
            break
        after = log[i + 1] if i + 1 < len(log) else "down"
        if after == "down":  # pressed here, released elsewhere: focus left
            states.append(None)
            break
        states.append(after)
        i += 2
    return states


def tab_through(page, expected: int, *, one_by_one: bool = False,
                ) -> tuple[set[str], list[str], list[tuple[str, dict]], int]:
    """Tab until focus leaves the page or comes back round: keys reached, labels of controls
    reached without a visible focus indicator, the focus snapshots, and how many presses went
    past that point. Presses go in runs of as many as the controls not yet reached, plus one
    (``expected``: how many there are), and are read back once per run (``RECORD_JS``
    installed): when Tab reaches every control, no press goes past the end; ``one_by_one``
    reads after every press."""
    reached, invisible, shots = set(), [], []
    pressed, limit = 0, expected + EXTRA_TABS
    while pressed < limit:
        run = 1 if one_by_one else max(expected - len(reached), 0) + 1
        run = min(run, limit - pressed)
        for _ in range(run):
            page.keyboard.press("Tab")
        pressed += run
        states = press_states(page.evaluate(TAKE_JS))
        for done, state in enumerate(states, start=1):
            if state is None or state["key"] in reached:
                return reached, invisible, shots, run - done
            if state["key"] is None:
                continue
            reached.add(state["key"])
            shots.append((state["label"], state["focused"]))
            if not (state["focused"]["outline"] or state["focused"]["shadow"]):
                invisible.append(state["label"])
    return reached, invisible, shots, 0


def tag_and_record(page) -> set[str]:
    """Tag the page's controls (``FOCUSABLE_JS``), start recording Tab presses; the keys."""
    keys = set(page.evaluate(FOCUSABLE_JS))
    page.evaluate(RECORD_JS)
    return keys


@dataclass
class Tabbed:
    """What tabbing through every page found, and, on the algorithm page, the control the
    press after the last one focuses: its look focused and once blurred."""

    unreached: dict[str, list[str]] = field(default_factory=dict)
    invisible: dict[str, list[str]] = field(default_factory=dict)
    counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    shots: list[tuple[str, dict]] = field(default_factory=list)
    before: dict | None = None
    after: dict | None = None


@pytest.fixture(scope="module")
def tabbed(browser, built_site: BuiltSite) -> Tabbed:
    """Every page tabbed through in one reused tab (the built site served from a loopback port
    under its sub-path; Material's search worker gets an empty index: nothing here searches,
    and the search box is a control either way). The algorithm page then takes one more
    press, for :func:`test_focus_indicator_appears_only_on_focus`."""
    found = Tabbed()
    with served_site(built_site.root, SUB_PATH_URL) as base:
        page, _ = open_served(browser, base, scheme=SCHEME, init_script=NO_SEARCH_INDEX)
        for name, path in PAGES.items():
            reset_storage(page)
            page.goto(base + path, wait_until="load")
            wait_scripts_ready(page)
            keys = tag_and_record(page)
            reached, hidden_focus, shots, past = tab_through(page, len(keys))
            found.counts[name] = (len(reached), len(keys))
            if keys - reached:
                labels = page.evaluate(
                    "(ks) => ks.map(k => { const e = document.querySelector("
                    "`[data-tn-key=\"${k}\"]`); return e.tagName + ' ' + "
                    "(e.getAttribute('aria-label') || e.textContent).trim()"
                    ".slice(0, 40); })", sorted(keys - reached)[:8])
                found.unreached[name] = labels
            if hidden_focus:
                found.invisible[name] = hidden_focus[:8]
            shots_dir = os.environ.get("TN_FOCUS_SHOTS")
            if shots_dir:
                Path(shots_dir).mkdir(parents=True, exist_ok=True)
                page.screenshot(
                    path=str(Path(shots_dir) / f"{SCHEME}-{name.replace(' ', '-')}.png"))
            if path == FOCUS_PAGE:
                if past:  # presses went past the end: tab through again, reading each one
                    page.goto(base + path, wait_until="load")
                    wait_scripts_ready(page)
                    tag_and_record(page)
                    _, _, shots, _ = tab_through(page, len(keys), one_by_one=True)
                found.shots = shots
                page.keyboard.press("Tab")
                state = page.evaluate(ACTIVE_JS)
                if state and state["key"]:
                    found.before = page.evaluate(UNFOCUSED_JS, state["key"])
                    page.evaluate("document.activeElement.blur()")
                    found.after = page.evaluate(UNFOCUSED_JS, state["key"])
        page.context.close()
    return found


@pytest.mark.parametrize("scheme", [SCHEME])  # Tab order and focus styles: not per palette
def test_every_control_is_reachable_by_tab_and_visibly_focused(tabbed: Tabbed,
                                                                scheme: str) -> None:
    counts, unreached, invisible = tabbed.counts, tabbed.unreached, tabbed.invisible
    print("controls reached / present:", counts)
    assert all(reached > 5 for reached, _ in counts.values()), counts
    assert not unreached, f"controls Tab never reaches: {unreached}"
    assert not invisible, f"focused controls with no visible indicator: {invisible}"


def test_focus_indicator_appears_only_on_focus(tabbed: Tabbed) -> None:
    """The indicator the test above sees is the focus style, not a permanent border (the
    algorithm page: the control the press after the last one focuses)."""
    before, after = tabbed.before, tabbed.after
    assert tabbed.shots
    assert before is not None and after is not None
    assert (before["outline"], before["shadow"]) != (after["outline"], after["shadow"])
