"""The adapter Zensical needs, without building: the catalog loaded once per build though
Zensical calls ``define_env`` once per page (``site.build.shared_site``), the generators' config
read by ``tinkernomics outputs`` (``site.outputs.read_config``), and the links Zensical resolves
against the page's source file (``site.relink``). Split from tests/test_zensical.py, which
builds with Zensical and compares the two sites.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest_site import REPO_ROOT
from helpers_contrib import run_cli_in_process

from tinkernomics.site import build as sitebuild
from tinkernomics.site.outputs import read_config
from tinkernomics.site.relink import for_source_file, relink

# --------------------------------------------------------------------------- once per build


@pytest.fixture
def counted_loads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[Path]:
    """SiteContext.load and the macros stubbed out, recording every load of a project."""
    loads: list[Path] = []

    def fake_load(root: Path, site_url: str = "",
                  theme: sitebuild.ThemeProfile = sitebuild.NO_THEME) -> sitebuild.SiteContext:
        loads.append(root)
        return sitebuild.SiteContext(root=root, catalog=None,  # type: ignore[arg-type]
                                     site_url=site_url, theme=theme)

    monkeypatch.setattr(sitebuild.SiteContext, "load", staticmethod(fake_load))
    monkeypatch.setattr(sitebuild, "all_macros", lambda ctx: {"m": lambda: "x"})
    monkeypatch.setattr(sitebuild, "_SHARED", {})
    monkeypatch.delenv(sitebuild.CATALOG_ENV, raising=False)
    (tmp_path / "catalog" / "algorithms").mkdir(parents=True)
    (tmp_path / "catalog" / "algorithms" / "a.yaml").write_text("id: a\n", encoding="utf-8")
    return loads


def test_define_env_per_page_loads_the_catalog_once(counted_loads: list[Path],
                                                    tmp_path: Path) -> None:
    first = sitebuild.shared_site(tmp_path, "https://x.org/")
    for _page in range(50):  # Zensical calls define_env once per page
        again = sitebuild.shared_site(tmp_path, "https://x.org/")
        assert again[0] is first[0] and again[1] is first[1]
    assert counted_loads == [tmp_path]


def test_a_catalog_edit_loads_it_again(counted_loads: list[Path], tmp_path: Path) -> None:
    entry = tmp_path / "catalog" / "algorithms" / "a.yaml"
    first, _ = sitebuild.shared_site(tmp_path)
    entry.write_text("id: a\nname: A longer entry\n", encoding="utf-8")
    edited, _ = sitebuild.shared_site(tmp_path)
    (tmp_path / "catalog" / "algorithms" / "b.yaml").write_text("id: b\n", encoding="utf-8")
    added, _ = sitebuild.shared_site(tmp_path)
    assert edited is not first and added is not edited
    assert len(counted_loads) == 3


def test_within_one_zensical_build_the_catalog_is_checked_once(
        counted_loads: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checks: list[Path] = []
    real = sitebuild.fingerprint
    monkeypatch.setattr(sitebuild, "fingerprint", lambda root: checks.append(root) or real(root))
    build_one, build_two = {"site_url": ""}, {"site_url": ""}  # Zensical: one config per build
    for _page in range(20):
        sitebuild.shared_site(tmp_path, build=build_one)
    assert (len(checks), len(counted_loads)) == (1, 1)
    (tmp_path / "catalog" / "algorithms" / "b.yaml").write_text("id: b\n", encoding="utf-8")
    sitebuild.shared_site(tmp_path, build=build_two)  # the next build sees the edit
    assert (len(checks), len(counted_loads)) == (2, 2)


def test_another_site_url_gets_its_own_context(counted_loads: list[Path], tmp_path: Path) -> None:
    a, _ = sitebuild.shared_site(tmp_path, "https://a.org/")
    b, _ = sitebuild.shared_site(tmp_path, "https://b.org/")
    assert (a.site_url, b.site_url) == ("https://a.org/", "https://b.org/")
    assert len(counted_loads) == 2


# --------------------------------------------------------------------------- config reader


@pytest.mark.parametrize(("environ", "expected"), [
    ({}, "http://127.0.0.1:8000/"),
    ({"SITE_URL": "https://example.org/sub/"}, "https://example.org/sub/"),
])
def test_outputs_read_the_site_url_as_the_generators_do(monkeypatch: pytest.MonkeyPatch,
                                                        environ: dict[str, str],
                                                        expected: str) -> None:
    monkeypatch.delenv("SITE_URL", raising=False)
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    config = read_config(REPO_ROOT / "mkdocs.yml")
    assert config.site_url == expected
    assert config.site_dir == REPO_ROOT / "site"
    assert read_config(REPO_ROOT / "mkdocs.yml", Path("/tmp/x")).site_dir == Path("/tmp/x")


def test_outputs_ignore_tags_they_do_not_need(tmp_path: Path) -> None:
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_url: !ENV [NO_SUCH_VARIABLE_TN, 'https://d.org/']\nsite_dir: out\n"
                      "markdown_extensions:\n  - pymdownx.emoji:\n"
                      "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n",
                      encoding="utf-8")
    read = read_config(config)
    assert (read.site_url, read.site_dir) == ("https://d.org/", tmp_path / "out")


def test_outputs_refuse_a_missing_site(tmp_path: Path) -> None:
    done = run_cli_in_process("outputs", "--site-dir", str(tmp_path / "nothing"), cwd=REPO_ROOT)
    assert done.returncode != 0 and "no built site here" in done.stderr


# --------------------------------------------------------------------------- links under Zensical


@pytest.mark.parametrize(("url", "page_url", "source", "expected"), [
    ("../data-quality/", "calculator/", "calculator.md", "data-quality/"),
    ("../../references/#grpo", "algorithms/grpo/", "algorithms/grpo.md", "../references/#grpo"),
    ("../cispo/", "algorithms/grpo/", "algorithms/grpo.md", "cispo/"),
    ("grpo/", "algorithms/", "algorithms/index.md", "grpo/"),
    ("./", "data-quality/", "data-quality.md", "data-quality/"),
    ("../assets/javascripts/calculator.js", "calculator/", "calculator.md",
     "assets/javascripts/calculator.js"),
    ("v2/index.json?x=1", "api/", "api.md", "api/v2/index.json?x=1"),
    ("#anchor", "calculator/", "calculator.md", "#anchor"),
    ("?a=ppo", "calculator/", "calculator.md", "?a=ppo"),
    ("https://example.org/a/", "calculator/", "calculator.md", "https://example.org/a/"),
    ("/tinker-nomics/x/", "calculator/", "calculator.md", "/tinker-nomics/x/"),
])
def test_relink_makes_page_links_relative_to_the_source_file(url: str, page_url: str,
                                                             source: str, expected: str) -> None:
    assert relink(url, page_url, source) == expected


def test_relink_rewrites_only_link_attributes() -> None:
    html = ('<a href="../x/">x</a> <script src="../a.js"></script> '
            '<code>&lt;iframe src=&quot;../e/&quot;&gt;</code> <div data-u="../y/"></div>')
    assert for_source_file(html, "p/", "p.md") == (
        '<a href="x/">x</a> <script src="a.js"></script> '
        '<code>&lt;iframe src=&quot;../e/&quot;&gt;</code> <div data-u="../y/"></div>')


@pytest.mark.parametrize(("page_url", "source"), [("calculator/", "calculator.md"),
                                                  ("a/b/", "a/b/index.md")])
def test_links_inside_noscript_stay_relative_to_the_page(page_url: str, source: str) -> None:
    """A parser with scripting on reads <noscript> content as text: Zensical leaves its links
    alone, so the adapter must too (else they point one folder too deep)."""
    html = ('<a href="../x/">x</a><noscript><p><a href="../ways/">w</a></p></noscript>'
            '<NOSCRIPT><img src="../i.png"></NOSCRIPT>')
    out = for_source_file(html, page_url, source)
    assert '<noscript><p><a href="../ways/">w</a></p></noscript>' in out
    assert '<NOSCRIPT><img src="../i.png"></NOSCRIPT>' in out
    assert out.startswith(f'<a href="{relink("../x/", page_url, source)}">')


@pytest.mark.parametrize(("page_url", "source"), [
    ("calculator/", "calculator.md"), ("algorithms/grpo/", "algorithms/grpo.md"),
    ("algorithms/", "algorithms/index.md"), ("", "index.md"), ("odd/place/", "other.md"),
])
def test_the_fast_path_gives_what_relink_gives(page_url: str, source: str) -> None:
    urls = ["../", "../a/", "../../b/c.json", "./", "./#x", "d/", "e.csv", "../f/#g", "#h",
            "?i=1", "https://j.org/", "/k/", "../l/?m=n#o"]
    urls = [u for u in urls if u.count("../") <= page_url.count("/")]  # none above the root
    html = " ".join(f'<a href="{u}">' for u in urls)
    expected = " ".join(f'<a href="{relink(u, page_url, source)}">' for u in urls)
    assert for_source_file(html, page_url, source) == expected
