"""Compare view models and the build date (issue 31), on the fixture catalog: columns show what
the catalog has and say "not in the catalog" for what it lacks, unknown ids are refused, the
featured selection falls back to catalog order, synonyms follow an algorithm's own text, and the
build date is reproducible and fills every page's placeholder."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest
from helpers_site import unshare

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.derived.derive import conversion_factor
from tinkernomics.site import algorithmfiles
from tinkernomics.site.calculator.pagedata import ALGORITHM_FILES
from tinkernomics.site.compare import feature, shared, view
from tinkernomics.site.freshness.feature import PLACEHOLDER, BuildDates, build_dates
from tinkernomics.site.pages.views import Links, build_index
from tinkernomics.site.postbuild.finish import finish_pages
from tinkernomics.site.postbuild.knownscripts import known_scripts


@pytest.fixture(scope="module")
def index(valid_catalog_dir: Path) -> view.SiteIndex:
    catalog = load_valid_catalog(valid_catalog_dir)
    return build_index(catalog, conversion_factor(catalog))


class _Ctx:
    """The little of a SiteContext the feature's renderers read (the index is cached in extra)."""

    def __init__(self, index: view.SiteIndex) -> None:
        self.extra = {"views.index": index}
        self.catalog = index.catalog


def test_featured_falls_back_to_catalog_order(index: view.SiteIndex) -> None:
    ids = view.featured(index)
    assert ids[:1] == ["grpo"] and len(ids) >= view.MIN_COLUMNS
    assert set(ids) <= set(index.algorithms)


def test_a_column_says_what_the_catalog_lacks(index: view.SiteIndex) -> None:
    html = feature.column_html(_Ctx(index), "grpo")
    rows = dict(view.ROWS)
    for key in ("clipping", "aggregation"):
        cell = html.split(f'data-tn-row="{key}"')[1].split("</tr>")[0]
        assert "not in the catalog" in cell, rows[key]
    run = html.split('data-tn-row="run"')[1].split("</tr>")[0]
    assert "not computed for this catalog" in run  # the fixture has no cost model
    assert 'href="../algorithms/grpo/"' in html  # links relative to the compare page


def test_what_the_catalog_holds_fills_the_cell(index: view.SiteIndex) -> None:
    """Issue 44: the KL row shows the semantics' flag and the recipe's coefficient, both
    sourced, where the catalog holds them (it said "not in the catalog" before)."""
    col = view.column(index, "grpo")
    recipe = view.recipe_for(index.catalog, "grpo")
    coef = {s.name for s in recipe.settings} if recipe else set()
    html = feature.column_html(_Ctx(index), "grpo")
    kl = html.split('data-tn-row="kl"')[1].split("</tr>")[0]
    if index.algorithms["grpo"].semantics is not None or "kl_penalty_coef" in coef:
        assert "not in the catalog" not in kl and col.kl
    if "kl_penalty_coef" in coef:
        assert "<code>kl_penalty_coef</code>" in kl


def test_the_comparison_run_slot_reads_the_index_figures(index: view.SiteIndex,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The GB and $ are the Algorithms index's (``compare_gb``/``compare_usd``), not a slot
    nothing fills ("not computed on this site yet" before)."""
    real = view.algorithm_row

    def with_run(*args: object, **kwargs: object) -> object:
        return dataclasses.replace(real(*args, **kwargs), compare_gb="12.0 GB",  # type: ignore[arg-type]
                                   compare_usd="$3.00")

    monkeypatch.setattr(view, "algorithm_row", with_run)
    html = feature.column_html(_Ctx(index), "grpo")
    run = html.split('data-tn-row="run"')[1].split("</tr>")[0]
    assert "12.0 GB" in run and "$3.00" in run


def test_an_unknown_algorithm_is_refused(index: view.SiteIndex) -> None:
    with pytest.raises(KeyError, match="unknown algorithm id 'nope'"):
        view.column(index, "nope")


def test_synonyms_follow_the_algorithms_own_text(index: view.SiteIndex) -> None:
    algo = index.algorithms["grpo"].model_copy(update={"notes": "Adds a KL penalty.",
                                                       "claims": [], "tinker_mapping": None})
    assert view.also_known_as(algo) == [("KL penalty", dict(view.SYNONYMS)["KL penalty"])]
    plain = algo.model_copy(update={"notes": "Nothing of the sort."})
    assert view.also_known_as(plain) == []


def test_the_compare_section_links_the_page(index: view.SiteIndex) -> None:
    html = feature.compare_section(_Ctx(index), "ppo", Links("algorithms/ppo/"))
    assert 'href="../../compare/?a=ppo&amp;a=grpo"' in html
    assert "data-search-exclude" in html  # the link's text stays out of the search index


def test_build_dates_are_reproducible(tmp_path: Path, valid_catalog_dir: Path) -> None:
    epoch = {"SOURCE_DATE_EPOCH": "1767225600"}  # 2026-01-01 UTC
    dates = build_dates(tmp_path, valid_catalog_dir, epoch)
    assert dates == BuildDates(dt.date(2026, 1, 1), dt.date(2026, 1, 1))
    assert build_dates(tmp_path, valid_catalog_dir, epoch) == dates


def test_the_build_writes_the_date_into_every_page(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text(f"<main>x{PLACEHOLDER}</main>", encoding="utf-8")
    (tmp_path / "b.html").write_text("<p>no placeholder</p>", encoding="utf-8")
    dates = BuildDates(dt.date(2026, 1, 2), dt.date(2026, 1, 1))
    finish_pages(tmp_path, "", dates, known_scripts())  # the post-build pass over every page
    assert "Site built" not in (tmp_path / "b.html").read_text(encoding="utf-8")
    text = (tmp_path / "a" / "index.html").read_text(encoding="utf-8")
    assert 'Site built <time datetime="2026-01-02">' in text
    assert 'catalog data as of <time datetime="2026-01-01">' in text


def test_a_column_file_holds_each_repeat_once(index: view.SiteIndex) -> None:
    """Issue 47: a column file (read only by compare.js) labels its heading, not every cell,
    gives a reference's hover text on its first citation only, and carries no search marks;
    compare.js restores the rest from the file."""
    html = feature.column_html(_Ctx(index), "grpo")
    assert html.count('data-tn-algo="grpo"') == 1 and "data-label" not in html
    assert "data-search-exclude" not in html
    titled = re.findall(r'<a class="tn-cite" href="([^"]*)" title=', html)
    cited = re.findall(r'<a class="tn-cite" href="([^"]*)"', html)
    assert titled and len(titled) == len(set(titled)) == len(set(cited))


def _fig(note: str, cite: str) -> str:
    return (f'<span class="tn-fig tn-fig--reported"><span class="tn-fig__value" title="{note}">'
            f'64</span><a class="tn-cite" href="../references/#{cite}">[1]</a></span>')


def test_pieces_two_columns_hold_are_held_once() -> None:
    """Issue 47: a figure, a cell or a citation that two column files hold goes once into the
    shared list; each file keeps a reference where it was and reads back byte for byte."""
    long_note = "A note long enough to be worth sharing between the columns of the view"
    common = f"<td>{_fig(long_note, 'paper_a')}</td>"
    own = {k: f"<td>{_fig(long_note, f'paper_{k}')}</td>" for k in ("x", "y", "z")}
    columns = {k: f"<table><tr>{common}{own[k]}</tr></table>" for k in own}
    out, pieces = shared.share(columns)
    assert sum(len(t) for t in out.values()) < sum(len(t) for t in columns.values()) / 2
    assert all(long_note not in text for text in out.values())
    value = f'<span class="tn-fig__value" title="{long_note}">64</span>'
    assert pieces == [_fig(long_note, "paper_a"), value]  # the common cell, then the value
    assert all(unshare(out[k], pieces) == columns[k] for k in columns)
    alone, none = shared.share({"x": columns["x"]})
    assert alone == {"x": columns["x"]} and none == []


def test_catalog_text_cannot_spell_a_shared_piece() -> None:
    """A reference is markup only the build writes: catalog text arrives escaped, and a file
    that holds a reference already is refused."""
    text = "<td>&lt;tn-s data-k=&#34;0&#34;&gt;&lt;/tn-s&gt; is what the note says, twice over</td>"
    out, pieces = shared.share({"a": text, "b": text})
    assert unshare(out["a"], pieces) == text and "&lt;tn-s" in pieces[0]
    with pytest.raises(ValueError, match=r"'b'.*tn-s"):
        shared.share({"a": text, "b": shared.ref(0)})


def _outputs(index: view.SiteIndex, site: Path) -> dict[str, dict[str, Any]]:
    """The compare feature's and the algorithm files' outputs in ``site``; the files by id."""
    ctx: Any = _Ctx(index)
    feature.write_outputs(ctx, site)
    algorithmfiles.write_outputs(ctx, site)
    folder = site / ALGORITHM_FILES
    return {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in folder.glob("*.json")}


def test_the_algorithm_files_carry_the_columns(tmp_path: Path, index: view.SiteIndex) -> None:
    """Each algorithm's one file holds its column (which reads back, with the shared list, to
    what the template renders) beside the calculator's data; the compare page tells compare.js
    where the files and the list are."""
    files = _outputs(index, tmp_path)
    pieces = json.loads((tmp_path / view.PAGE / view.SHARED).read_text(encoding="utf-8"))
    assert pieces and all(isinstance(p, str) for p in pieces)
    assert set(files) == set(index.algorithms)
    assert any(shared.REF_TAG in data[algorithmfiles.COLUMN] for data in files.values())
    for algo_id, data in files.items():
        assert unshare(data[algorithmfiles.COLUMN], pieces) == feature.column_html(
            _Ctx(index), algo_id)  # type: ignore[arg-type]
        assert data["name"] == index.algorithms[algo_id].name and "roles" in data
    page = feature.compare_html(_Ctx(index))  # type: ignore[arg-type]
    assert f'data-tn-shared="{view.SHARED}"' in page
    assert 'data-tn-columns="../calculator/algorithms/"' in page


def test_no_column_is_a_file_of_its_own(tmp_path: Path, index: view.SiteIndex) -> None:
    """Issue 47: a column is no HTML file (the pass over every HTML file has none to read) and
    no file of its own: the algorithm's file the calculator reads holds it."""
    files = _outputs(index, tmp_path)
    assert files and not list(tmp_path.rglob("*.html"))
    written = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert written == sorted([f"{view.PAGE}{view.SHARED}",
                              *(f"{ALGORITHM_FILES}{a}.json" for a in index.algorithms)])


def test_the_page_lists_the_choices_once(index: view.SiteIndex) -> None:
    """Issue 47: the first select lists every algorithm; the others hold only their featured
    choice (and "(none)" past the minimum) until compare.js copies the list into them."""
    page = feature.compare_html(_Ctx(index))  # type: ignore[arg-type]
    selects = re.findall(r'<select name="a">(.*?)</select>', page, re.S)
    featured = view.featured(index)
    assert len(selects) == view.MAX_COLUMNS
    assert selects[0].count("<option") == len(index.algorithms)
    for slot, options in enumerate(selects[1:], start=1):
        chosen = [featured[slot]] if slot < len(featured) else []
        assert re.findall(r'<option value="([^"]+)"', options) == chosen
        assert ('<option value="">(none)</option>' in options) == (slot >= view.MIN_COLUMNS)
