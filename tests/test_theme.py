"""The theme adapter (macros/theme.py): its pins are the installed and declared releases, and
what it says of Material holds as behaviour, on a tiny site built with the real theme.

A theme release that breaks a reliance fails here with the adapter's checklist to walk, never
because a private source file's bytes changed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from helpers_site import REPO, load_theme

THEME = load_theme()
MKDOCS = Path(sys.executable).with_name("mkdocs")

PAGE = """# Title

<p>Visible words here.</p>

<div class="fig" data-search-exclude><svg viewBox="0 0 1 1"><text>hiddenfigure</text></svg>
<p>hiddenparagraph</p></div>

<h2 id="kept">Kept section</h2>
<p>keptwords stay.</p>

<h2 id="gone" data-search-exclude>Gone section</h2>
<div><p>hiddensection</p></div>

<h2 id="after">After</h2>
<p>afterwords <span data-search-exclude>hiddenspan</span> end.</p>
"""


def _build(tmp_path: Path, *, hooks: bool) -> list[dict[str, str]]:
    """The search index of a one-page Material site, built with or without the hooks."""
    root = tmp_path / ("with" if hooks else "without")
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text(PAGE, encoding="utf-8")
    config = ["site_name: t", "theme: {name: material}", "plugins: [search]",
              "markdown_extensions: [attr_list, md_in_html]"]
    if hooks:
        config.append(f"hooks: ['{REPO / 'macros' / 'mkdocs_hooks.py'}']")
    (root / "mkdocs.yml").write_text("\n".join(config) + "\n", encoding="utf-8")
    subprocess.run([str(MKDOCS), "build", "-q", "-f", str(root / "mkdocs.yml")], check=True,
                   cwd=root, capture_output=True)
    index = json.loads((root / "site" / THEME.PROFILE["search_index"]).read_text("utf-8"))
    return [{k: doc[k] for k in ("location", "title", "text")} for doc in index["docs"]]


@pytest.mark.build
def test_a_built_index_is_the_same_with_the_cut_and_skips_what_is_excluded(
        tmp_path: Path) -> None:
    cut = _build(tmp_path, hooks=True)
    assert cut == _build(tmp_path, hooks=False), "walk the upgrade checklist in macros/theme.py"
    text = " ".join(f"{d['title']} {d['text']}" for d in cut)
    for word in ("Visible", "keptwords", "afterwords", "Kept section"):
        assert word in text
    assert not re.search(r"hidden\w+|Gone section", text)
    assert {d["location"] for d in cut} >= {"", "#kept", "#after"}
    page = (tmp_path / "with" / "site" / "index.html").read_text(encoding="utf-8")
    assert "hiddenparagraph" in page and "tn:search-cut" not in page  # the page came back


@pytest.mark.build
def test_the_search_plugin_parses_the_page_the_hooks_cut(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The hooks' priorities (rule 1): Material's search plugin reads each page after the cut
    (its placeholders, not the excluded text) and the theme renders it after the restore."""
    parsed: list[str] = []
    parser = THEME.search_parser()
    feed = parser.feed
    monkeypatch.setattr(parser, "feed",
                        lambda self, data: (parsed.append(data), feed(self, data))[1])
    root = tmp_path / "site-src"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "index.md").write_text(PAGE, encoding="utf-8")
    (root / "mkdocs.yml").write_text(
        "site_name: t\ntheme: {name: material}\nplugins: [search]\n"
        "markdown_extensions: [attr_list, md_in_html]\n"
        f"hooks: ['{REPO / 'macros' / 'mkdocs_hooks.py'}']\n", encoding="utf-8")
    THEME.build_in_process(root / "mkdocs.yml")
    index_page = next(text for text in parsed if "Visible words" in text)
    assert "tn:search-cut" in index_page and "hiddenparagraph" not in index_page, \
        "walk the upgrade checklist in macros/theme.py (rule 1: the hooks' priorities)"
    built = (root / "site" / "index.html").read_text(encoding="utf-8")
    assert "hiddenparagraph" in built and "tn:search-cut" not in built


def test_the_pins_are_the_installed_releases() -> None:
    installed = {name: version(name) for name in THEME.PINS}
    assert installed == THEME.PINS, "walk the upgrade checklist in macros/theme.py"


def test_pyproject_pins_the_same_releases() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    for name, pinned in THEME.PINS.items():
        assert f'"{name}=={pinned}"' in text, name


def test_the_plotly_bundle_is_the_one_the_adapter_names() -> None:
    readme = REPO / "tinkernomics/site/charts/static/plotly/README.md"
    pinned = re.search(r"plotly\.js (\d+\.\d+\.\d+), vendored", THEME.__doc__ or "")
    assert pinned is not None
    assert f"version\n**{pinned.group(1)}**" in readme.read_text(encoding="utf-8")


def test_the_checklist_names_test_files_that_exist() -> None:
    named = set(re.findall(r"tests/(test_\w+\.py)", THEME.__doc__ or "")) | set(
        re.findall(r"``(test_\w+\.py)``", THEME.__doc__ or ""))
    assert len(named) >= 6
    assert not {n for n in named if not (REPO / "tests" / n).is_file()}, \
        "the upgrade checklist in macros/theme.py names a test file that does not exist"


SCRIPTS = [*sorted((REPO / "site_overrides" / "assets" / "javascripts").glob("*.js")),
           *sorted((REPO / "tinkernomics" / "site").glob("*/templates/*.js"))]


def test_the_charts_call_only_the_plotly_functions_the_adapter_names() -> None:
    called = {m.group(1) for path in SCRIPTS
              for m in re.finditer(r"\bPlotly\.([\w.]+)\(", path.read_text(encoding="utf-8"))}
    assert "newPlot" in called
    assert called <= set(THEME.PLOTLY_API), "a Plotly call macros/theme.py does not name"


# --------------------------------------------------------------------------- the theme's facts


def test_the_package_reads_the_profile_the_adapter_declares() -> None:
    """``PROFILE`` is read as data (never run) by the macros module and ``tinkernomics
    outputs``; the hooks build the same profile from it."""
    from tinkernomics.site.outputs import read_config, read_theme_adapter

    adapter = REPO / "macros" / "theme.py"
    assert read_theme_adapter(adapter) == THEME.profile()
    assert read_config(REPO / "mkdocs.yml").theme_adapter == adapter
    assert THEME.profile().search_exclude and THEME.profile().script_packages


def test_the_profile_reaches_the_context_of_a_build(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from tinkernomics.site import build as sitebuild

    monkeypatch.setattr(sitebuild, "_SHARED", {})
    monkeypatch.setattr(sitebuild, "all_macros", lambda ctx: {})
    monkeypatch.setattr(sitebuild, "load_valid_catalog", lambda *a, **k: None)
    ctx, _ = sitebuild.shared_site(tmp_path, theme=THEME.profile())
    assert ctx.theme == THEME.profile()
    bare, _ = sitebuild.shared_site(tmp_path)
    assert bare.theme == sitebuild.NO_THEME


@pytest.mark.parametrize(("text", "message"), [
    ("X = 1\n", "no PROFILE = {...}"),
    ("PROFILE = {'search_void': 'br'}\n", "search_void must be a list of strings"),
    ("PROFILE = {'search_voids': []}\n", "unknown field(s) search_voids"),
    ("PROFILE = dict(a=1)\n", "PROFILE"),
    ("PROFILE = {\n", "cannot read the theme adapter"),
])
def test_a_bad_adapter_is_one_line_naming_it(tmp_path: Path, text: str, message: str) -> None:
    from tinkernomics.site.build import OutputError
    from tinkernomics.site.outputs import read_theme_adapter

    adapter = tmp_path / "theme.py"
    adapter.write_text(text, encoding="utf-8")
    with pytest.raises(OutputError, match=re.escape(message)) as caught:
        read_theme_adapter(adapter)
    assert str(caught.value).startswith(str(adapter)) and "\n" not in str(caught.value)


def test_outputs_take_another_theme_adapter(tmp_path: Path) -> None:
    from helpers_contrib import run_cli_in_process

    (tmp_path / "site").mkdir()
    done = run_cli_in_process("outputs", "--site-dir", str(tmp_path / "site"),
                              "--theme-adapter", str(tmp_path / "none.py"), cwd=REPO)
    assert done.returncode == 1 and str(tmp_path / "none.py") in done.stderr
