"""Issue 32, without a browser: the snippet as WordPress's oEmbed sanitiser leaves it, the
image variants (dark, narrow) and their snippets with alt text, CSVs that open as
pandas opens them, link-preview tags, and the SITE_URL warning of `make build`."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
import subprocess
from html import escape
from pathlib import Path

import helpers_charts
import helpers_embedbox as box
import pytest
from helpers_charts import fitted_catalog, reward

from tinkernomics.catalog.entries import Catalog
from tinkernomics.site.charts import data as chartdata
from tinkernomics.site.charts import embed, images, share
from tinkernomics.site.charts import feature as chartsite
from tinkernomics.site.charts import spec as charts
from tinkernomics.site.charts import svg as chartsvg
from tinkernomics.site.postbuild import previews

BASE = "https://example.org/tn/"
DATE = "2026-11-30"
WP_IFRAME_ATTRS = ("src", "width", "height", "frameborder", "marginwidth", "marginheight",
                   "scrolling", "title")
_TAG = re.compile(r"<iframe\b([^>]*)>", re.S)
_ATTR = re.compile(r'([a-zA-Z-]+)="([^"]*)"')


def wordpress_sanitised(html: str, secret: str = "") -> str:
    """``wp_filter_oembed_result`` (wp-includes/embed.php) for a discovered provider: only the
    iframe, only WP_IFRAME_ATTRS, ``#?secret=`` appended to its src, then ``sandbox`` and
    ``security`` added. No ``style``, no wrapper, no script."""
    found = _TAG.search(html)
    assert found, "WordPress drops an oEmbed html without an iframe"
    kept = [(k, v) for k, v in _ATTR.findall(found.group(1)) if k in WP_IFRAME_ATTRS]
    if secret:
        kept = [(k, f"{v}#?secret={secret}" if k == "src" else v) for k, v in kept]
        kept.append(("data-secret", secret))
    attrs = "".join(f' {k}="{v}"' for k, v in kept)
    return (f'<iframe class="wp-embedded-content" sandbox="allow-scripts" '
            f'security="restricted"{attrs}></iframe>')


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    return fitted_catalog(tmp_path_factory.mktemp("fitted"))


@pytest.fixture(scope="module")
def grpo(catalog: Catalog) -> charts.Chart:
    return charts.build_chart(catalog, "scalerl-grpo", date=DATE)


@pytest.fixture(scope="module")
def comparison(catalog: Catalog) -> charts.Chart:
    return charts.build_chart(catalog, charts.COMPARISON_ID, date=DATE)


@pytest.fixture(scope="module")
def folder(grpo: charts.Chart, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("grpo")
    cache = images.ImageCache(tmp_path_factory.mktemp("cache"))
    helpers_charts.write_chart_files(grpo, out, BASE, cache)
    return out


# --------------------------------------------------------------------------- snippet


@pytest.mark.parametrize("chart_id", ["scalerl-grpo", charts.COMPARISON_ID])
def test_wordpress_keeps_a_full_width_frame_of_the_one_height(
        catalog: Catalog, chart_id: str) -> None:
    """Issue 46: one height everywhere (the oEmbed JSON, the iframe attribute, the plain CSS
    value before the formula, the strict snippet), the embed page's at a 720 px column; a
    frame shorter than a narrow column needs degrades instead (browser tests)."""
    chart = charts.build_chart(catalog, chart_id)
    data = embed.oembed(chart, BASE, (1200, 900))
    kept = dict(_ATTR.findall(wordpress_sanitised(data["html"], "abc")))
    assert kept["width"] == "100%" and kept["frameborder"] == "0" and kept["scrolling"] == "no"
    height = round(embed.embed_height(chart, embed.FALLBACK_WIDTH_PX))
    assert int(kept["height"]) == data["height"] == embed.one_height(chart) in (height, height + 1)
    assert data["width"] == embed.FALLBACK_WIDTH_PX
    assert embed.height_css(chart).startswith(f"height:{data['height']}px;")
    assert f'height="{data["height"]}"' in box.strict_snippet(chart, BASE)
    assert kept["title"].startswith(chart.title)


def test_a_chart_folder_holds_one_oembed_file_and_no_file_nobody_reads(folder: Path) -> None:
    """oembed.json is the one response the discovery links name (a static host answers any
    ``maxwidth`` with it); no per-width copies, no empty sitemap (issue 47)."""
    names = {p.name for p in folder.iterdir()}
    assert embed.OEMBED_FILE in names
    assert not [n for n in names if n.startswith("oembed-") or n == "sitemap.xml"]


def test_the_strict_snippet_has_no_inline_style_and_the_policy_line_names_the_site(
        grpo: charts.Chart) -> None:
    strict = box.strict_snippet(grpo, BASE)
    assert "style" not in strict and "<script" in strict and "resize.js" in strict
    assert box.csp_line(BASE) == ("script-src https://example.org; "
                                    "frame-src https://example.org")


def test_snippet_allows_the_clipboard_and_escapes_the_title(grpo: charts.Chart) -> None:
    iframe = embed.embed_iframe(grpo, BASE)
    assert 'allow="clipboard-write"' in iframe
    hostile = dataclasses.replace(grpo, title='A "quoted" <b>name</b>')
    assert '<b>' not in embed.embed_iframe(hostile, BASE)
    # Where the wrapper's style is dropped, cqw is the viewport's: the formula stops at 960 px.
    assert "cqw" in embed.height_css(grpo)
    assert re.findall(r"[\d.]+ \* (min\(100cqw, 960px\))", embed.height_css(grpo))


# --------------------------------------------------------------------------- images


def _rgb(path: Path, xy: tuple[int, int]) -> tuple[int, int, int]:
    from PIL import Image

    with Image.open(path) as image:
        return image.convert("RGB").getpixel(xy)


def _hex(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]


def test_dark_and_narrow_pngs_exist_and_differ_as_they_should(folder: Path) -> None:
    dark_bg = _hex(charts.THEMES["dark"]["paper_bgcolor"])
    for name, theme, width in [("chart.png", "light", share.WIDE_PX),
                               ("chart-dark.png", "dark", share.WIDE_PX),
                               ("chart-narrow.png", "light", share.NARROW_PX),
                               ("chart-narrow-dark.png", "dark", share.NARROW_PX)]:
        data = (folder / name).read_bytes()
        assert images.png_size(data)[0] == width, name
        corner = _rgb(folder / name, (3, 3))
        want = dark_bg if theme == "dark" else (255, 255, 255)
        assert max(abs(a - b) for a, b in zip(corner, want, strict=True)) <= 4, name  # palette
    wide = images.png_size((folder / "chart.png").read_bytes())
    narrow = images.png_size((folder / "chart-narrow.png").read_bytes())
    assert narrow[1] / narrow[0] > wide[1] / wide[0]  # the phone layout, not a shrunk copy


def test_narrow_image_is_legible_at_360_px() -> None:
    """Tick labels are 13 px in the SVG: shown 360 px wide, the wide PNG's are 3.9 px (scaled
    from 720 units), the narrow one's at least 11 px."""
    narrow = chartsvg.LAYOUTS["narrow"].width
    assert 13 * 360 / narrow >= 11
    assert 13 * 360 / chartsvg.LAYOUTS["wide"].width < 7


def test_each_variant_is_one_png_and_one_svg(folder: Path, grpo: charts.Chart) -> None:
    """Issue 47: no dated copy of an image beside it (a second file's bytes on GitHub Pages),
    and no wide CSV for a chart of one curve (its long CSV is that table already)."""
    assert len(grpo.series) == 1 and not (folder / "data-wide.csv").exists()
    for variant in share.VARIANTS:
        assert (folder / variant.png()).is_file() and (folder / variant.svg).is_file()
    assert not [p.name for p in folder.iterdir() if DATE in p.name]
    assert {p.name for p in folder.iterdir()} == set(helpers_charts.chart_file_names(grpo))
    dark_svg = (folder / "chart-dark.svg").read_text(encoding="utf-8")
    assert charts.THEMES["dark"]["paper_bgcolor"] in dark_svg


def test_image_snippets_carry_alt_text_that_states_the_finding(grpo: charts.Chart,
                                                               comparison: charts.Chart) -> None:
    alt = share.alt_text(grpo)
    p = grpo.series[0].params
    assert grpo.series[0].name in alt and f"{p.A * 100:g}%" in alt  # the chart's own numbers
    html = box.html_snippet(grpo, BASE, (1200, 894), "auto")
    assert 'alt="' in html and "chart-narrow.png" in html and "chart-dark.png" in html
    assert 'width="1200" height="894"' in html
    assert html.startswith(f'<figure><a href="{BASE}algorithms/grpo/#chart-scalerl-grpo">')
    light = box.html_snippet(grpo, BASE, (1200, 894), "light")
    assert "dark" not in light.split("<img", 1)[0] and "chart.png" in light
    markdown = box.markdown_snippet(grpo, BASE)
    assert markdown.startswith("[![Line chart:") and f"({BASE}embed/scalerl-grpo/chart.png)" \
        in markdown
    finding = share.finding(comparison)
    top = max(comparison.series, key=lambda s: s.params.A)
    assert finding.count(top.name) >= 1 and str(len(comparison.series)) in finding


# --------------------------------------------------------------------------- data


def pandas_default_rows(text: str) -> list[dict[str, str]]:
    """What ``pandas.read_csv(url)`` does by default (header on line 1, ``,``, ``"`` quotes),
    strictly: it raises ParserError when a row has more fields than the header, which a
    ``#`` line before the header caused."""
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    assert len(set(header)) == len(header) and not header[0].startswith("#")
    for i, row in enumerate(body, start=2):
        assert len(row) == len(header), f"line {i}: {len(row)} fields, header has {len(header)}"
    return [dict(zip(header, row, strict=True)) for row in body]


def test_data_csv_opens_with_pandas_defaults_in_the_charts_units(
        comparison: charts.Chart, catalog: Catalog) -> None:
    rows = pandas_default_rows(chartdata.to_csv(comparison, BASE))
    assert len(rows) == len(comparison.series) * charts.CURVE_POINTS
    fit = catalog.algorithms["cispo"].scalerl
    assert fit is not None
    last = [r for r in rows if r["algorithm_id"] == "cispo"][-1]
    expected = 100 * reward(fit, float(last["gb200_hours"]))
    assert float(last["reward_percent"]) == pytest.approx(expected, rel=5e-4)  # percent
    assert max(float(r["reward_percent"]) for r in rows) > 1  # not a 0-1 fraction


def test_wide_csv_has_one_column_per_curve(comparison: charts.Chart) -> None:
    rows = pandas_default_rows(chartdata.to_wide_csv(comparison))
    assert len(rows) == charts.CURVE_POINTS
    assert list(rows[0])[:2] == list(chartdata.WIDE_FIRST)
    long = pandas_default_rows(chartdata.to_csv(comparison))
    for s in comparison.series:
        column = [float(r[f"{s.algorithm_id}_reward_percent"]) for r in rows]
        assert column == [float(r["reward_percent"]) for r in long
                          if r["algorithm_id"] == s.algorithm_id]


def test_the_csv_metadata_is_in_the_json(comparison: charts.Chart, grpo: charts.Chart) -> None:
    data = json.loads(json.dumps(chartdata.to_json(comparison, BASE)))
    assert data["csv"]["files"] == {"long": "data.csv", "wide": "data-wide.csv"}
    assert "percent" in data["csv"]["units"]["reward_percent"]
    assert "first row" in data["csv"]["provenance_rows"]  # where data.csv gives them (issue 47)
    assert chartdata.to_json(grpo)["csv"]["files"] == {"long": "data.csv"}  # one curve
    assert data["page"] == f"{BASE}algorithms/" and data["licence"]["name"] == "CC BY 4.0"


# --------------------------------------------------------------------------- previews


def test_previews_carry_image_alt_and_site_name() -> None:
    page = ('<html><head><title>GRPO</title></head><body><article><p>Intro.</p>'
            '<figure data-tn-chart="scalerl-grpo"><p class="tn-chart__summary tn-sr-only">'
            "GRPO rises to 50%.</p></figure></article></body></html>")
    tags = previews.preview(page, "algorithms/grpo/", BASE).tags(BASE)
    assert '<meta property="og:site_name" content="tinker-nomics">' in tags
    # the chart's summary, which names the chart (issue 47: not prefixed by the page's title)
    assert 'property="og:image:alt" content="GRPO rises to 50%."' in tags
    assert 'name="twitter:image:alt" content="GRPO rises to 50%."' in tags
    # Material fetches a sitemap beside every link whose rel is exactly "alternate".
    assert 'rel="alternate oembed" type="application/json+oembed"' in tags


def test_a_description_that_leads_into_a_list_is_cut_to_a_sentence() -> None:
    text = "What does it cost, and where does the money go? This site collects the numbers:"
    assert previews.as_sentence(text) == "What does it cost, and where does the money go?"
    assert previews.as_sentence("Only a lead-in:") == ""
    assert previews.as_sentence("A sentence.") == "A sentence."


def test_the_embed_page_has_a_heading_one_image_and_preview_tags(grpo: charts.Chart) -> None:
    page = chartsite.render_embed_page(grpo, BASE)
    assert re.search(r"<h1 class=\"tn-chart__title\"[^>]*>[^<]+</h1>", page)
    # the chart's files, light and dark (wide, narrow by media), named by the title and
    # described by the caption as the inline SVG was; CSS shows one (issue 47: no inline SVG)
    assert page.count("<img ") == 2 and 'role="img"' not in page
    assert page.count(f'alt="{escape(grpo.title)}" aria-describedby=') == 2
    # the plot is named once drawn, by charts.js from the caption (no copy of it in the page);
    # the page is noindex: its description is the caption and og:description only
    assert '<div class="tn-chart__plot" tabindex="-1"></div>' in page
    assert page.count(grpo.description) == 2 and '<meta name="description"' not in page
    assert '<table class="tn-sr-only">' in page and share.alt_text(grpo).split(".")[0] in page
    for tag in ("og:title", "og:image", "og:image:alt", "og:site_name", "twitter:image:alt"):
        assert f'"{tag}"' in page, tag
    assert 'content="https://example.org/tn/embed/scalerl-grpo/card.png"' in page


# --------------------------------------------------------------------------- make build


def _stub_bin(tmp: Path) -> Path:
    folder = tmp / "bin"
    folder.mkdir()
    for name in ("mkdocs", "tinkernomics"):
        stub = folder / name
        stub.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
        stub.chmod(0o755)
    return folder


@pytest.mark.parametrize("site_url", ["", "https://example.org/tn/"])
def test_make_build_without_site_url_warns_once(tmp_path: Path, site_url: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "SITE_URL"}
    if site_url:
        env["SITE_URL"] = site_url
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(["make", "-o", "setup", "build", f"BIN={_stub_bin(tmp_path)}"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "SITE_URL is not set" in line]
    assert len(warnings) == (0 if site_url else 1)
    if not site_url:
        assert "http://127.0.0.1:8000/" in warnings[0]
