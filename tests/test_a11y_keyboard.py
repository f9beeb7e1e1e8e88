"""Keyboard (issue 16): on every page type, pressing Tab reaches every visible control, and
each one, once focused, shows a focus indicator (an outline or a box shadow that it does not
have unfocused). Screenshots of focus states: benchmarks or by hand with
``TN_FOCUS_SHOTS=DIR`` set (one PNG per page, with a focused control)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_a11y import PAGE_TYPES, open_site

pytestmark = [pytest.mark.build, pytest.mark.browser]

MAX_TABS = 600
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
SCRIPTS_READY_JS = """() => [...document.querySelectorAll(
    '[data-tn-calc], [data-tn-compare], .tn-algorithms table')]
    .every(e => e.hasAttribute('data-tn-ready'))"""
"""The page's own scripts have wired up their controls (the calculator's form is disabled until
its script runs; the index table and compare view mark themselves ready too)."""


def tab_through(page) -> tuple[set[str], list[str], list[tuple[str, dict]]]:
    """Tab until focus leaves the page or comes back round: keys reached, labels of controls
    reached without a visible focus indicator, and the focus snapshots."""
    reached, invisible, shots = set(), [], []
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        state = page.evaluate(ACTIVE_JS)
        if state is None or state["key"] in reached:
            break
        if state["key"] is None:
            continue
        reached.add(state["key"])
        shots.append((state["label"], state["focused"]))
        if not (state["focused"]["outline"] or state["focused"]["shadow"]):
            invisible.append(state["label"])
    return reached, invisible, shots


@pytest.mark.parametrize("scheme", ["light"])  # Tab order and focus styles: not per palette
def test_every_control_is_reachable_by_tab_and_visibly_focused(
        browser, built_site: BuiltSite, scheme: str) -> None:
    page, _ = open_site(browser, built_site.root, SUB_PATH_URL, scheme=scheme)
    unreached, invisible, counts = {}, {}, {}
    for name, path in PAGES.items():
        page.goto(SUB_PATH_URL + path, wait_until="load")
        page.wait_for_function(SCRIPTS_READY_JS)
        keys = set(page.evaluate(FOCUSABLE_JS))
        reached, hidden_focus, _ = tab_through(page)
        counts[name] = (len(reached), len(keys))
        if keys - reached:
            labels = page.evaluate("(ks) => ks.map(k => { const e = document.querySelector("
                                   "`[data-tn-key=\"${k}\"]`); return e.tagName + ' ' + "
                                   "(e.getAttribute('aria-label') || e.textContent).trim()"
                                   ".slice(0, 40); })", sorted(keys - reached)[:8])
            unreached[name] = labels
        if hidden_focus:
            invisible[name] = hidden_focus[:8]
        shots = os.environ.get("TN_FOCUS_SHOTS")
        if shots:
            Path(shots).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(Path(shots) / f"{scheme}-{name.replace(' ', '-')}.png"))
    page.context.close()
    print("controls reached / present:", counts)
    assert all(reached > 5 for reached, _ in counts.values()), counts
    assert not unreached, f"controls Tab never reaches: {unreached}"
    assert not invisible, f"focused controls with no visible indicator: {invisible}"


def test_focus_indicator_appears_only_on_focus(browser, built_site: BuiltSite) -> None:
    """The indicator the test above sees is the focus style, not a permanent border."""
    page, _ = open_site(browser, built_site.root, SUB_PATH_URL)
    page.goto(SUB_PATH_URL + "algorithms/grpo/", wait_until="load")
    page.evaluate(FOCUSABLE_JS)
    _, _, shots = tab_through(page)
    page.keyboard.press("Tab")
    state = page.evaluate(ACTIVE_JS)
    before = page.evaluate(UNFOCUSED_JS, state["key"]) if state and state["key"] else None
    page.evaluate("document.activeElement.blur()")
    after = page.evaluate(UNFOCUSED_JS, state["key"]) if state and state["key"] else None
    page.context.close()
    assert shots
    assert before is not None and after is not None
    assert (before["outline"], before["shadow"]) != (after["outline"], after["shadow"])
