"""The built site carries the catalog: every algorithm, reference, formula, price and unverified
value is on its page with the figures derive.py computes; no raw template or LaTeX is visible;
nothing loads from another host; internal links resolve; an invalid catalog fails the build."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urldefrag, urlsplit

import pytest
from conftest_site import REPO_ROOT, SUB_PATH_URL, BuiltSite, run_mkdocs_build
from helpers_contrib import run_cli_in_process
from helpers_leaks import catalog_text, leaks
from helpers_site import (
    LEFT_OVER,
    PAGES,
    Node,
    article,
    load_page,
    load_theme,
    page_file,
    parse,
    second_build,
    second_build_inode,
)

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import Status
from tinkernomics.catalog.provenancerules import PROVENANCE
from tinkernomics.catalog.walk import walk
from tinkernomics.derived import derive
from tinkernomics.site.pages.views import entry_page, money, plain

pytestmark = pytest.mark.build


def text_of(node: Node) -> str:
    return " ".join(node.text().split())


def site_pages(site: Path, catalog: Catalog) -> list[str]:
    return [*PAGES, *(f"algorithms/{a}/" for a in catalog.algorithms)]


def cited_ids(node: Node) -> set[str]:
    """Reference ids that citation links inside ``node`` point at."""
    return {urldefrag(a.attrs["href"]).fragment for a in node.by_tag("a")
            if "/references/" in a.attrs.get("href", "") and "#" in a.attrs["href"]}


# --------------------------------------------------------------------------- build


def test_build_logs_no_warning(built_site: BuiltSite) -> None:
    assert not [line for line in built_site.log.splitlines() if "WARNING" in line]


# --------------------------------------------------------------------------- algorithms


def test_every_algorithm_page_shows_its_profile_fit_and_sources(built_site: BuiltSite,
                                                                catalog: Catalog) -> None:
    factor = derive.conversion_factor(catalog)
    for algo in catalog.algorithms.values():
        body = article(load_page(built_site.root, f"algorithms/{algo.id}/"))
        text = text_of(body)
        assert text_of(body.by_tag("h1")[0]).startswith(algo.name), algo.id
        assert algo.full_name in text and algo.attribution in text, algo.id
        profile = text_of(body.by_class("tn-profile")[0])
        for figs in (algo.typical_k, algo.typical_g):
            if figs is not None:
                assert ", ".join(str(v) for v in figs.values) in profile, algo.id
        if algo.scalerl is not None:
            fit = text_of(body.by_class("tn-scalerl")[0])
            for fig in (algo.scalerl.A, algo.scalerl.B, algo.scalerl.C_mid):
                assert derive.format_figure(fig) in fit, (algo.id, fig)
            hours = derive.h100_equivalent_hours(algo.scalerl.C_mid.value, factor)
            assert derive.format_number(hours) in fit, algo.id
            assert factor.text in fit and factor.basis in fit, algo.id
        claims = body.by_class("tn-claims")
        assert len(claims[0].by_tag("li") if claims else []) == len(algo.claims), algo.id
        for loss in algo.tinker_losses:
            assert any(a.attrs.get("href", "").endswith(f"/tinker/#loss-{loss}")
                       for a in body.by_tag("a")), (algo.id, loss)
        sources = {obj.source for _, obj, _, _ in walk(algo) if isinstance(obj, PROVENANCE)}
        assert set(algo.references) | sources <= cited_ids(body), algo.id


def test_algorithms_index_compares_every_algorithm(built_site: BuiltSite,
                                                   catalog: Catalog) -> None:
    factor = derive.conversion_factor(catalog)
    body = article(load_page(built_site.root, "algorithms/"))
    table = body.by_class("tn-table-wrap")[0]
    columns = len(table.by_tag("thead")[0].by_tag("th"))
    for algo in catalog.algorithms.values():
        row = body.by_id(f"row-{algo.id}")
        assert row is not None, algo.id
        cells = [n for n in row.children if isinstance(n, Node)]
        assert len(cells) == columns, algo.id
        text = text_of(row)
        assert algo.name in text and str(algo.year) in text
        assert ", ".join(str(v) for v in algo.typical_k.values) in text
        if algo.scalerl is not None:
            hours = derive.h100_equivalent_hours(algo.scalerl.C_mid.value, factor)
            assert derive.format_number(hours) in text
        href = row.by_tag("a")[0].attrs["href"]
        assert href == f"{algo.id}/"


# --------------------------------------------------------------------------- formulas


def test_formulas_page_shows_each_worked_example_as_derive_computes_it(
        built_site: BuiltSite, catalog: Catalog) -> None:
    body = article(load_page(built_site.root, "formulas/"))
    shown = {n.attrs["data-formula"]: text_of(n) for n in body.iter() if "data-formula" in n.attrs}
    assert shown.keys() == catalog.formulas.keys()
    for formula in catalog.formulas.values():
        example = derive.worked_example(formula)
        assert shown[formula.id].startswith(derive.format_number(example.result)), formula.id
        section = body.by_id(f"formula-{formula.id}")
        assert section is not None, formula.id
    assert len(body.by_tag("math")) >= 2 * len(catalog.formulas)


# --------------------------------------------------------------------------- Tinker


def test_tinker_page_lists_every_price_newest_list_first(built_site: BuiltSite,
                                                          catalog: Catalog) -> None:
    body = article(load_page(built_site.root, "tinker/"))
    lists = sorted(catalog.price_lists.values(), key=lambda p: p.effective, reverse=True)
    headings = [n.attrs["id"] for n in body.by_tag("h3") if n.attrs.get("id", "").startswith(
        "prices-")]
    assert headings == [f"prices-{p.id}" for p in lists]
    tables = [n for n in body.by_class("tn-pricelist")]
    assert len(tables) == len(lists)
    for plist, block in zip(lists, tables, strict=True):
        rows = block.by_tag("tbody")[0].by_tag("tr")
        assert len(rows) == len(plist.rows), plist.id
        for row, tr in zip(plist.rows, rows, strict=True):
            cells = [text_of(td) for td in tr.by_tag("td")]
            assert cells[1:4] == [money(row.prefill), money(row.sample), money(row.train)]
            assert catalog.models[row.model].name in text_of(tr)
    for loss in catalog.losses.values():
        assert body.by_id(f"loss-{loss.id}") is not None, loss.id
    for lm in catalog.models.values():
        assert body.by_id(f"model-{lm.id}") is not None, lm.id
    platform = catalog.platform
    assert platform is not None
    core = [p for p in platform.primitives if p.core]
    first_table = body.by_class("tn-calls")[0]
    assert [text_of(n.by_tag("code")[0]) for n in first_table.by_tag("th")
            if n.attrs.get("scope") == "row"] == [p.name for p in core]


# --------------------------------------------------------------------------- references


def citing_entries(catalog: Catalog) -> dict[str, set[tuple[str, str]]]:
    found: dict[str, set[tuple[str, str]]] = {}
    for entry in catalog.iter_entries():
        for _, obj, _, _ in walk(entry.model):
            refs = list(getattr(obj, "references", None) or [])
            if isinstance(getattr(obj, "source", None), str):
                refs.append(obj.source)
            for ref in refs:
                found.setdefault(ref, set()).add((entry.kind.name, entry.key))
    return found


def test_every_reference_is_anchored_and_links_back_to_what_cites_it(
        built_site: BuiltSite, catalog: Catalog) -> None:
    body = article(load_page(built_site.root, "references/"))
    citing = citing_entries(catalog)
    numbers = []
    for ref in catalog.references.values():
        item = body.by_id(ref.id)
        assert item is not None and item.tag == "li", ref.id
        assert ref.title in text_of(item)
        numbers.append(int(item.attrs["value"]))
        if ref.url:
            assert any(a.attrs.get("href") == ref.url for a in item.by_tag("a")), ref.id
        cited = item.by_class("tn-ref__cited")
        links = cited[0].by_tag("a") if cited else []
        assert len(links) == len(citing.get(ref.id, set())), ref.id
    assert sorted(numbers) == list(range(1, len(catalog.references) + 1))


def test_further_reading_lists_each_reference_that_has_a_blurb(built_site: BuiltSite,
                                                              catalog: Catalog) -> None:
    body = article(load_page(built_site.root, "further-reading/"))
    wanted = {r.id for r in catalog.references.values() if r.further_reading}
    assert cited_ids(body) == wanted


# --------------------------------------------------------------------------- data quality


def unverified_values(catalog: Catalog) -> Iterator[tuple[str, str, object]]:
    for entry in catalog.iter_entries():
        for _, obj, _, _ in walk(entry.model):
            if isinstance(obj, PROVENANCE) and getattr(obj, "status", None) == Status.unverified:
                yield entry.kind.name, entry.key, obj


def resolve(site: Path, page: str, href: str) -> tuple[Path, str]:
    """The file and fragment an internal href of ``page`` points at."""
    parts = urlsplit(href)
    path, fragment = parts.path, parts.fragment
    target = (site / page / path).resolve() if path else (site / page).resolve()
    if target.is_dir() or not target.suffix:
        target = target / "index.html"
    return target, fragment


def test_data_quality_lists_every_unverified_value_and_each_is_marked_where_it_appears(
        built_site: BuiltSite, catalog: Catalog) -> None:
    """Algorithms' values are listed on their own pages (the Data quality page lists the
    algorithms, linking there), every other kind's on the Data quality page; each item says
    what the sources report instead and links to the value, which carries the badge."""
    site = built_site.root
    body = article(load_page(site, "data-quality/"))
    items = [(item, "data-quality/") for item in body.by_class("tn-dq__item")]
    lists = body.by_class("tn-dq__entries")
    # it repeats each algorithm page: left out of the index (the mark is dropped once indexed)
    assert lists and not any("data-search-exclude" in ul.attrs for ul in lists)
    indexed = " ".join(t for loc, t in search_entries(site).items()
                       if loc.startswith("data-quality/"))
    assert not any(" ".join(text_of(ul).split())[:80] in indexed for ul in lists)
    entry_links = {a.attrs["href"] for ul in lists for a in ul.by_tag("a")}
    with_values = {key for kind, key, _ in unverified_values(catalog) if kind == "algorithm"}
    assert entry_links == {f"../algorithms/{key}/#data-quality" for key in with_values}
    for key in with_values:
        page = f"algorithms/{key}/"
        section = article(load_page(site, page))
        assert section.by_id("data-quality") is not None, key
        items += [(item, page) for item in section.by_class("tn-dq__item")]
    assert len(items) == len(list(unverified_values(catalog)))
    pages: dict[Path, Node] = {}
    for item, where_page in items:
        where = [a for a in item.by_tag("a") if text_of(a).startswith("where it appears")]
        assert len(where) == 1, item.attrs["id"]
        target, fragment = resolve(site, where_page, where[0].attrs["href"])
        if target not in pages:  # parse each page once (setdefault would parse every time)
            pages[target] = parse(target.read_text(encoding="utf-8"))
        page = pages[target]
        marked = page.by_id(fragment)
        assert marked is not None, where[0].attrs["href"]
        badge = marked.by_class("tn-badge--unverified")
        assert badge, where[0].attrs["href"]
        back, back_fragment = resolve(site, target.parent.relative_to(site).as_posix() + "/",
                                      badge[0].attrs["href"])
        assert back == (site / where_page / "index.html").resolve(), item.attrs["id"]
        assert back_fragment == item.attrs["id"]
        assert item.by_class("tn-instead"), item.attrs["id"]


def test_every_figure_cites_and_each_reference_is_given_in_full_once(built_site: BuiltSite,
                                                                     catalog: Catalog) -> None:
    """A figure links each of its sources (a citation to the reference's entry); the page gives
    a reference's full line once (issue 47): on its first citation's hover text, or in the
    page's own reference list, whose citations then carry none. A value's hover text never
    repeats its status (the badge's), its source nor its locator."""
    for page in site_pages(built_site.root, catalog):
        body = article(load_page(built_site.root, page))
        listed = {a.attrs["href"] for ul in body.by_class("tn-reflist") for a in ul.by_tag("a")}
        titled: dict[str, int] = {}
        for fig in body.by_class("tn-fig"):
            links = [a for c in fig.by_class("tn-cite") for a in c.by_tag("a")]
            assert links, (page, text_of(fig))
            assert all("references/#" in a.attrs["href"] for a in links), (page, text_of(fig))
            value = fig.by_class("tn-fig__value")
            title = value[0].attrs.get("title", "") if value else ""
            assert title.split(":")[0].lower() not in {s.value for s in Status}, (page, title)
            assert "Source:" not in title and "Where:" not in title, (page, title)
        for a in (a for c in body.by_class("tn-cite") for a in c.by_tag("a")):
            titled[a.attrs["href"]] = titled.get(a.attrs["href"], 0) + ("title" in a.attrs)
        for href, count in titled.items():
            assert count == (0 if href in listed else 1), (page, href, count)


def test_every_figure_and_claim_of_every_entry_is_on_its_page(built_site: BuiltSite,
                                                              catalog: Catalog) -> None:
    texts: dict[str, str] = {}
    missing = []
    for entry in catalog.iter_entries():
        page = entry_page(entry.kind.name, entry.key)
        if page not in texts:
            texts[page] = text_of(article(load_page(built_site.root, page)))
        for loc, obj, _, _ in walk(entry.model):
            if isinstance(obj, m.Figure):
                wanted = derive.format_figure(obj)
            elif isinstance(obj, m.FigureList):
                wanted = ", ".join(str(v) for v in obj.values)
            elif isinstance(obj, m.Claim):
                wanted = " ".join(plain(obj.text).split())
            else:
                continue
            if wanted not in texts[page]:
                missing.append((entry.key, loc, wanted))
    assert not missing


# --------------------------------------------------------------------------- whole site

def html_files(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "assets" not in p.relative_to(site).parts)


def test_no_raw_template_or_latex_is_visible(built_site: BuiltSite) -> None:
    """No page shows template or LaTeX source, save where it is the catalog's own text (a
    locator quoting a config's ``${b}}``: ``helpers_leaks``)."""
    catalog = catalog_text(REPO_ROOT / "catalog")
    found = []
    for path in html_files(built_site.root):
        text = parse(path.read_text(encoding="utf-8")).text(visible_only=True)
        found += [(path.relative_to(built_site.root).as_posix(), leak)
                  for leak in leaks(text, catalog)]
    assert not found


RESOURCE_ATTRS = {"script": "src", "link": "href", "img": "src", "iframe": "src",
                  "source": "src", "video": "src", "audio": "src", "embed": "src",
                  "object": "data"}
OWN_HOST = urlsplit(SUB_PATH_URL).netloc
CSS_REMOTE = re.compile(r"(@import\s+(url\()?\s*['\"]?|url\(\s*['\"]?)(https?:)?//", re.I)


def remote(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.netloc) and parts.netloc != OWN_HOST


def search_entries(site: Path) -> dict[str, str]:
    """The built search index: location -> text."""
    index = json.loads((site / load_theme().PROFILE["search_index"]).read_text(encoding="utf-8"))
    return {doc["location"]: doc["text"] for doc in index["docs"]}


def test_search_index_leaves_out_the_blocks_marked_excluded(built_site: BuiltSite,
                                                             catalog: Catalog) -> None:
    entries = search_entries(built_site.root)
    with_values = [aid for aid in catalog.algorithms
                   if load_page(built_site.root, f"algorithms/{aid}/").by_class("tn-dq")]
    assert with_values  # the real catalog has unverified values on some algorithm pages
    for aid in with_values:  # the "Unverified values" section is left out, heading and all
        assert f"algorithms/{aid}/#data-quality" not in entries, aid
    index_text = " ".join(t for loc, t in entries.items() if loc.startswith("algorithms/#")
                          or loc == "algorithms/")
    assert "H100-equivalent hours use the factor" not in index_text  # the table's footnote
    # superseded ScaleRL values are history the Data quality page indexes (issue 47)
    superseded = [aid for aid, a in catalog.algorithms.items()
                  if a.scalerl_record and a.scalerl_record.superseded]
    for aid in superseded:
        text = " ".join(t for loc, t in entries.items() if loc.startswith(f"algorithms/{aid}/"))
        assert text and "Superseded values" not in text, aid


def test_algorithm_pages_index_what_readers_search_for(built_site: BuiltSite,
                                                      catalog: Catalog) -> None:
    entries = search_entries(built_site.root)
    for aid, algo in catalog.algorithms.items():
        page = f"algorithms/{aid}/"
        sections = {loc.removeprefix(page) for loc in entries if loc.startswith(page)}
        # Figures only, or indexed on their own pages (calculator, data quality, references).
        assert not sections & {"#typical-run-cost", "#data-quality", "#references"}, aid
        assert {"", "#profile", "#notes", "#tinker"} <= sections, aid
        assert entries[page + "#notes"].strip(), aid
        if algo.scalerl:  # the fit's model and the chart's caption, not its parameter list
            fit = entries[page + "#scalerl"]
            assert "Sigmoid fit of pass rate" in fit and algo.name in fit, aid
            assert "asymptotic pass rate" not in fit and "<math" not in fit, aid


def test_reference_checks_index_their_explanation_not_their_table(built_site: BuiltSite) -> None:
    """A search for a word in a reference's title finds the reference, not the checks table
    (a run of titles, dates and 'current'); the section's explanation is still found."""
    text = search_entries(built_site.root)["data-quality/#reference-checks"]
    assert "stale" in text and "last compared its title" in text
    rest = text.split("references have a stale or missing check")[1]
    assert rest.count("current") == rest.count(" current, checked"), rest  # the count line only
    assert "DeepSeekMath" not in text


def test_no_page_data_reaches_the_search_index(built_site: BuiltSite) -> None:
    """What a page ships for its scripts (a ``<template>``'s JSON: the calculator's graph, a
    chart's spec) is not text for readers: Material's search would index it like any other."""
    indexed = " ".join(search_entries(built_site.root).values())
    leaked = []
    for path in html_files(built_site.root):
        html = path.read_text(encoding="utf-8")
        if "<template" not in html:
            continue
        for node in parse(html).iter():
            data = node.text().strip() if node.tag == "template" else ""
            if data and data[:200] in indexed:
                leaked.append(f"{path.relative_to(built_site.root)}: "
                              f"<template class={node.attrs.get('class')!r}>")
    assert not leaked, leaked


def test_nothing_loads_from_another_host(built_site: BuiltSite) -> None:
    found = []
    for path in html_files(built_site.root):
        page = parse(path.read_text(encoding="utf-8"))
        for node in page.iter():
            attr = RESOURCE_ATTRS.get(node.tag)
            url = node.attrs.get(attr or "", "")
            if attr and url and remote(url):
                found.append((path.name, node.tag, url))
        found += [(path.name, "style", s.text()) for s in page.by_tag("style")
                  if CSS_REMOTE.search(s.text())]
    for css in built_site.root.rglob("*.css"):
        if CSS_REMOTE.search(css.read_text(encoding="utf-8", errors="replace")):
            found.append((css.name, "css", "remote url()"))
    assert not found


def test_ids_are_unique_on_each_page(built_site: BuiltSite, catalog: Catalog) -> None:
    for page in site_pages(built_site.root, catalog):
        ids = parse(page_file(built_site.root, page).read_text("utf-8")).ids()
        assert len(ids) == len(set(ids)), (page, sorted({i for i in ids if ids.count(i) > 1}))


@pytest.mark.sweep  # a second whole build (shared with test_api_site_build): .ci/run's group
def test_two_builds_render_byte_identical_pages(built_site: BuiltSite,
                                                catalog: Catalog) -> None:
    """The session's build against a second one of the same commit (shared with the API
    tree's comparison, tests/test_api_site_build.py)."""
    again = second_build().root
    for page in site_pages(built_site.root, catalog):
        first = page_file(built_site.root, page).read_bytes()
        assert first == page_file(again, page).read_bytes(), page
    # the second build was a rebuild over a copy of the first: written in place, left-overs gone
    assert (again / "index.html").stat().st_ino == second_build_inode()
    assert not [rel for rel in LEFT_OVER if (again / rel).exists()]
    assert not (again / "left-over").exists()


# --------------------------------------------------------------------------- failing builds


def test_an_invalid_catalog_fails_the_build_with_the_validators_message(tmp_path: Path,
                                                                         catalog: Catalog) -> None:
    """Two mistakes, one build: a figure out of range and a year that is not a number. The
    build prints each of the validator's located lines, in plain lines (no traceback), and
    writes no page."""
    copy = tmp_path / "catalog"
    subprocess.run(["cp", "-r", str(REPO_ROOT / "catalog"), str(copy)], check=True)
    grpo = copy / "algorithms" / "grpo.yaml"
    text = grpo.read_text(encoding="utf-8")
    assert "\nyear: 2024\n" in text
    grpo.write_text(text.replace("\nyear: 2024\n", '\nyear: "2024a"\n'), encoding="utf-8")
    algo = next(a for a in catalog.algorithms.values() if a.scalerl is not None)
    path = copy / "algorithms" / f"{algo.id}.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.strip() == "A:")
    broken = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("value:"))
    lines[broken] = re.sub(r"value: .*", "value: 150", lines[broken])
    path.write_text("".join(lines), encoding="utf-8")
    validate = run_cli_in_process("validate", str(copy), cwd=REPO_ROOT,
                                  env={**os.environ, "GITHUB_ACTIONS": "false"})
    assert validate.returncode == 1
    problems = [line for line in validate.stdout.splitlines() if line.strip()]
    column = lines[broken].index("150") + 1  # the validator points at the value itself
    expected = f"{os.path.relpath(path, REPO_ROOT)}:{broken + 1}:{column}: scalerl.A.value:"
    assert any(p.startswith(expected) for p in problems), (expected, problems)
    assert any(p.startswith(f"{os.path.relpath(grpo, REPO_ROOT)}:") and ": year: " in p
               for p in problems), problems
    done = run_mkdocs_build(tmp_path / "site", catalog=copy)
    log = done.stdout + done.stderr
    assert done.returncode != 0
    for problem in problems:
        assert problem in log
    assert "algorithms/grpo.yaml:" in log and ": year: " in log, log[-2000:]
    assert "Traceback" not in log, log[-3000:]
    assert not (tmp_path / "site" / "index.html").exists()
