"""Optional GPU data (issue 45): a GPU without rental prices, bandwidth or power validates and
estimates without a traceback (the estimate says there is no price and asks for one with
--set), and the default price follows one stated rule, whatever order the rows are written in.
Toy GPUs only (helpers_calc): no figure of today's catalog is asserted."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import shutil
from pathlib import Path
from typing import Any

import helpers_figures
import pytest
from helpers_calc import REPO_ROOT, TOY_GPU, with_toys

from tinkernomics import cli
from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.models.hardware import default_rental, default_rental_label
from tinkernomics.derived.calculator.estimate import estimate


def _gpu(catalog: Catalog, **changes: Any) -> Catalog:
    """``catalog`` with the toy GPU changed (fields replaced as given)."""
    toy = with_toys(catalog)
    entries = dict(toy.entries["hardware"])
    entry = entries[TOY_GPU]
    entries[TOY_GPU] = dataclasses.replace(entry, model=entry.model.model_copy(update=changes))
    toy.entries = {**toy.entries, "hardware": entries}
    return toy


def _rent(price: float, provider: str) -> m.RentalPrice:
    return m.RentalPrice.model_validate_json(json.dumps({
        "provider": provider, "date": "2000-01", "price": {
            "value": price, "unit": "usd_per_gpu_hour", "status": "reported",
            "source": "transformer_math"}}))


def test_a_gpu_without_optional_data_estimates_with_the_price_missing(catalog: Catalog) -> None:
    bare = _gpu(catalog, rental_prices=[], bandwidth_tb_s=None, power_w=None, notes=None)
    result = estimate(bare, {"hw": TOY_GPU})
    assert result["gpu_price"] is None and result["self.total"] is None
    assert result["tinker.total"] is not None and result["self.gpu_hours"] is not None
    assert result["mem.peak"] is not None
    keys = {f.key for f in helpers_figures.input_figures(bare, result)}
    assert f"hardware:{TOY_GPU}:price" not in keys
    priced = estimate(bare, {"hw": TOY_GPU, "gp": "2"})
    assert priced["gpu_price"] == 2 and priced["self.total"] is not None


@pytest.mark.parametrize(("prices", "chosen"), [
    ([5.0, 1.0, 3.0], 3.0), ([1.0, 3.0, 5.0], 3.0), ([4.0, 1.0, 3.0, 2.0], 2.0), ([7.0], 7.0)])
def test_the_default_price_is_the_median_whatever_the_order(catalog: Catalog,
                                                            prices: list[float],
                                                            chosen: float) -> None:
    rows = [_rent(p, f"cloud {i}") for i, p in enumerate(prices)]
    toy = _gpu(catalog, rental_prices=rows)
    hw = toy.hardware[TOY_GPU]
    row = default_rental(hw)
    assert row is not None and row.price.value == chosen
    assert default_rental_label(hw) == f"median of {len(prices)} listed: {row.provider}, 2000-01"
    result = estimate(toy, {"hw": TOY_GPU})
    assert result["gpu_price"] == chosen
    [shown] = [f for f in helpers_figures.input_figures(toy, result)
               if f.key == f"hardware:{TOY_GPU}:price"]
    assert f"median of {len(prices)} listed: {row.provider}" in shown.label


def test_the_estimate_command_asks_for_a_price(tmp_path: Path) -> None:
    """The CLI on a catalog whose new GPU has no rental_prices: no traceback, a clear line."""
    root = tmp_path / "catalog"
    shutil.copytree(REPO_ROOT / "catalog", root)
    text = (root / "hardware" / "h100.yaml").read_text(encoding="utf-8")
    bare = text[:text.index("rental_prices:")].replace("id: h100", "id: zz-gpu")
    (root / "hardware" / "zz-gpu.yaml").write_text(bare, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["estimate", str(root), "--gpu", "zz-gpu"])
    assert code == 0, err.getvalue()
    line = next(x for x in out.getvalue().splitlines() if x.startswith("gpu_price"))
    assert "no price" in line and "--set gp=" in line


def test_the_hardware_page_states_the_default_and_a_missing_price(tmp_path: Path) -> None:
    from helpers_catalog import copy_valid, write_file

    from tinkernomics.catalog.loader import load_valid_catalog
    from tinkernomics.site.build import SiteContext
    from tinkernomics.site.pages import feature as pages

    root = copy_valid(tmp_path)
    text = (root / "hardware" / "h100.yaml").read_text(encoding="utf-8")
    cut = text.index("rental_prices:") if "rental_prices:" in text else len(text)
    write_file(root, "hardware/zz-gpu.yaml", text[:cut].replace("id: h100", "id: zz-gpu")
               .replace("NVIDIA H100 SXM", "ZZ GPU"))
    rows = "".join(f"  - provider: Cloud {p}\n    date: \"2000-01\"\n    price:\n"
                   f"      value: {p}\n      unit: usd_per_gpu_hour\n      status: reported\n"
                   "      source: glennklockwood_h100\n      locator: 'Fixture \"table row\"'\n"
                   for p in (9, 1, 5))
    write_file(root, "hardware/zz-gpu2.yaml", text[:cut].replace("id: h100", "id: zz-gpu2")
               .replace("NVIDIA H100 SXM", "ZZ GPU 2") + "rental_prices:\n" + rows)
    page = pages.hardware_page(SiteContext(root=REPO_ROOT, catalog=load_valid_catalog(root)))
    assert "No rental price listed: the calculator asks for a price per GPU-hour." in page
    assert "median of 3 listed: Cloud 5, 2000-01" in page
    assert "the same rule for every GPU" in page
