"""Page views and macros without a site build: links, stubs, math, money, hooks, failures."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from jinja2 import UndefinedError

from tinkernomics.catalog.entries import Catalog
from tinkernomics.markup.mathml import MathError, to_mathml
from tinkernomics.site.build import SiteContext
from tinkernomics.site.pages import feature as pages
from tinkernomics.site.pages import views

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def ctx(catalog: Catalog) -> SiteContext:
    return SiteContext(root=REPO_ROOT, catalog=catalog)


@pytest.mark.parametrize(("here", "path", "anchor", "href"), [
    ("", "references/", "grpo", "references/#grpo"),
    ("algorithms/grpo/", "references/", "ppo", "../../references/#ppo"),
    ("algorithms/grpo/", "", None, "../../"),
    ("algorithms/", "algorithms/dpo/", None, "dpo/"),
    ("tinker/", "tinker/", "loss-ppo", "#loss-ppo"),
    ("tinker/", "tinker/", None, "./"),
])
def test_links_are_relative_so_the_site_works_under_any_sub_path(
        here: str, path: str, anchor: str | None, href: str) -> None:
    assert views.Links(here).to(path, anchor) == href


def test_every_algorithm_has_exactly_the_scaffold_stub_as_its_page(catalog: Catalog) -> None:
    stubs = {p.stem: p.read_text(encoding="utf-8")
             for p in (REPO_ROOT / "docs" / "algorithms").glob("*.md") if p.stem != "index"}
    assert stubs.keys() == catalog.algorithms.keys()
    for algo_id, text in stubs.items():
        assert text == pages.algorithm_stub(algo_id)


def test_every_catalog_formula_renders_to_mathml_without_leftover_latex(catalog: Catalog) -> None:
    latex = [f.latex for f in catalog.formulas.values()]
    latex += [v.symbol for f in catalog.formulas.values() for v in f.variables]
    latex += [loss.latex for loss in catalog.losses.values()]
    for tex in latex:
        mathml = to_mathml(tex, display=True)
        assert mathml.startswith("<math") and "\\" not in mathml, tex


def test_math_letters_keep_their_style_and_unknown_commands_fail() -> None:
    for tex in (r"\mathcal{L}", r"\mathcal L_t"):
        assert "<mi>ℒ</mi>" in html.unescape(to_mathml(tex)), tex
    assert "<mi>ℝ</mi>" in html.unescape(to_mathml(r"\mathbb{R}"))
    with pytest.raises(MathError, match="unknown LaTeX command"):
        to_mathml(r"\notacommand{x}")


def test_prose_math_becomes_mathml_and_dollar_signs_stay_prices() -> None:
    html = str(views.prose(r"Costs \$75/hr, about \$6,000; here \(\frac{a}{b}\) is math."))
    assert "$75/hr" in html and "$6,000" in html
    assert "<math" in html and "\\frac" not in html


def test_money_shows_every_price_as_written_with_cents(catalog: Catalog) -> None:
    for plist in catalog.price_lists.values():
        for row in plist.rows:
            for price in (row.prefill, row.sample, row.train):
                text = views.money(price)
                assert text.startswith("$")
                assert float(text[1:].replace(",", "")) == price
                assert len(text.split(".")[1]) >= 2


def test_other_features_add_algorithm_sections_through_the_hook(ctx: SiteContext) -> None:
    algo_id = next(iter(ctx.catalog.algorithms))
    seen = []

    def chart(ctx_: SiteContext, wanted: str, links: views.Links) -> str:
        seen.append((wanted, links.here))
        return f'<div class="hooked">{links.to("references/")}</div>'

    pages.add_algorithm_section(ctx, "chart", chart)
    out = pages.algorithm_page(ctx, algo_id)
    assert seen == [(algo_id, f"algorithms/{algo_id}/")]
    assert '<div class="hooked">../../references/</div>' in out
    with pytest.raises(ValueError, match="unknown algorithm page slot"):
        pages.add_algorithm_section(ctx, "sidebar", chart)


def test_unknown_ids_fail_loudly(ctx: SiteContext) -> None:
    with pytest.raises(KeyError, match="unknown algorithm id 'no_such_algorithm'"):
        pages.algorithm_page(ctx, "no_such_algorithm")
    index = pages.site_index(ctx)
    with pytest.raises(KeyError):
        index.cite("no_such_reference", views.Links(""))


def test_templates_refuse_undefined_values() -> None:
    with pytest.raises(UndefinedError):
        pages.render("home.html")


def test_macro_output_has_no_blank_line_runs_or_indented_lines(ctx: SiteContext) -> None:
    """Markdown would turn an indented line after a blank one into a code block."""
    for name, macro in pages.macros(ctx).items():
        out = macro(next(iter(ctx.catalog.algorithms))) if name == "algorithm_page" else macro()
        assert "\n\n\n" not in out, name
        assert not [line for line in out.splitlines() if line.startswith("    ")], name


def test_markdown_text_is_escaped_in_headings() -> None:
    assert pages.md_text("A_b *c* [d]") == r"A\_b \*c\* \[d\]"


def test_a_references_back_links_name_each_kind_once_before_its_entries() -> None:
    """Cited by: each kind once, in the order kinds first cite, before its entries (issue 47: a
    title with the kind on every link); a kind's lone entry of its own name is not named twice."""
    ref = views.ReferenceView(
        id="r", number=1, title="T", url=None, authors="A", venue="", date="", key=False,
        summary=None, further_reading=None, provenance=None,
        cited_by=[("X", "Algorithms", "a/x/"), ("Run 1", "Published runs", "d/#1"),
                  ("Y", "Algorithms", "a/y/"), ("Tinker platform", "Tinker platform", "t/")])
    assert ref.cited_groups == [("Algorithms", [("X", "a/x/"), ("Y", "a/y/")]),
                                ("Published runs", [("Run 1", "d/#1")]),
                                ("", [("Tinker platform", "t/")])]
