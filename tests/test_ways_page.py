"""The Ways to run page and the Tinker page's model architecture (issues 28 and 33). The ways
page is rendered from a copy of the catalog whose offers are replaced by made-up ones (the
calculator needs the real formulas and GPUs; only the made-up prices are asserted); the
architecture from the fixture catalog with a made-up shape. Every offer is listed with its
date and source, a superseded list is labelled stale, a service that cannot run the job says
why, the recipe names the pinned commit; every shape figure shows with its locator, absent ones
as unknown, an unverified one with the id the Data quality page links to. No real price
is asserted."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import markdown
import pytest
from helpers_catalog import copy_valid, write_file
from helpers_site import Node, parse

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.derived.calculator import inputs
from tinkernomics.derived.derive import conversion_factor
from tinkernomics.site.pages import feature as pages
from tinkernomics.site.pages.views import SiteIndex, build_index, tinker_view
from tinkernomics.site.ways import feature

DATA_DAY = dt.date(2026, 12, 2)
SRC = "source: tinker_docs\nlocator: 'fixture \"page one\"'\n"


def way(wid: str, *, series: str, effective: str, body: str,
        offer: str = "rented_gpus") -> str:
    return (f"id: {wid}\nname: {wid} name\nprovider: P\noffer: {offer}\nseries: {series}\n"
            f"effective: {effective}\ndated: dated {effective}\nstatus: reported\n{SRC}{body}")


H100 = ("gpu_prices:\n  - gpu: h100\n    price: {value: %s, unit: usd_per_gpu_hour, "
        "status: reported, source: tinker_docs, locator: 'price table row H100, \"USD hourly\"'}\n")
SHAPE = """shape:
  layers: {value: 36, status: reported, source: tinker_docs, locator: config.json line 19 "36"}
  head_dim:
    value: 128
    status: unverified
    asserted_by: original_site
    source: tinker_docs
    locator: config.json line 9
    reported_instead: the config gives no head_dim
"""
FILES = {
    "ways/gpus-2026-11.yaml": way("gpus-2026-11", series="gpus", effective="2026-11-01",
                                  body=H100 % 2.0),
    "ways/gpus-2026-01.yaml": way("gpus-2026-01", series="gpus", effective="2026-01-01",
                                  body=H100 % 1.0),
    "ways/own-2026-11.yaml": way("own-2026-11", series="own", effective="2026-11-01",
                                 offer="managed_service", body=(
        "hour_price: {value: 100, unit: usd_per_hour, status: reported, source: tinker_docs, "
        "locator: 'fixture \"table row\"'}\n"
        "models: []\nmodels_note: trains its own model only\n")),
}


REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    """The real catalog with its offers replaced by the made-up ones above."""
    root = tmp_path_factory.mktemp("ways-page") / "catalog"
    shutil.copytree(REPO / "catalog", root)
    shutil.rmtree(root / "ways")
    for rel, text in FILES.items():
        write_file(root, rel, text)
    return load_valid_catalog(root)


@pytest.fixture(scope="module")
def index(catalog: Catalog) -> SiteIndex:
    return build_index(catalog, conversion_factor(catalog))


@pytest.fixture(scope="module")
def fixture_index(tmp_path_factory: pytest.TempPathFactory) -> SiteIndex:
    """The fixture catalog with a made-up shape for its model, in place of its own (without its
    published run, which a model without KV heads could not time)."""
    root = copy_valid(tmp_path_factory.mktemp("arch"))
    model = root / "models" / "qwen3-8b.yaml"
    own = model.read_text(encoding="utf-8").split("shape:\n", 1)[0]
    model.write_text(own + SHAPE, encoding="utf-8")
    shutil.rmtree(root / "runs")
    catalog = load_valid_catalog(root)
    return build_index(catalog, conversion_factor(catalog))


def html_of(page_markdown: str) -> Node:
    """The macro's markdown as the site's Markdown turns it into HTML."""
    return parse(markdown.markdown(page_markdown, extensions=[
        "attr_list", "md_in_html", "tinkernomics.site.pages.rawhtml"]))


@pytest.fixture(scope="module")
def page(index: SiteIndex, catalog: Catalog) -> Node:
    run = {"p": inputs.latest_price_list(catalog), **inputs.default_query()}
    return html_of(feature.ways_html(index, [("The default run", run)], DATA_DAY))


def text(node: Node) -> str:
    return " ".join(node.text().split())


def offer(page: Node, wid: str) -> Node:
    found = [n for n in page.iter() if n.attrs.get("data-tn-offer") == wid]
    assert len(found) == 1, wid
    return found[0]


def test_every_offer_is_listed_with_its_date_and_source(page: Node, catalog: Catalog) -> None:
    ways = catalog.of("way")
    assert sorted(ways) == sorted(Path(rel).stem for rel in FILES)
    for wid, w in ways.items():
        assert page.by_id(f"way-{wid}") is not None, wid  # the heading the anchors point at
        block = offer(page, wid)
        assert w.effective.isoformat() in text(block), wid
        hrefs = [a.attrs.get("href", "") for a in block.by_tag("a")]
        assert f"../references/#{w.source}" in hrefs, wid
    assert "price table row H100" in text(offer(page, "gpus-2026-11"))  # the price's locator


def test_a_superseded_list_is_labelled_stale(page: Node) -> None:
    old, new = text(offer(page, "gpus-2026-01")), text(offer(page, "gpus-2026-11"))
    assert "stale" in old and "a newer list (2026-11-01) exists" in old
    assert "stale" not in new


def comparison_row(page: Node, key: str) -> str:
    rows = [n for n in page.by_tag("tr") if n.attrs.get("data-tn-way") == key]
    assert len(rows) == 1, key
    return text(rows[0])


def test_a_not_offered_row_says_why(page: Node) -> None:
    row = comparison_row(page, "own-2026-11")
    assert "not offered" in row and "trains its own model only" in row
    priced = comparison_row(page, "gpus-2026-11:h100")
    assert "$2/GPU-hour" in priced and "not offered" not in priced
    assert "Tinker's bill" in priced  # break-even against Tinker, from derived/ways.py
    assert "2026-11-01" in priced


def test_the_recipe_names_the_pinned_commit(page: Node, catalog: Catalog) -> None:
    pin = catalog.of("cookbook")["tinker_cookbook"]
    recipe = page.by_class("tn-recipe")[0]
    codes = [text(c) for c in recipe.by_tag("code")]
    assert pin.commit in codes
    command = text(recipe.by_class("tn-recipe__command")[0])
    assert command.startswith("python -m tinker_cookbook.recipes.math_rl.train")
    grpo = next(r for r in pin.recipes if r.algorithm == "grpo")
    kl = next(s.value.value for s in grpo.settings if s.name == "kl_penalty_coef")
    assert f"kl_penalty_coef={kl:g}" in command  # the pin's value, whatever it is
    assert page.by_id("cookbook-tinker_cookbook") is not None  # the pin's own block


def test_model_architecture_shows_each_figure_its_locator_or_unknown(
        fixture_index: SiteIndex) -> None:
    body = html_of(pages.render("tinker.md", view=tinker_view(fixture_index)))
    block = body.by_id("arch-qwen3-8b")
    assert block is not None
    rows = {text(tr.by_tag("th")[0]): text(tr) for tr in block.by_tag("tbody")[0].by_tag("tr")}
    assert "36" in rows["Layers layers"] and "config.json line 19" in rows["Layers layers"]
    assert "unknown" in rows["KV heads kv_heads"]
    unverified = block.by_id("uv-model-qwen3-8b-shape-head_dim")
    assert unverified is not None and "128" in text(unverified)
    assert "open" in block.attrs  # an unverified figure is in view when its link is followed
