"""Browser checks of the algorithms index table (assets/javascripts/algorithms-table.js), shared
by the regular tests (real catalog) and the scale tests (1,000 synthetic algorithms).

Each check takes a Playwright page already on the algorithms index and returns what it saw, so
the test states what must hold for its catalog.
"""

from __future__ import annotations

from typing import Any

ROWS_JS = """() => [...document.querySelectorAll('.tn-algorithms table tbody tr')]
    .filter(r => !r.hidden).map(r => ({id: r.id, ...r.dataset}))"""
"""The visible rows, in page order, with their data-* values."""


def wait_table_ready(page: Any, timeout: float | None = None) -> None:
    """Until the index table is ready: algorithms-table.js shows its rows a few a frame after
    wiring it up, and marks it data-tn-ready once every row it pages is shown."""
    page.wait_for_selector(".tn-algorithms table[data-tn-ready]", state="attached",
                           timeout=timeout)


def visible_rows(page: Any) -> list[dict[str, str]]:
    return page.evaluate(ROWS_JS)


def count_text(page: Any) -> str:
    return page.locator(".tn-algorithms__count").inner_text()


def sort_by(page: Any, key: str) -> list[dict[str, str]]:
    """Click the sort button of column ``key``; the visible rows afterwards."""
    page.locator(f"th[data-sort='{key}'] button.tn-sort").click()
    return visible_rows(page)


def filter_by(page: Any, key: str, value: str) -> list[dict[str, str]]:
    """Choose ``value`` in the filter ``key`` (a select's name); the visible rows afterwards."""
    page.locator(f"form.tn-filters select[name='{key}']").select_option(value)
    return visible_rows(page)


def filter_name(page: Any, text: str) -> list[dict[str, str]]:
    page.locator("form.tn-filters input[name='q']").fill(text)
    return visible_rows(page)


def clear_filters(page: Any) -> list[dict[str, str]]:
    page.locator("form.tn-filters button[type='reset']").click()
    # The script re-reads the form in a timer it sets on the reset event (the form's values
    # change after the event); a timer set after it runs after it.
    page.evaluate("() => new Promise(resolve => setTimeout(resolve, 0))")
    return visible_rows(page)


def years(rows: list[dict[str, str]]) -> list[int]:
    return [int(r["year"]) for r in rows]
