"""`asserted_by` reaches every caption and badge: an unverified value names who gave it
(the original site, a contributor, a secondary source) instead of assuming the original site."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import copy_valid

from tinkernomics.catalog.fields import AssertedBy, Status, status_meaning
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.derived import derive
from tinkernomics.site.charts import spec
from tinkernomics.site.pages.views import build_index
from tinkernomics.site.pages.views.core import Links
from tinkernomics.site.pages.views.references import quality_items

WHO = {AssertedBy.original_site: "as given by the original site",
       AssertedBy.contributor: "added by a contributor",
       AssertedBy.secondary_source: "as given by a secondary source"}


@pytest.mark.parametrize("who", list(AssertedBy))
def test_status_meaning_names_who_asserted_it(who: AssertedBy) -> None:
    assert status_meaning(Status.unverified, who) == \
        f"{WHO[who]}; no source found that confirms it"
    assert "original site" not in status_meaning(Status.unverified, None)
    assert status_meaning(Status.reported, None) == "stated in the cited source"


def _catalog_with_grpo_fit_by(tmp_path: Path, who: str):  # type: ignore[no-untyped-def]
    root = copy_valid(tmp_path)
    path = root / "algorithms" / "grpo.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("asserted_by: original_site", f"asserted_by: {who}"),
                    encoding="utf-8")
    return load_valid_catalog(root)


def _unverified_fit(catalog, who: str):  # type: ignore[no-untyped-def]
    """``catalog`` with GRPO's charted fit unverified as given by ``who``, forced past
    validation (rule_scalerl_sourced refuses it), to test what the chart would say."""
    entry = catalog.entries["algorithm"]["grpo"]
    fit = entry.model.scalerl
    old = {"status": Status.unverified, "asserted_by": AssertedBy(who), "source": "original_site",
           "reported_instead": "No source gives it."}
    entry.model = entry.model.model_copy(update={"scalerl": fit.model_copy(update={
        name: getattr(fit, name).model_copy(update=old) for name in ("A", "B", "C_mid")})})
    catalog.entries["algorithm"] = dict(catalog.entries["algorithm"])  # a new dict: not cached
    return catalog


@pytest.mark.parametrize("who", ["contributor", "secondary_source"])
def test_chart_caption_and_badges_say_who(tmp_path: Path, who: str) -> None:
    catalog = _unverified_fit(_catalog_with_grpo_fit_by(tmp_path, who), who)
    chart = spec.build_chart(catalog, spec.algorithm_chart_id("grpo"))
    expected = WHO[AssertedBy(who)]
    assert chart.unverified_note == \
        f"Parameters marked unverified are {expected}; no source confirms them."
    assert "original site" not in chart.unverified_note
    assert chart.unverified_note in spec.attribution_lines(chart)

    index = build_index(catalog, derive.conversion_factor(catalog))
    fit = catalog.algorithms["grpo"].scalerl
    assert fit is not None
    shown = index.figure(fit.A, Links("algorithms/grpo/"))
    assert shown.status_meaning.startswith(expected)
    assert shown.asserted == expected
    # An algorithm's unverified values are listed on its own page (views.quality_items).
    items = quality_items(index, "algorithm", "grpo", Links("algorithms/grpo/"))
    assert any(i.value.asserted == expected for i in items)


def test_original_site_values_still_say_so(tmp_path: Path) -> None:
    catalog = _unverified_fit(load_valid_catalog(copy_valid(tmp_path)), "original_site")
    chart = spec.build_chart(catalog, spec.algorithm_chart_id("grpo"))
    assert "as given by the original site" in chart.unverified_note


def test_fields_reference_explains_asserted_by() -> None:
    from tinkernomics.site.contributing.feature import _status_section

    text = "\n".join(_status_section())
    for who, meaning in WHO.items():
        assert f"| `{who.value}` | {meaning} |" in text
