"""Charts in the built site (real catalog, built under a sub-path URL like the Pages site):
every chart has its PNG, card and oEmbed file; every page carries link-preview tags whose
absolute URLs point at files that exist in the built site; chart pages and embed pages
announce their oEmbed file."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest
from conftest_site import SUB_PATH_URL, BuiltSite
from helpers_calc import real_catalog
from helpers_chart_site import ChartSite, catalog_with_a_fit, chart_site_for, fitted_ids
from test_chart_images import OEMBED_RICH_SCHEMA

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import images, share
from tinkernomics.site.charts import spec as charts

pytestmark = pytest.mark.build

PREVIEW_TAGS = ("og:title", "og:description", "og:url", "og:image", "twitter:card",
                "twitter:image:alt")
URL_TAGS = ("og:url", "og:image")


class _Head(HTMLParser):
    """Meta tags and alternate links of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.meta: dict[str, str] = {}
        self.alternates: list[dict[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "meta" and ("property" in a or "name" in a):
            self.meta[a.get("property") or a["name"]] = a.get("content", "")
        elif tag == "link" and "alternate" in (a.get("rel") or "").split():
            self.alternates.append(a)


def head_of(path: Path) -> _Head:
    parser = _Head()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def site_file(site: Path, url: str) -> Path:
    """The built file an absolute site URL serves (``.../x/`` -> ``x/index.html``)."""
    assert url.startswith(SUB_PATH_URL), f"not an absolute URL of the site: {url}"
    rel = url.removeprefix(SUB_PATH_URL).split("#", 1)[0]
    path = site / rel
    return path / "index.html" if rel == "" or rel.endswith("/") else path


def content_pages(site: Path) -> list[Path]:
    """Every page MkDocs built (the embed pages and the 404 page are checked apart)."""
    return sorted(p for p in site.rglob("index.html")
                  if p.relative_to(site).parts[0] not in ("embed", "assets"))


@pytest.fixture(scope="module")
def chart_site(built_site: BuiltSite, tmp_path_factory: pytest.TempPathFactory) -> ChartSite:
    """The site and an algorithm with its own chart (the catalog's, else a fixture's)."""
    return chart_site_for(built_site, tmp_path_factory.mktemp("chart-site"))


@pytest.fixture(scope="module")
def chart_ids() -> list[str]:
    return charts.chart_ids(real_catalog())


def test_every_chart_has_a_png_a_card_and_an_svg(built_site: BuiltSite,
                                                 chart_ids: list[str]) -> None:
    assert chart_ids
    for chart_id in chart_ids:
        folder = built_site.root / "embed" / chart_id
        width, height = images.png_size((folder / "chart.png").read_bytes())
        assert width == share.WIDE_PX and height > 600, chart_id
        assert images.png_size((folder / "card.png").read_bytes()) == (1200, 630), chart_id
        svg = (folder / "chart.svg").read_text(encoding="utf-8")
        assert f"{SUB_PATH_URL}algorithms/" in svg and "data as of " in svg
    site_card = built_site.root / "assets" / "images" / "site-card.png"
    assert images.png_size(site_card.read_bytes()) == (1200, 630)


def test_every_page_has_link_preview_tags_with_urls_that_exist(built_site: BuiltSite) -> None:
    pages = content_pages(built_site.root)
    assert len(pages) > 10
    for page in pages:
        meta = head_of(page).meta
        missing = [tag for tag in PREVIEW_TAGS if not meta.get(tag)]
        assert not missing, f"{page}: missing {missing}"
        assert meta["twitter:card"] == "summary_large_image"
        for tag in URL_TAGS:
            assert site_file(built_site.root, meta[tag]).is_file(), f"{page}: {tag} {meta[tag]}"
        assert site_file(built_site.root, meta["og:url"]) == page


def test_chart_pages_show_the_charts_card_and_others_the_site_card(
        chart_site: ChartSite) -> None:
    site = chart_site.site.root
    algorithm = real_catalog().algorithms[chart_site.algorithm]
    fitted = head_of(site / chart_site.page).meta
    assert fitted["og:image"] == f"{SUB_PATH_URL}embed/{chart_site.chart_id}/card.png"
    assert fitted["og:title"].startswith(algorithm.name)
    assert algorithm.full_name in fitted["og:description"]
    formulas = head_of(site / "formulas" / "index.html").meta
    assert formulas["og:image"] == f"{SUB_PATH_URL}assets/images/site-card.png"
    assert formulas["og:description"] != fitted["og:description"]


def test_a_catalog_without_a_fit_gets_the_fixture_fit_charted(tmp_path: Path) -> None:
    """The fallback of ``chart_site`` (a catalog with no fitted algorithm): the copy is valid
    and charts the algorithm the fixture fit was given, which had no chart before."""
    before = fitted_ids(real_catalog())
    copy, algorithm = catalog_with_a_fit(tmp_path / "catalog")
    assert algorithm not in before
    catalog = load_valid_catalog(copy)
    assert fitted_ids(catalog) == sorted([*before, algorithm])
    assert charts.algorithm_chart_id(algorithm) in charts.chart_ids(catalog)


def test_oembed_files_validate_and_their_thumbnails_exist(built_site: BuiltSite,
                                                          chart_ids: list[str]) -> None:
    for chart_id in chart_ids:
        folder = built_site.root / "embed" / chart_id
        data = json.loads((folder / "oembed.json").read_text(encoding="utf-8"))
        jsonschema.validate(data, OEMBED_RICH_SCHEMA)
        thumb = site_file(built_site.root, data["thumbnail_url"])
        assert images.png_size(thumb.read_bytes()) == (data["thumbnail_width"],
                                                       data["thumbnail_height"])
        assert f'src="{SUB_PATH_URL}embed/{chart_id}/?theme=auto"' in data["html"]


def test_chart_pages_and_embed_pages_announce_their_oembed(built_site: BuiltSite,
                                                          chart_ids: list[str]) -> None:
    site = built_site.root
    pages = {"scalerl-comparison": site / "algorithms" / "index.html"}
    pages |= {cid: site / "algorithms" / cid.removeprefix("scalerl-") / "index.html"
              for cid in chart_ids if cid != "scalerl-comparison"}
    for chart_id in chart_ids:
        for page in (pages[chart_id], site / "embed" / chart_id / "index.html"):
            links = [a for a in head_of(page).alternates
                     if a.get("type") == "application/json+oembed"]
            assert len(links) == 1, page
            assert links[0]["href"] == f"{SUB_PATH_URL}embed/{chart_id}/oembed.json"
            assert site_file(site, links[0]["href"]).is_file()
    assert not head_of(site / "formulas" / "index.html").alternates


def test_links_in_the_embed_page_leave_the_frame(built_site: BuiltSite,
                                                 chart_ids: list[str]) -> None:
    for chart_id in chart_ids:
        text = (built_site.root / "embed" / chart_id / "index.html").read_text(encoding="utf-8")
        body = text.split("<body", 1)[1]
        for anchor in body.split("<a ")[1:]:
            tag = anchor.split(">", 1)[0]
            new_tab = 'target="_blank"' in tag and 'rel="noopener"' in tag  # "open the data"
            assert "download=" in tag or 'target="_top"' in tag or new_tab, f"{chart_id}: <a {tag}>"


def test_site_ships_the_vendored_plotly_bundle_unchanged(built_site: BuiltSite) -> None:
    """The plotly.js the chart loader fetches is the basic bundle (a quarter of the full one)."""
    shipped = (built_site.root / chartsite.VENDOR_PLOTLY).read_bytes()
    assert shipped.startswith(b"/**\n* plotly.js (basic - minified) v"), shipped[:80]
    assert shipped == chartsite.plotly_js_path().read_bytes()


def test_every_chart_on_a_page_names_a_spec_file_that_exists(built_site: BuiltSite) -> None:
    """The loader fetches ``data-tn-spec`` relative to the page: on every page and embed page
    it must resolve to that chart's Plotly figure in the built site."""
    seen = set()
    for page in built_site.root.rglob("index.html"):
        text = page.read_text(encoding="utf-8")
        for chart_id, url in re.findall(r'data-tn-chart="([^"]+)" data-tn-spec="([^"]+)"', text):
            spec_file = (page.parent / url).resolve()
            assert spec_file == (built_site.root / chartsite.EMBED_DIR / chart_id
                                 / chartsite.SPEC_FILE).resolve(), (page, url)
            assert json.loads(spec_file.read_text(encoding="utf-8"))["data"], spec_file
            seen.add(page.parent.relative_to(built_site.root).as_posix().split("/")[0])
    assert {"algorithms", chartsite.EMBED_DIR} <= seen
