"""The API agrees with the catalog: every entry present, every catalog value equal, every derived
figure equal to what derive.py computes, and every derivation input resolvable."""

from __future__ import annotations

import math
from typing import Any

import pytest
from helpers_api import catalog, documents, is_figure, resolve, walk_json

from tinkernomics.catalog.fields import Status
from tinkernomics.derived import derive
from tinkernomics.site.api.convert import CURVE_DIGITS, SIGNIFICANT_DIGITS, curve_grid
from tinkernomics.site.api.models import collections

CATALOGS = ["fixture", "real"]
COLLECTION_OF_KIND = {c.kind: c.path for c in collections()}
PRICE_ROW_OVERRIDES = {"status", "asserted_by", "source", "reported_instead"}
REL = 10.0 ** (1 - SIGNIFICANT_DIGITS)


def assert_subset(authored: Any, public: Any, where: str) -> None:
    """Everything the catalog says is in the public value, unchanged (public may add keys)."""
    if isinstance(authored, dict):
        assert isinstance(public, dict), where
        for key, value in authored.items():
            assert key in public, f"{where}.{key} missing from the API"
            assert_subset(value, public[key], f"{where}.{key}")
    elif isinstance(authored, list):
        assert isinstance(public, list) and len(public) == len(authored), where
        for i, (a, p) in enumerate(zip(authored, public, strict=True)):
            assert_subset(a, p, f"{where}[{i}]")
    else:
        assert public == authored, f"{where}: API {public!r} != catalog {authored!r}"


@pytest.mark.parametrize("name", CATALOGS)
def test_every_entry_is_published_in_its_collection_and_its_own_file(name: str) -> None:
    docs, cat = documents(name), catalog(name)
    index = {c["name"]: c for c in docs["index.json"]["result"]["collections"]}
    for c in collections():
        ids = sorted(cat.ids(c.kind))  # API kinds are the catalog's kind names
        assert index[c.path]["count"] == len(ids)
        listed = docs[f"{c.path}.json"]
        assert [item["id"] for item in listed["result"]] == ids
        assert listed["count"] == len(ids)
        for entry_id in ids:
            assert docs[f"{c.path}/{entry_id}.json"]["result"]["id"] == entry_id
    assert ("platform.json" in docs) == (cat.platform is not None)


@pytest.mark.parametrize("name", CATALOGS)
def test_every_catalog_value_appears_unchanged(name: str) -> None:
    """Each entry's authored data (figures, lists, prose) is a subset of its API document."""
    docs, cat = documents(name), catalog(name)
    checked = 0
    for entry in cat.iter_entries():
        path = ("platform.json" if entry.kind.name == "platform" else
                f"{COLLECTION_OF_KIND[entry.kind.name]}/{entry.key}.json")
        authored = entry.model.model_dump(mode="json")
        public = docs[path]["result"]
        if entry.kind.name == "price_list":
            rows = authored.pop("rows")
            for i, row in enumerate(rows):
                for token in ("prefill", "sample", "train"):
                    assert public["rows"][i][token]["value"] == row.pop(token)
                assert_subset({k: v for k, v in row.items() if k not in PRICE_ROW_OVERRIDES},
                              public["rows"][i], f"{path} rows[{i}]")
        assert_subset(authored, public, path)
        checked += 1
    assert checked == sum(1 for _ in cat.iter_entries()) > 0


@pytest.mark.parametrize("name", CATALOGS)
def test_prices_inherit_status_and_source_from_their_list_unless_the_row_overrides(
        name: str) -> None:
    docs, cat = documents(name), catalog(name)
    for plist in cat.price_lists.values():
        public = docs[f"prices/{plist.id}.json"]["result"]
        for row, prow in zip(plist.rows, public["rows"], strict=True):
            for token in ("prefill", "sample", "train"):
                fig = prow[token]
                assert fig["status"] == (row.status or plist.status).value
                assert fig["source"] == (row.source or plist.source)
                assert fig["unit"] == "usd_per_million_tokens"
            assert prow["model_name"] == cat.models[row.model].name


def test_a_row_that_overrides_status_and_source_wins(catalog_copy) -> None:
    from tinkernomics.catalog.loader import load_valid_catalog
    from tinkernomics.site.api.build import build_api

    path = catalog_copy / "tinker" / "prices" / "2026-07-17.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("    train: 0.44\n", "    train: 0.44\n    status: unverified\n"
                                 "    asserted_by: contributor\n"
                                 "    source: original_site\n    reported_instead: Not found.\n"),
                    encoding="utf-8")
    data = build_api(load_valid_catalog(catalog_copy))
    row = data.collections["prices"]["2026-07-17"].rows[0]
    assert (row.train.status, row.train.source, row.train.reported_instead,
            row.train.asserted_by) == (Status.unverified, "original_site", "Not found.",
                                       "contributor")


@pytest.mark.parametrize("name", CATALOGS)
def test_derived_figures_equal_what_derive_computes(name: str) -> None:
    docs, cat = documents(name), catalog(name)
    factor = derive.conversion_factor(cat)
    conv = docs[f"conversions/{derive.DEFAULT_CONVERSION}.json"]["result"]["factor"]
    assert conv["value"] == pytest.approx(factor.value, rel=REL)
    fits = {k: a.scalerl for k, a in cat.algorithms.items() if a.scalerl is not None}
    for algo_id, fit in fits.items():
        public = docs[f"algorithms/{algo_id}.json"]["result"]["scalerl"]
        h100 = public["C_mid_h100_equivalent"]
        assert h100["value"] == pytest.approx(
            derive.h100_equivalent_hours(fit.C_mid.value, factor), rel=REL)
        expected = derive.curve_points(derive.sigmoid_params(fit), curve_grid())
        points = public["curve"]["points"]
        assert len(points) == len(expected)
        for point, (c, r) in zip(points, expected, strict=True):
            h100 = derive.h100_equivalent_hours(c, factor)
            for value, exact in ((point["gb200_hours"], c), (point["reward_percent"], r * 100),
                                 (point["h100_equivalent_hours"], h100)):
                assert value == float(f"{exact:.{CURVE_DIGITS}g}")  # 6 digits (issue 47)
    for formula in cat.formulas.values():
        worked = docs[f"formulas/{formula.id}.json"]["result"]["worked_example"]
        assert worked["result"]["value"] == pytest.approx(
            derive.worked_example(formula).result, rel=REL)
        assert worked["inputs"] == {v.name: v.example for v in formula.variables}
    if cat.platform is not None:
        low, high = derive.setup_cost_usd(cat.platform.setup_cost)
        total = docs["platform.json"]["result"]["setup_cost"]["computed_total"]
        assert (total["value"], total["high"]) == (pytest.approx(low), pytest.approx(high))


@pytest.mark.parametrize("name", CATALOGS)
def test_every_computed_figure_is_marked_derived_and_names_resolvable_inputs(name: str) -> None:
    docs = documents(name)
    computed = 0
    for path, doc in docs.items():
        for loc, value in walk_json(doc):
            if not (is_figure(value) and value.get("derivation")):
                continue
            computed += 1
            assert value["status"] == "derived" and value["source"] is None, (path, loc)
            how = value["derivation"]
            statuses = []
            for item in how["inputs"]:
                target = resolve(docs, item["path"])
                number = target["value"] if isinstance(target, dict) else target
                assert number == item["value"], (path, loc, item["name"])
                if isinstance(target, dict):
                    assert (target["unit"], target["status"]) == (item["unit"], item["status"])
                    inner = target.get("derivation")
                    statuses.append(inner["inputs_status"] if inner else target["status"])
            if Status.unverified.value in statuses:
                assert how["inputs_status"] == "unverified", (path, loc)
    assert computed > 0


@pytest.mark.parametrize("name", CATALOGS)
def test_every_figure_carries_value_unit_source_and_status(name: str) -> None:
    for path, doc in documents(name).items():
        for loc, value in walk_json(doc):
            if is_figure(value):
                assert math.isfinite(value["value"]), (path, loc)
                assert value["source"] or value["derivation"], (path, loc)


@pytest.mark.parametrize("name", CATALOGS)
def test_references_list_the_entries_that_cite_them(name: str) -> None:
    docs, cat = documents(name), catalog(name)
    for algo in cat.algorithms.values():
        for ref in algo.references:
            cited_by = docs[f"references/{ref}.json"]["result"]["cited_by"]
            assert {"kind": "algorithm", "id": algo.id} in cited_by
