"""Locators and sourced ScaleRL fits (issue 29), on copies of the fixture catalog.

A reported value without a ``locator`` is a validation error naming file, line and field, in every
field; ``missing_locators`` lists them for the Data quality page. The
charted fit takes sourced figures only (``rule_scalerl_sourced``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in

from tinkernomics.catalog.fields import Status
from tinkernomics.catalog.loader import load_catalog, load_valid_catalog
from tinkernomics.catalog.locators import missing_locators, rule_scalerl_sourced
from tinkernomics.catalog.problems import CatalogError
from tinkernomics.catalog.walk import walk
from tinkernomics.derived import derive
from tinkernomics.site.build import SiteContext
from tinkernomics.site.charts import spec as charts
from tinkernomics.site.pages import feature as pages
from tinkernomics.site.pages import views
from tinkernomics.site.pages.views.record import record_view

REPO_ROOT = Path(__file__).resolve().parent.parent

GRPO = "algorithms/grpo.yaml"
VARIANT = """  variants:
  - name: Baseline
    setting: 8B dense model, GB200 GPU-hours.
    A:
      value: 52
      unit: percent
      status: reported
      source: scalerl_khatri
{locator}  - name: GRPO, 16k"""


def _with_variant(tmp_path: Path, locator: str) -> Path:
    """The fixture with a first variant in GRPO's ScaleRL record, with ``locator`` lines."""
    root = copy_valid(tmp_path)
    replace_in(root, GRPO, "  variants:\n  - name: GRPO, 16k", VARIANT.format(locator=locator))
    return root


def test_reported_scalerl_value_without_locator_is_an_error_naming_the_field(
        tmp_path: Path) -> None:
    _, problems = load_catalog(_with_variant(tmp_path, ""))
    found = [p for p in problems if p.field.startswith("scalerl_record")]
    assert [p.field for p in found] == ["scalerl_record.variants[0].A.status"]
    assert "needs `locator`" in found[0].message
    assert found[0].hint and "Table 1" in found[0].hint and "quoted sentence" in found[0].hint
    assert str(found[0].path).endswith("grpo.yaml") and found[0].line > 0


def test_reported_charted_fit_value_without_locator_is_an_error_naming_file_line_and_field(
        tmp_path: Path) -> None:
    """The fit the chart and the calculator draw is held to the record's standard: a reported
    A, B or C_mid says where its source states it."""
    root = copy_valid(tmp_path)
    replace_in(root, GRPO, SOURCED_A, """    status: reported
    source: scalerl_khatri""")
    _, problems = load_catalog(root)
    found = [p for p in problems if p.field.startswith("scalerl.")]
    assert [p.field for p in found] == ["scalerl.A.status"]
    assert "needs `locator`" in found[0].message
    assert found[0].hint and "quoted sentence" in found[0].hint
    assert str(found[0].path).endswith("grpo.yaml")
    text = (root / GRPO).read_text(encoding="utf-8").splitlines()
    assert text[found[0].line - 1].strip() == "status: reported"  # the A block's status line
    assert text[found[0].line - 3].strip() == "value: 50"
    replace_in(root, GRPO, """    status: reported
    source: scalerl_khatri""", """    status: reported
    source: scalerl_khatri
    locator: 'Figure 2: "the fitted curve"'""")
    _, problems = load_catalog(root)
    assert not [p for p in problems if p.field.startswith("scalerl.")]


def test_a_locator_satisfies_the_rule(tmp_path: Path) -> None:
    locator = "      locator: 'Table 1, \"ScaleRL row\"'\n"
    _, problems = load_catalog(_with_variant(tmp_path, locator))
    assert not [p for p in problems if p.field.startswith("scalerl_record")]


def test_whitespace_is_not_a_locator(tmp_path: Path) -> None:
    _, problems = load_catalog(_with_variant(tmp_path, "      locator: '   '\n"))
    assert [p.field for p in problems if p.field.startswith("scalerl_record")] in (
        [["scalerl_record.variants[0].A.status"], ["scalerl_record.variants[0].A.locator"]])


CLAIM_LOCATOR = "    locator: 'Fixture: §4.2 \"the fixture locator\"'\n"


def test_a_claim_without_locator_is_an_error_naming_file_line_and_field(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    cat, problems = load_catalog(root)
    assert not problems and not missing_locators(cat)
    replace_in(root, GRPO, CLAIM_LOCATOR, "")
    cat, problems = load_catalog(root)
    found = [p for p in problems if "needs `locator`" in p.message]
    assert [p.field for p in found] == ["claims[0].status"]
    assert str(found[0].path).endswith("grpo.yaml") and found[0].line > 0
    assert found[0].hint and "quoted sentence" in found[0].hint
    missing = [(i.entry.key, i.field) for i in missing_locators(cat)]
    assert missing == [("grpo", "claims[0].locator")]
    with pytest.raises(CatalogError):
        load_valid_catalog(root)


def test_unverified_values_need_no_locator(tmp_path: Path) -> None:
    cat, problems = load_catalog(copy_valid(tmp_path))
    assert not problems  # the fixture's superseded values are unverified and have none
    assert cat.algorithms["grpo"].scalerl_record.superseded is not None
    assert not [i for i in missing_locators(cat) if i.loc[:2] == ("scalerl_record", "superseded")]


ORIGINAL_A = """    status: unverified
    asserted_by: original_site
    source: original_site
    reported_instead: No source gives it.
    note: Read off the plot, to the nearest percent."""
SOURCED_A = """    status: derived
    source: scalerl_khatri
    locator: Figure 2 (read off the plot)
    note: Read off the plot, to the nearest percent."""


def test_validate_refuses_a_charted_fit_from_the_original_site(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, GRPO, SOURCED_A, ORIGINAL_A)
    cat, problems = load_catalog(root)
    found = [p for p in problems if "sourced figures only" in p.message]
    assert [p.field for p in found] == ["scalerl.A.source"]
    assert str(found[0].path).endswith("grpo.yaml") and found[0].line > 0
    assert "scalerl_record.superseded" in (found[0].hint or "")
    assert [p.field for p in rule_scalerl_sourced(cat)] == ["scalerl.A.source"]
    with pytest.raises(CatalogError):
        load_valid_catalog(root)


def test_the_chart_draws_only_sourced_fits_never_the_superseded_values(tmp_path: Path) -> None:
    cat = load_valid_catalog(copy_valid(tmp_path))
    grpo = cat.algorithms["grpo"]
    assert grpo.scalerl is not None and grpo.scalerl_record is not None
    old = grpo.scalerl_record.superseded
    assert old is not None
    chart = charts.build_chart(cat, charts.COMPARISON_ID)
    assert chart.series
    for series in chart.series:
        fit = cat.algorithms[series.algorithm_id].scalerl
        assert fit is not None
        for name in ("A", "B", "C_mid"):
            fig = getattr(fit, name)
            assert fig.status != Status.unverified and fig.source != "original_site"
    drawn = chart.series[[s.algorithm_id for s in chart.series].index("grpo")].params
    assert drawn.A == grpo.scalerl.A.value / 100 != old.A.value / 100
    assert drawn.C_mid == grpo.scalerl.C_mid.value != old.C_mid.value


# --------------------------------------------------------------------------- pages


def _ctx(root: Path) -> SiteContext:
    return SiteContext(root=REPO_ROOT, catalog=load_valid_catalog(root))


def test_data_quality_page_lists_each_reported_value_without_a_locator(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    clean = pages.data_quality_page(_ctx(root))
    section = clean[clean.index("Reported values without a locator"):]
    assert "Every reported value has one." in section.split("</p>")[0]
    replace_in(root, GRPO, CLAIM_LOCATOR, "")
    ctx = SiteContext(root=REPO_ROOT, catalog=load_catalog(root)[0])
    missing = missing_locators(ctx.catalog)
    assert [(i.entry.key, i.field) for i in missing] == [("grpo", "claims[0].locator")]
    page = pages.data_quality_page(ctx)
    listed = page[page.index("Reported values without a locator"):]
    assert "<strong>1</strong> reported values have none yet" in listed
    assert "<code>claims[0].locator</code>" in listed


def test_references_page_lists_an_entry_citing_a_reference_in_many_fields_once(
        tmp_path: Path) -> None:
    ctx = _ctx(copy_valid(tmp_path))
    grpo = ctx.catalog.algorithms["grpo"]
    fields = [obj for _, obj, _, _ in walk(grpo) if getattr(obj, "source", None) ==
              "scalerl_khatri"]
    assert len(fields) >= 4 and "scalerl_khatri" in grpo.references  # cited many times
    page = pages.references_page(ctx)
    start = page.index('id="scalerl_khatri"')
    cited = page[page.index("Cited by:", start):page.index("</p>", page.index("Cited by:", start))]
    assert cited.count("algorithms/grpo/") == 1, cited


def test_algorithm_page_view_shows_other_fits_with_locators_and_superseded_values(
        tmp_path: Path) -> None:
    cat = load_valid_catalog(copy_valid(tmp_path))
    index = views.build_index(cat, derive.conversion_factor(cat))
    view = record_view(index, cat.algorithms["grpo"], views.Links("algorithms/grpo/"))
    assert view is not None and view.superseded is not None
    [variant] = view.variants
    assert variant.name == "GRPO, 16k generation budget"
    assert [str(w) for w in variant.where] == ['Table 1, "the GRPO row"']
    assert variant.values[0] is not None and variant.values[0].text == "52%"
    assert variant.values[1] is None and variant.values[2] is None  # not given: a dash
    old = dict(view.superseded.values)
    for name in ("A", "B", "C_mid"):  # unverified: the id its Data quality entry links to
        assert old[name].anchor == f"uv-scalerl_record-superseded-{name.lower()}"
        assert old[name].quality_href == \
            f"#dq-scalerl_record-superseded-{name.lower()}"


# --------------------------------------------------------------------------- price lists

PRICES = "tinker/prices/2026-07-17.yaml"
LIST_LOCATOR = "locator: 'Fixture: pricing page, \"the price table\"'\n"


def test_a_reported_price_list_without_locator_is_an_error_naming_file_line_and_field(
        tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, PRICES, LIST_LOCATOR, "")
    _, problems = load_catalog(root)
    found = [p for p in problems if "needs `locator`" in p.message]
    assert [p.field for p in found] == ["status"]
    assert str(found[0].path).endswith("2026-07-17.yaml")
    lines = (root / PRICES).read_text(encoding="utf-8").splitlines()
    assert lines[found[0].line - 1] == "status: reported"


def test_a_row_that_sets_its_own_reported_status_needs_its_own_locator(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, PRICES, "    train: 0.44\n",
               "    train: 0.44\n    status: reported\n    source: tinker_docs\n")
    _, problems = load_catalog(root)
    assert [p.field for p in problems if "needs `locator`" in p.message] == ["rows[0].status"]
    replace_in(root, PRICES, "    source: tinker_docs\n",
               "    source: tinker_docs\n    locator: models page, row Qwen3-8B\n")
    _, problems = load_catalog(root)
    assert not [p for p in problems if "needs `locator`" in p.message]


def test_the_tinker_page_shows_the_price_lists_locator_beside_its_source(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, PRICES, LIST_LOCATOR,
               'locator: "Table **Prices**, footnote 3: “the prices”"\n')
    cat = load_valid_catalog(root)
    index = views.build_index(cat, derive.conversion_factor(cat))
    page = pages.render("tinker.md", view=views.tinker_view(index))
    asof = page[page.index('<p class="tn-asof">'):]
    asof = asof[:asof.index("</p>")]
    source = asof.index('class="tn-prov"')
    where = asof.index('<span class="tn-locator">(Table <strong>Prices</strong>, '
                       'footnote 3: “the prices”)')
    assert source < where  # the source link, then where in it
