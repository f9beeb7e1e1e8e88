"""The Tinker page and Home count only models a Tinker price list carries, and a new list shows
its change since the previous one (old → new, %) row by row (issue 45). Fixture catalog only:
its one model is on its one list; the tests add a model no list carries and a second list."""

from __future__ import annotations

import re
from pathlib import Path

from helpers_catalog import copy_valid, write_file

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.derived import derive
from tinkernomics.site.build import SiteContext
from tinkernomics.site.pages import feature as pages
from tinkernomics.site.pages import views

REPO_ROOT = Path(__file__).resolve().parent.parent
OLD = "tinker/prices/2026-07-17.yaml"


def _unlisted_model(root: Path) -> None:
    text = (root / "models/qwen3-8b.yaml").read_text(encoding="utf-8")
    write_file(root, "models/zz-unlisted.yaml", text.replace("id: qwen3-8b", "id: zz-unlisted")
               .replace("name: Qwen3-8B", "name: ZZ Unlisted"))


def _section(page: str, start: str, end: str) -> str:
    return page[page.index(start):page.index(end, page.index(start))]


def test_a_model_no_list_carries_is_not_shown_as_offered_nor_counted(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    _unlisted_model(root)
    catalog = load_valid_catalog(root)
    index = views.build_index(catalog, derive.conversion_factor(catalog))
    view = views.tinker_view(index)
    assert [v.id for v in view.models] == ["qwen3-8b"]
    assert [v.id for v in view.other_models] == ["zz-unlisted"]
    page = pages.tinker_page(SiteContext(root=REPO_ROOT, catalog=catalog))
    offered = _section(page, 'aria-label="Models offered for training"', "</table>")
    assert "Qwen3-8B" in offered and "ZZ Unlisted" not in offered
    other = _section(page, 'aria-label="Other models in the catalog', "</table>")
    assert "ZZ Unlisted" in other and 'id="' in other  # its anchor stays for links
    home = {card.title: card.text for card in views.home_cards(index)}
    assert re.search(r"\bfor 1 models\b", home["Tinker"]), home["Tinker"]


def test_a_new_list_shows_the_change_since_the_previous_one(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    text = (root / OLD).read_text(encoding="utf-8")
    write_file(root, "tinker/prices/2026-11-20.yaml", text.replace(
        "id: 2026-07-17", 'id: "2026-11-20"').replace("effective: 2026-07-17",
                                                       "effective: 2026-11-20")
        .replace("sample: 0.60", "sample: 0.54"))
    catalog = load_valid_catalog(root)
    index = views.build_index(catalog, derive.conversion_factor(catalog))
    new, old = views.tinker_view(index).price_lists
    assert new.previous == "2026-07-17" and old.previous == ""
    [row] = new.rows
    assert row.change == ("sample $0.60 → $0.54 (−10%)",), row.change
    page = pages.tinker_page(SiteContext(root=REPO_ROOT, catalog=catalog))
    assert "<th scope=\"col\">Change since 2026-07-17</th>" in page
    assert "(−10%)" in page
