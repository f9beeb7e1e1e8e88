"""A catalog carrying every known payload, built with the validator switched off, is inert in
Chromium: zero script executions, zero dialogs and zero ``javascript:`` links on every page.
`make test` opens one page of each kind that carries a payload (``KINDS``), the ``sweep``
group the others (more algorithm pages and embeds, the compare page showing each column that
holds one).

The validator rejects each payload (tests/test_security_markup.py); this test takes that wall
away to prove the next two hold on their own: the sanitiser where text becomes HTML
(``tinkernomics.markup``), the escaping of titles and attributes, and the page's
Content-Security-Policy. The build runs with a ``sitecustomize`` that makes the sanitiser's
verdict empty, so nothing in the package needs a switch for tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest_site import MKDOCS
from helpers_browser import NO_SEARCH_INDEX
from helpers_leaks import catalog_text, fold, leaks
from helpers_security import html_pages, served_site_context, sweep
from helpers_site import parse

from tinkernomics.site.algorithmfiles import COLUMN
from tinkernomics.site.build import CATALOG_ENV
from tinkernomics.site.calculator.pagedata import ALGORITHM_FILES

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
from synth import copy_project, keep_algorithms

pytestmark = [pytest.mark.build, pytest.mark.browser]

SITE_URL = "https://blog.example/tn/"
MARK = "window.__tn_pwned=(window.__tn_pwned||0)+1"
QUOTE = " “the quoted words”"
"""A reported locator quotes its paper (quotes.rule_pages_quoted): after the payload."""
PAYLOADS = [
    f"<svg/onload={MARK}>",
    f"<img/src=x onerror={MARK}>",
    f"GRPO</title/x><svg/onload={MARK}// x>",
    f"[a](<javascript:{MARK}>)",
    "[b](&#106;avascript:alert(1))",
    "[c](java&#x09;script:alert(1))",
    "[d][r]\n\n[r]: javascript:alert(1)",
    "[e](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    f"\\(\\href{{javascript:{MARK}}}{{x}}\\)",
    f"\\(\\text{{<img src=x onerror={MARK}>}}\\)",
    f"<math><mtext><img src=x onerror={MARK}></mtext></math>",
    f"<math><maction actiontype=statusline xlink:href=javascript:{MARK}>x</maction></math>",
    f"<details open ontoggle={MARK}>",
    f"<iframe srcdoc='<script>parent.{MARK}</script>'>",
    f"<a href=\"x\" onmouseover=\"{MARK}\">x</a>",
    f"<SCRIPT>{MARK}</SCRIPT>",
    f"<style>@import 'javascript:{MARK}'</style>",
    f"<form><button formaction=javascript:{MARK}>x</button></form>",
    f"<svg><a xlink:href=\"javascript:{MARK}\"><text>x</text></a></svg>",
    f"<noscript><p title=\"</noscript><img src=x onerror={MARK}>\"></noscript>",
    f"`<code>` and <!-- <img src=x onerror={MARK}> -->",
    f"&lt;img src=x onerror={MARK}&gt; &#60;script&#62;{MARK}&#60;/script&#62;",
]
PAYLOAD_TEXT = "\n\n".join(PAYLOADS)
LATEX = f"\\href{{javascript:{MARK}}}{{x}} + \\text{{<img src=x onerror={MARK}>}}"
NAME = f"GRPO</title/x><svg/onload={MARK}// x>"
CURVE_LABEL = "x<svg/onload=__tn_pwned=9>"
"""A chart curve label is at most 40 characters: a short payload that sets the same flag."""

TEMPLATE_TEXT = ("Its config reads {{ 7*7 }} and {% if true %}kept{% endif %}, "
                 "and ${mul:${a}, ${b}} for the batch.")
"""A run's notes quoting template-like config: data, to be shown as written."""

SITECUSTOMIZE = """\
# Test-only: the sanitiser's verdict is empty, so validation lets every payload through.
import tinkernomics.markup.prose as _prose
_prose.problems = lambda text: []
_prose.latex_problems = lambda latex: []
"""


def _edit(root: Path, rel: str, **fields: Any) -> None:
    path = root / rel
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for key, value in fields.items():
        target = data
        *parents, last = key.split("__")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[last] = value
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


KEPT_ALGORITHMS = ("grpo", "cispo")
"""Beside the algorithms the site's own defaults and presets name (``synth.keep_algorithms``
keeps those), the two that carry payloads, one with a ScaleRL fit (so the charts carry them);
the rest only cost build time."""


def _hostile_project(dest: Path) -> Path:
    """A copy of this project, its catalog cut to the algorithms the site needs, with payloads
    in every kind of text that becomes HTML: names, titles, notes, claims, figure notes,
    locators, summaries, LaTeX."""
    project = keep_algorithms(copy_project(dest), KEPT_ALGORITHMS)
    root = project / "catalog"
    _edit(root, "algorithms/grpo.yaml", name=NAME, notes=PAYLOAD_TEXT,
          tinker_mapping=PAYLOAD_TEXT, claims__0__text=PAYLOADS[1],
          claims__0__reported_instead=PAYLOADS[3], typical_k__note=PAYLOADS[8],
          claims__0__locator=PAYLOADS[2] + QUOTE, typical_g__locator=PAYLOADS[5] + QUOTE)
    _edit(root, "algorithms/cispo.yaml", name=NAME.replace("GRPO", "CISPO"),
          scalerl__model=NAME, scalerl__dataset=PAYLOADS[0], notes=PAYLOAD_TEXT,
          scalerl__A__locator=PAYLOADS[4] + QUOTE,
          scalerl__curve_label=CURVE_LABEL)
    _edit(root, "references/grpo_deepseekmath.yaml", title=NAME, summary=PAYLOAD_TEXT,
          authors=PAYLOADS[0])
    _edit(root, "hardware/h100.yaml", name=NAME, notes=PAYLOAD_TEXT)
    _edit(root, "formulas/flops_rollout.yaml", latex=LATEX, description=PAYLOAD_TEXT,
          name=NAME)
    _edit(root, "tinker/losses/cispo.yaml", latex=LATEX, description=PAYLOAD_TEXT)
    _edit(root, "models/qwen3-8b.yaml", name=NAME)
    _edit(root, f"runs/{_first_run(root)}.yaml", notes=TEMPLATE_TEXT)
    return project


def _first_run(root: Path) -> str:
    """The id of the first published run the cut catalog keeps."""
    return sorted(root.glob("runs/*.yaml"))[0].stem


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("hostile")
    project = _hostile_project(tmp / "project")
    (tmp / "custom").mkdir()
    (tmp / "custom" / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != CATALOG_ENV}
    env.update({"SITE_URL": SITE_URL, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": os.pathsep.join(
        filter(None, [str(tmp / "custom"), os.environ.get("PYTHONPATH")]))})
    done = subprocess.run([str(MKDOCS), "build", "--strict", "--site-dir", str(tmp / "site")],
                          cwd=project, env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return tmp / "site"


def test_payloads_reach_the_pages_as_text(hostile_site: Path) -> None:
    """The build really carried the payloads (the test is not vacuous): the name is on the
    algorithm page, escaped, and the title tag holds it as text."""
    page = (hostile_site / "algorithms" / "grpo" / "index.html").read_text(encoding="utf-8")
    assert "&lt;/title/x&gt;&lt;svg/onload=" in page
    title = page[page.index("<title>"):page.index("</title>") + 8]
    assert "<svg" not in title and "&lt;svg" in title
    chart = (hostile_site / "algorithms" / "index.html").read_text(encoding="utf-8")
    assert "— x&lt;svg/onload=__tn_pwned=9&gt;" in chart  # CISPO's curve label, as text


def test_template_like_catalog_text_is_shown_as_written(hostile_site: Path) -> None:
    """A run's notes that look like Jinja reach the Back-test page as the same text, never
    evaluated; the site-wide leak check (``helpers_leaks``) takes it for the catalog's text
    and still finds a real leak beside it."""
    page = parse((hostile_site / "backtest" / "index.html").read_text(encoding="utf-8"))
    text = page.text(visible_only=True)
    assert fold(TEMPLATE_TEXT) in fold(text)
    catalog = catalog_text(hostile_site.parent / "project" / "catalog")
    template = ("{{", "}}", "{%", "%}")
    assert not leaks(text, catalog, template)
    beside = leaks(text + " {{ page.title }}", catalog, template)
    assert len(beside) == 2 and all("page" in leak or "title" in leak for leak in beside), beside


KINDS = ("algorithms/grpo/", "algorithms/cispo/", "algorithms/", "backtest/", "calculator/",
         "compare/", "data-quality/", "embed/scalerl-comparison/", "formulas/", "hardware/",
         "references/", "tinker/", "ways/")
"""One page of each kind that carries a payload: the two algorithms that carry them (names,
notes, claims, locators; the ScaleRL fit and its curve label), every page built from another
template, and the comparison chart's embed (the curve label). Each shows the payloads through
its own template and scripts; the other pages holding one repeat a kind (another algorithm's
page naming a hostile model or reference, another chart's embed, a compare column)."""


def _payload_pages(site: Path, group: str) -> list[str]:
    """Every page whose HTML holds a payload (in any form: text, attribute, script data):
    ``KINDS`` for `make test`, the others for the ``sweep`` group (`make test-sweep`, which
    .ci/run runs too)."""
    rels = [p.relative_to(site).as_posix().removesuffix("index.html")
            for p in html_pages(site) if "tn_pwned" in p.read_text(encoding="utf-8")]
    if group != "kinds":  # a compare column is data in its algorithm's file: shown in the page
        files = {p.stem: json.loads(p.read_text(encoding="utf-8"))
                 for p in sorted((site / ALGORITHM_FILES).glob("*.json"))}
        rels += [f"compare/?a={key}&a=grpo" for key, data in files.items()
                 if isinstance(data, dict) and "tn_pwned" in data.get(COLUMN, "")]
    return [r for r in rels if (r in KINDS) == (group == "kinds")]


@pytest.mark.parametrize("group", ["kinds", pytest.param("rest", marks=pytest.mark.sweep)])
def test_no_page_runs_a_payload(hostile_site: Path, browser, group: str) -> None:
    """Every page whose HTML holds a payload is opened (split in two groups); the others
    cannot run one. (Material's search worker builds an empty index, ``NO_SEARCH_INDEX``:
    nothing here types a query, so no search result is ever shown.)"""
    rels = _payload_pages(hostile_site, group)
    if group == "kinds":  # each kind still carries a payload (the test is not vacuous)
        assert sorted(rels) == sorted(KINDS)
    else:  # and so does a compare column, shown in the compare page
        assert any(rel.startswith("compare/?") for rel in rels)
    with served_site_context(browser, hostile_site, SITE_URL) as (context, watch, _):
        context.add_init_script(NO_SEARCH_INDEX)
        results = sweep(context, watch, [watch.base + rel for rel in rels])
    assert len(results) >= (len(KINDS) if group == "kinds" else 1)
    ran = {url: r["pwned"] for url, r in results.items() if r["pwned"]}
    links = {url: r["javascript_links"] for url, r in results.items() if r["javascript_links"]}
    dialogs = {url: r["dialogs"] for url, r in results.items() if r["dialogs"]}
    assert not ran, ran
    assert not links, links
    assert not dialogs, dialogs
    assert not watch.dialogs, watch.dialogs
    assert not watch.foreign, watch.foreign[:5]
