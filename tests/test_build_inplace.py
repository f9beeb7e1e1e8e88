"""A rebuild writes over the previous site's files (site/postbuild/inplace.py, the hooks in
macros/mkdocs_inplace.py): after it, the site holds exactly what the build wrote, as after
MkDocs' clean; files it wrote again keep their inode; a dirty build is left alone. The whole
site rebuilt this way is compared with a clean build in tests/test_site_build.py (sweep)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tinkernomics.site.postbuild import csp, inplace


def _site(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _clean(site: Path) -> None:
    """What MkDocs' ``utils.clean_directory`` does: every visible entry goes."""
    for name in os.listdir(site):
        if not name.startswith("."):
            path = site / name
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()


def _rebuild(site: Path, write: dict[str, str]) -> inplace.Rebuild:
    rebuild = inplace.Rebuild()
    rebuild.start("build", dirty=False)
    rebuild.before_clean(str(site))
    _clean(site)
    rebuild.after_clean()
    _site(site, write)
    return rebuild


def test_a_rebuild_keeps_what_it_wrote_in_place_and_drops_the_rest(tmp_path: Path) -> None:
    site = _site(tmp_path / "site", {"index.html": "old", "a/b/index.html": "old",
                                     "gone/deep/x.json": "old", "stale.css": "old",
                                     ".nojekyll": ""})
    inode = (site / "a/b/index.html").stat().st_ino
    rebuild = _rebuild(site, {"index.html": "new", "a/b/index.html": "new", "c.txt": "new"})
    rebuild.finish()
    files = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    assert files == [".nojekyll", "a/b/index.html", "c.txt", "index.html"]
    assert (site / "a/b/index.html").read_text() == "new"
    assert (site / "a/b/index.html").stat().st_ino == inode, "written over, not created again"
    assert not (site / "gone").exists(), "a folder left empty goes with its files"
    assert not (site / inplace.HOLD).exists()


def test_a_file_rewritten_with_the_same_bytes_is_kept(tmp_path: Path) -> None:
    site = _site(tmp_path / "site", {"same.html": "same"})
    rebuild = _rebuild(site, {"same.html": "same"})
    rebuild.finish()
    assert (site / "same.html").read_text() == "same"


def test_left_over_names_only_files_not_written_yet(tmp_path: Path) -> None:
    site = _site(tmp_path / "site", {"old.html": "<p>old</p>", "kept.html": "<p>k</p>"})
    rebuild = _rebuild(site, {"kept.html": "<p>new</p>", "fresh.html": "<p>f</p>"})
    assert inplace.left_over(site / "old.html")
    assert not inplace.left_over(site / "kept.html")
    assert not inplace.left_over(site / "fresh.html")
    report = csp.add_policies(site)
    assert report.changed == 2, "the policy pass skips the page the build did not write"
    assert (site / "old.html").read_text() == "<p>old</p>"
    rebuild.finish()
    assert not (site / "old.html").exists()
    assert not inplace.left_over(site / "kept.html")


def test_a_hard_linked_file_is_unlinked_at_restore(tmp_path: Path) -> None:
    cache = tmp_path / "cache.png"
    cache.write_bytes(b"png")
    site = _site(tmp_path / "site", {"x.html": "x"})
    os.link(cache, site / "chart.png")
    rebuild = _rebuild(site, {"x.html": "x"})
    assert not (site / "chart.png").exists()
    rebuild.finish()
    assert cache.read_bytes() == b"png", "the image cache's file is never written through"


def test_a_dirty_build_or_one_not_started_by_the_command_line_is_left_to_mkdocs(
        tmp_path: Path) -> None:
    for command, dirty in (("build", True), ("", False)):
        site = _site(tmp_path / f"site-{dirty}", {"page.html": "p"})
        rebuild = inplace.Rebuild()
        if command:
            rebuild.start(command, dirty)
        rebuild.before_clean(str(site))
        assert (site / "page.html").exists() and not (site / inplace.HOLD).exists()
        rebuild.after_clean()
        rebuild.finish()
        assert (site / "page.html").read_text() == "p"


def test_an_interrupted_builds_hold_is_not_kept(tmp_path: Path) -> None:
    site = _site(tmp_path / "site", {"page.html": "p", f"{inplace.HOLD}/old.html": "o"})
    rebuild = _rebuild(site, {})
    assert not (site / "old.html").exists(), "a hold never restored is not brought back"
    rebuild.finish()
    assert sorted(os.listdir(site)) == []


def test_a_failed_build_leaves_only_what_it_wrote(tmp_path: Path) -> None:
    site = _site(tmp_path / "site", {"page.html": "p", "other.html": "o"})
    rebuild = _rebuild(site, {"page.html": "new"})
    rebuild.finish()  # on_build_error calls the same
    assert sorted(os.listdir(site)) == ["page.html"]
    before_restore = inplace.Rebuild()
    before_restore.start("build", dirty=False)
    before_restore.before_clean(str(site))
    before_restore.finish()  # failed between on_pre_build and on_files
    assert sorted(os.listdir(site)) == []


def test_write_over_leaves_a_file_with_the_same_bytes_unwritten_and_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``write_over`` opens no file for writing when it already holds the bytes, yet the
    rebuild's prune keeps it (its change time moved); other content replaces the old."""
    site = _site(tmp_path / "site", {"same.json": "{}", "longer.json": "{}x", "shorter.json": "{",
                                     "left.json": "old"})
    rebuild = inplace.Rebuild()
    rebuild.start("build", dirty=False)
    rebuild.before_clean(str(site))
    _clean(site)
    rebuild.after_clean()
    opened: list[str] = []
    real_open = os.open

    def counting_open(path: str, flags: int, mode: int = 0o777) -> int:
        opened.append(os.path.basename(path))
        return real_open(path, flags, mode)

    monkeypatch.setattr(inplace.os, "open", counting_open)
    for name in ("same.json", "longer.json", "shorter.json", "new.json"):
        inplace.write_over(str(site / name), b"{}")
    monkeypatch.undo()
    rebuild.finish()
    assert sorted(opened) == ["longer.json", "new.json", "shorter.json"]
    assert {p.name: p.read_bytes() for p in site.iterdir()} == {
        "same.json": b"{}", "longer.json": b"{}", "shorter.json": b"{}", "new.json": b"{}"}
