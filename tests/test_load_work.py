"""What the catalog load does not do (issue 47): the work it was spending on a large catalog
for nothing, shown gone without a timing (speed is ``benchmarks/bench_validate.py``'s)."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers_catalog import VALID_CATALOG, copy_valid, write_file

from tinkernomics.catalog import loader
from tinkernomics.catalog.loader import collector_paused, display_path, load_catalog


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if was:  # as it was before the test, whatever the test left
        gc.enable()
    else:
        gc.disable()


def test_the_cyclic_collector_sleeps_while_files_are_read(
        monkeypatch: pytest.MonkeyPatch, collector_on: None) -> None:
    seen: list[bool] = []
    read = loader.read_yaml

    def spy(raw: bytes, path: str) -> object:
        seen.append(gc.isenabled())
        return read(raw, path)

    monkeypatch.setattr(loader, "read_yaml", spy)
    catalog, problems = load_catalog(VALID_CATALOG)
    assert problems == [] and catalog.algorithms
    assert seen and not any(seen)
    assert gc.isenabled(), "the collector is back on after the load"


def test_the_collector_comes_back_as_it_was_even_on_error(collector_on: None) -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled(), "a caller that had it off keeps it off"


@pytest.mark.parametrize("where", [".", "catalog", "catalog/algorithms", "elsewhere"])
def test_problems_name_files_as_relpath_does_from_anywhere(tmp_path: Path, where: str,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    root = copy_valid(tmp_path)
    write_file(root, "algorithms/broken.yaml", "id: broken\nname: [\n")
    cwd = tmp_path / where
    cwd.mkdir(exist_ok=True)
    monkeypatch.chdir(cwd)
    for given in (root, Path(os.path.relpath(root, cwd))):
        _, problems = load_catalog(given)
        paths = {p.path for p in problems}
        assert display_path(root / "algorithms" / "broken.yaml") in paths, (given, paths)


def _spy(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[tuple[object, ...]]:
    """Record the arguments of every call of ``owner.name`` (which still runs)."""
    calls: list[tuple[object, ...]] = []
    real = getattr(owner, name)

    def spy(*args: object) -> object:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(owner, name, spy)
    return calls


def test_printable_text_is_not_searched_for_hidden_characters(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tinkernomics.catalog import fields, saferules

    searched = _spy(monkeypatch, fields, "hidden_message")
    searched_again = _spy(monkeypatch, saferules, "hidden_message")
    _, problems = load_catalog(VALID_CATALOG)
    assert problems == []
    texts = [args[0] for args in (*searched, *searched_again)]
    assert all(isinstance(t, str) and not t.isprintable() for t in texts), texts[:3]


def test_a_figure_in_range_words_no_message(monkeypatch: pytest.MonkeyPatch) -> None:
    from tinkernomics.catalog import numbers

    worded = _spy(monkeypatch, numbers, "show_number")
    catalog, problems = load_catalog(VALID_CATALOG)
    assert problems == [] and catalog.algorithms
    assert worded == []


def test_text_without_markup_is_neither_rendered_nor_counted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tinkernomics.markup import prose

    counted = _spy(monkeypatch, prose, "over_budget")
    _, problems = load_catalog(VALID_CATALOG)
    assert problems == []
    texts = [str(args[0]) for args in counted]
    assert texts, "the fixture has prose with markup"
    assert all(set(t) & set("<>&[]\\#\n" + prose.MARKUP) for t in texts), texts[:3]


def test_each_model_s_citations_and_locators_are_read_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tinkernomics.catalog import quotes, rules, walk

    read = _spy(monkeypatch, walk, "citations")
    # before issue 47 the rule read them on its own
    read_again = _spy(monkeypatch, rules, "citations") if hasattr(rules, "citations") else []
    statuses = _spy(monkeypatch, quotes, "attribute")
    _, problems = load_catalog(VALID_CATALOG)
    assert problems == []
    per_model = [id(args[0]) for args in (*read, *read_again)]
    assert per_model and len(per_model) == len(set(per_model))
    status_reads = [id(args[0]) for args in statuses if args[1] == "status"]
    assert status_reads and len(status_reads) == len(set(status_reads))


def test_a_hole_stops_the_locators_where_the_walk_meets_it(tmp_path: Path) -> None:
    from tinkernomics.catalog.partial import HoleTouched
    from tinkernomics.catalog.quotes import located

    root = copy_valid(tmp_path)
    text = (root / "algorithms/grpo.yaml").read_text(encoding="utf-8")
    write_file(root, "algorithms/grpo.yaml", text.replace("status: reported", "status: bogus", 1))
    catalog, problems = load_catalog(root)
    assert any("status" in p.field for p in problems)
    with pytest.raises(HoleTouched):
        list(located(catalog))
    complete = list(located(catalog.view()))
    assert complete and all(item.entry.key != "grpo" for item in complete)
    with pytest.raises(HoleTouched):  # found once, raised again for the next rule
        list(located(catalog))


def test_a_figure_s_numbers_are_read_without_the_missing_name_path() -> None:
    from tinkernomics.catalog.numbers import figure_numbers

    class Figure:
        def __init__(self) -> None:
            self.value = 3.0
            self.missed: list[str] = []

        def __getattr__(self, name: str) -> object:  # pydantic's slow path for a missing name
            self.missed.append(name)
            raise AttributeError(name)

    figure = Figure()
    assert list(figure_numbers(figure)) == [(("value",), 3.0)]
    assert figure.missed == []


def test_a_valid_entry_keeps_its_positions_not_a_second_copy_of_its_data() -> None:
    catalog, problems = load_catalog(VALID_CATALOG)
    assert problems == []
    entry = catalog.entry("algorithm", "grpo")
    assert entry.doc.data is None
    assert entry.doc.where(("name",)) == (2, 7)  # name: GRPO, line 2 of the fixture


def test_each_kept_source_file_is_read_once(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from tinkernomics.catalog import quotes

    commit = "0123456789abcdef0123456789abcdef01234567"
    root = copy_valid(tmp_path)
    write_file(root, "references/example_repo.yaml",
               "id: example_repo\ntitle: Example repository\nauthors: Example\n"
               f"url: https://github.com/example/repo/tree/{commit}\nchecked: 2026-12-01\n")
    write_file(root, f"sources/github/example/repo/{commit}/config.py",
               "hidden = 4096\nparams = 8\nbf16 = 989.4\n")
    for rel, old, line in (("hardware/h100.yaml", "glennklockwood_h100\n  locator: 'Fixture: "
                            "Performance table, \"row BF16\"'", "3 \"bf16 = 989.4\""),
                           ("models/qwen3-8b.yaml", "tinker_pricing_2026_07\n  locator: 'Fixture: "
                            "price table, \"row Qwen3-8B\"'", "2 \"params = 8\"")):
        text = (root / rel).read_text(encoding="utf-8")
        assert text.count(old) == 1, rel
        write_file(root, rel, text.replace(old, f"example_repo\n  locator: 'config.py line "
                                           f"{line}'"))
    read = _spy(monkeypatch, quotes, "_lines")
    _, problems = load_catalog(root)
    assert problems == []
    paths = [args[0] for args in read]
    assert len(paths) == 1, paths


def _walk_as_generators(model: object, loc: tuple[object, ...] = ()) -> Iterator[tuple[
        object, ...]]:
    """The walk as it was before issue 47 (nested generators), to compare with."""
    from pydantic import BaseModel

    yield loc, model, None, None
    for name in type(model).model_fields:  # type: ignore[attr-defined]
        value = getattr(model, name)
        items = enumerate(value) if isinstance(value, list) else [(None, value)]
        for index, item in items:
            if isinstance(item, BaseModel):
                child = (*loc, name) if index is None else (*loc, name, index)
                for sub_loc, sub, parent, field in _walk_as_generators(item, child):
                    yield sub_loc, sub, parent or model, field or name


def test_the_walk_finds_every_nested_model_as_the_generators_did() -> None:
    from tinkernomics.catalog.walk import walk

    catalog, _ = load_catalog(VALID_CATALOG)
    for entry in catalog.iter_entries():
        new = [(loc, id(obj), id(parent), field) for loc, obj, parent, field in
               walk(entry.model, ("x",))]
        old = [(loc, id(obj), id(parent), field) for loc, obj, parent, field in
               _walk_as_generators(entry.model, ("x",))]
        assert new == old, entry.key


def _files_by_rglob(root: Path) -> list[Path]:
    """``catalog_files`` as it was before issue 47 (every path listed, then filtered)."""
    files = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts and rel.parts[0] in ("schema", "sources"):
            continue
        if path.is_file() and path.suffix.lower() in (".yaml", ".yml"):
            files.append(path)
    return files


def test_the_listed_files_are_those_every_path_filtered_gave(tmp_path: Path) -> None:
    from tinkernomics.catalog.loader import catalog_files

    root = copy_valid(tmp_path)
    for rel in ("schema/algorithm.schema.yaml", "sources/github/a/b/c/x.yaml", "stray.yml",
                "algorithms/UPPER.YAML", "algorithms/.yaml", "algorithms/a-b.yaml",
                "algorithms/a/b.yaml", "deep/schema/kept.yaml", "algorithms/notes.txt"):
        write_file(root, rel, "id: x\n")
    (root / "algorithms" / "folder.yaml").mkdir()
    (root / "linked").symlink_to(root / "algorithms", target_is_directory=True)
    (root / "algorithms" / "dangling.yaml").symlink_to(root / "nowhere.yaml")
    assert catalog_files(root) == _files_by_rglob(root)
    assert root / "algorithms" / "UPPER.YAML" in catalog_files(root)
