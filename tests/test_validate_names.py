"""Ids and files that cannot break the site: names the site uses itself (reserved, derived from
what the build writes), page stubs without their entry, names that only look the same."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate

from tinkernomics.catalog.confusables import prototypes, skeleton
from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.fields import ID_PATTERN
from tinkernomics.catalog.problems import CatalogError
from tinkernomics.site.build import SiteContext
from tinkernomics.site.reserved import ID, Namespace, namespaces, site_reserved

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))  # synth
from synth import keep_algorithms, make_project

ANCHOR = re.compile(r'\sid="([^"]+)"')


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of this site's project (catalog and pages beside its mkdocs.yml), its algorithms
    cut to GRPO, VinePPO and those the site's own code names (``keep_algorithms``: the names
    checked here are the site's, not the catalog's size)."""
    return keep_algorithms(make_project(0, tmp_path / "project"), ("grpo", "vineppo"))


def add_algorithm(project: Path, algo_id: str, name: str) -> None:
    """A copy of GRPO's entry as ``algo_id`` (with its page stub), named ``name``."""
    text = (project / "catalog" / "algorithms" / "grpo.yaml").read_text(encoding="utf-8")
    text = text.replace("\nid: grpo\n", f"\nid: {algo_id}\n").replace(
        "\nname: GRPO\n", f'\nname: "{name}"\n')
    (project / "catalog" / "algorithms" / f"{algo_id}.yaml").write_text(text, encoding="utf-8")
    stub = project / "docs" / "algorithms" / f"{algo_id}.md"
    if not stub.exists():
        stub.write_text(f'{{{{ algorithm_page("{algo_id}") }}}}\n', encoding="utf-8")


# --------------------------------------------------------------------------- reserved names


def names_in(site: Path, ns: Namespace) -> set[str] | None:
    """Every name the built ``site`` holds in the namespace (None: the place does not exist)."""
    if "#" in ns.pattern:
        page, anchor = ns.pattern.split("#")
        html = site / page / "index.html"
        if not html.is_file():
            return None
        head, tail = anchor.split(ID)
        found = ANCHOR.findall(html.read_text(encoding="utf-8"))
        return {a[len(head):len(a) - len(tail)] for a in found
                if a.startswith(head) and a.endswith(tail) and len(a) > len(head + tail)}
    head, tail = ns.pattern.split(ID)
    parent, prefix = head.rsplit("/", 1)
    if not (site / parent).is_dir():
        return None
    found = set()
    for child in (site / parent).iterdir():
        if tail == "/":  # a folder, or a page (algorithms/index.html)
            name = child.name if child.is_dir() else child.name.removesuffix(".html")
        elif child.is_file() and child.name.endswith(tail):
            name = child.name.removesuffix(tail)
        else:
            continue
        if name.startswith(prefix) and name != prefix:
            found.add(name.removeprefix(prefix))
    return found


def test_every_name_the_build_writes_beside_entries_is_reserved(built_site, catalog: Catalog) \
        -> None:  # type: ignore[no-untyped-def]
    checked = 0
    for ns in namespaces():
        found = names_in(built_site.root, ns)
        if found is None:
            assert "series" in ns.pattern, f"{ns.pattern}: not in the built site"
            continue
        own = catalog.ids(ns.kind)
        assert found & own, f"{ns.pattern}: no entry's name found (is the pattern right?)"
        others = {n for n in found - own if re.fullmatch(ID_PATTERN, n)}
        assert others <= set(ns.fixed), (ns.pattern, sorted(others - set(ns.fixed)))
        checked += len(others)
    assert checked >= 5  # index (twice), comparison, the References page's headings


@pytest.mark.parametrize(("kind", "name", "used_for"), [
    ("algorithm", "index", "calculator/algorithms/index.json"),
    ("algorithm", "index", "docs/algorithms/index.md"),
    ("algorithm", "comparison", "embed/scalerl-comparison/"),
    ("reference", "key-references", "#key-references"),
])
def test_the_reserved_names_are_declared(kind: str, name: str, used_for: str) -> None:
    assert any(k == kind and n == name and used_for in u for k, n, u in site_reserved())


@pytest.mark.parametrize(("algo_id", "used_for"), [
    ("index", "calculator/algorithms/index.json"),
    ("comparison", "embed/scalerl-comparison/"),
])
def test_an_algorithm_with_a_reserved_id_is_refused_at_its_id(project: Path, algo_id: str,
                                                              used_for: str) -> None:
    add_algorithm(project, algo_id, "Some New Method")
    [problem] = run_validate(project, "catalog").problems
    assert problem.where == f"catalog/algorithms/{algo_id}.yaml:2:5: id"
    assert problem.message == f"id {algo_id!r} is reserved: the site uses that name itself"
    assert problem.hint is not None and problem.hint.startswith(
        f"`{algo_id}` is used by the site for ") and problem.hint.endswith("; choose another id")
    assert used_for in problem.hint


def test_a_reference_with_a_heading_anchor_as_id_is_refused(project: Path) -> None:
    refs = project / "catalog" / "references"
    text = (refs / "dpo_rafailov.yaml").read_text(encoding="utf-8")
    text = (text.replace("id: dpo_rafailov", "id: key-references")
            .replace("Direct Preference Optimization", "Some other work")
            .replace("2305.18290", "2999.00001"))
    (refs / "key-references.yaml").write_text(text, encoding="utf-8")
    [problem] = run_validate(project, "catalog").problems
    assert problem.where == "catalog/references/key-references.yaml:2:5: id"
    assert problem.hint == ("`key-references` is used by the site for the References page's "
                            "heading #key-references; choose another id")


def test_the_build_refuses_a_reserved_id(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    add_algorithm(project, "index", "Some New Method")
    monkeypatch.delenv("TINKERNOMICS_CATALOG", raising=False)
    with pytest.raises(CatalogError, match=r"index.yaml:2:5: id: id 'index' is reserved"):
        SiteContext.load(project)


# --------------------------------------------------------------------------- page stubs


def test_a_page_stub_without_its_entry_is_reported_at_the_page(project: Path) -> None:
    (project / "catalog" / "algorithms" / "vineppo.yaml").unlink()
    run = run_validate(project, "catalog")
    assert run.code == 1
    [problem] = run.problems
    assert problem.where == "docs/algorithms/vineppo.md:1:1: (file)"
    assert problem.message == "page vineppo.md has no algorithm catalog/algorithms/vineppo.yaml"
    assert problem.hint is not None and problem.hint.startswith("delete the page, or restore")


def test_a_page_named_in_another_case_is_reported(project: Path) -> None:
    (project / "docs" / "algorithms" / "GRPO.md").write_text('{{ algorithm_page("grpo") }}\n')
    [problem] = run_validate(project, "catalog").problems
    assert problem.where == "docs/algorithms/GRPO.md:1:1: (file)"
    assert "lower case" in problem.message
    assert problem.hint == "delete this file: grpo.md is the page of 'grpo'"


def test_the_build_refuses_a_stub_without_entry_with_the_same_message(
        project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "catalog" / "algorithms" / "vineppo.yaml").unlink()
    monkeypatch.delenv("TINKERNOMICS_CATALOG", raising=False)
    with pytest.raises(CatalogError, match=r"docs/algorithms/vineppo.md:1:1: \(file\): page "):
        SiteContext.load(project)


def test_a_scratch_catalog_is_not_held_to_the_site_names(tmp_path: Path) -> None:
    """Outside a site (no mkdocs.yml beside it) the site's names are not checked."""
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "id: ppo", "id: index")
    (root / "algorithms" / "ppo.yaml").rename(root / "algorithms" / "index.yaml")
    assert run_validate(tmp_path, "catalog").code == 0


# --------------------------------------------------------------------------- confusable names


def test_the_rebuilt_prototypes_are_idempotent_and_known_ones_hold() -> None:
    table = prototypes()
    assert len(table) > 6000
    assert not [s for s, p in table.items() if any(c in table for c in p)]
    assert table["\u041e"] == "O" and table["0"] == "O" and table["1"] == "l"
    assert "O" not in table and "l" not in table


@pytest.mark.parametrize(("one", "other"), [
    ("GRP\u041e", "GRPO"), ("DP0", "DPO"), ("G\u200bRPO", "GRPO"), ("\u0440\u0440o", "ppo"),
])
def test_look_alikes_share_a_skeleton(one: str, other: str) -> None:
    assert skeleton(one) == skeleton(other)


@pytest.mark.parametrize("name", ["GRP\u041e", "GR\u0420O", "GRP\u039f", "GRP\u0555"])
def test_an_algorithm_whose_name_only_looks_like_another_is_reported(tmp_path: Path,
                                                                     name: str) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "name: PPO", f'name: "{name}"')
    run = run_validate(tmp_path, "catalog")
    [problem] = run.problems
    assert problem.where == "catalog/algorithms/ppo.yaml:2:7: name"
    assert problem.message.startswith(f"name {name!r} looks the same as 'GRPO' in "
                                      "catalog/algorithms/grpo.yaml (U+")
    assert problem.hint is not None and "plain letters" in problem.hint


def test_the_plain_name_is_kept_whichever_id_sorts_first(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    replace_in(root, "algorithms/ppo.yaml", "name: PPO", 'name: "GRPO"')
    replace_in(root, "algorithms/grpo.yaml", "\nname: GRPO\n", '\nname: "GRP\u041e"\n')
    [problem] = run_validate(tmp_path, "catalog").problems
    assert problem.where.startswith("catalog/algorithms/grpo.yaml:")
    assert "CYRILLIC CAPITAL LETTER O" in problem.message


def test_the_real_catalog_has_no_look_alike_names(catalog: Catalog) -> None:
    names = [a.name for a in catalog.algorithms.values()]
    keys = {skeleton(skeleton(n).casefold()) for n in names}
    assert len(keys) == len(names)
