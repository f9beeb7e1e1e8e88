"""Synthetic large catalogs for the scale benchmark (and anyone timing a build at size).

``make_project(n_algorithms, dest)`` copies what a build reads from this repository -- docs/,
mkdocs.yml, site_overrides/, macros/, catalog/ and the files docs include (CONTRIBUTING.md) --
into ``dest`` and adds ``n_algorithms`` synthetic algorithms made from ``catalog/algorithms/
grpo.yaml``: ids ``synth_0001``..., varied year, memory profile, critic, reward model and Tinker
loss so that sorting and filtering mean something, every second one with a ScaleRL fit (A, B and
C_mid varied). Each brings its own page stub (``docs/algorithms/<id>.md``) and, in proportion,
``refs_per_algorithm`` references of its own (copies of the GRPO paper's entry), which its
figures cite. Build the result like ``make build`` does::

    from benchmarks.synth import make_project           # or: sys.path.insert(0, "benchmarks")
    project = make_project(1000, Path("/tmp/big"))
    subprocess.run(["mkdocs", "build", "--strict", "-q"], cwd=project, check=True)

The copy is a complete project: mkdocs.yml's ``module_name: macros`` and the snippet base path
resolve inside it, and ``tinkernomics`` is the installed package. Deterministic: the same
``n_algorithms`` gives byte-identical files.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
"""This repository."""

COPIED = ("docs", "site_overrides", "macros", "catalog", "mkdocs.yml", "CONTRIBUTING.md",
          "README.md")
"""What a build of this repository reads (mkdocs.yml, its custom_dir, macros module, snippets)."""

TEMPLATE_ALGORITHM = "grpo"
TEMPLATE_REFERENCE = "grpo_deepseekmath"
REFS_PER_ALGORITHM = 2
"""Algorithm-specific references in the real catalog: about two per algorithm (its paper and a
follow-up); the other references (Tinker, hardware, prices) do not grow with the algorithms."""

_PROFILES = ("low", "medium", "high")
_LOSS_SETS = (["importance_sampling", "ppo"], ["cispo"], ["ppo"], ["dro"], [])
_FIRST_YEAR, _YEARS = 2017, 10


def synthetic_id(i: int) -> str:
    """Id of the i-th synthetic algorithm (1-based): ``synth_0001``."""
    return f"synth_{i:04d}"


def _read_yaml(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _write_yaml(path: Path, data: dict[str, Any], schema: str) -> None:
    head = f"# yaml-language-server: $schema=../schema/{schema}.schema.json\n"
    path.write_text(head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100),
                    encoding="utf-8")


def _reference(template: dict[str, Any], ref_id: str, i: int, k: int) -> dict[str, Any]:
    ref = dict(template)
    ref.update(id=ref_id, title=f"Synthetic method {i}, paper {k + 1}",
               authors=f"Author {i} et al.", url=f"https://example.org/papers/{ref_id}",
               venue=f"arXiv 99{i:02d}.{k:05d}")
    return ref


def _algorithm(template: dict[str, Any], i: int, refs: list[str],
               fit_template: dict[str, Any] | None = None) -> dict[str, Any]:
    """The i-th synthetic algorithm: GRPO's entry with varied profile fields and sources; every
    other one has a ScaleRL fit (the catalog's first sourced fit, with varied values)."""
    algo = yaml.safe_load(yaml.safe_dump(template))  # deep copy
    critic, reward = i % 4 == 1, i % 5 == 2
    roles = ["policy", "reference"] + (["critic"] if critic else []) + \
        (["reward_model"] if reward else [])
    algo.update(
        id=synthetic_id(i), name=f"Synth-{i:04d}", full_name=f"Synthetic Policy Optimization {i}",
        attribution=f"Author {i} et al.", year=_FIRST_YEAR + (i * 7) % _YEARS,
        models_in_memory=roles, needs_critic=critic, needs_reward_model=reward,
        memory_profile=_PROFILES[i % 3], async_support=i % 2 == 0,
        tinker_losses=_LOSS_SETS[i % len(_LOSS_SETS)],
        references=[*refs, *template["references"][2:]],
    )
    algo["typical_k"]["source"] = algo["typical_g"]["source"] = refs[0]
    for claim in algo["claims"]:
        if claim["source"] == TEMPLATE_REFERENCE:
            claim["source"] = refs[0]
    algo.pop("scalerl", None)
    if i % 2 == 1 and fit_template is not None:
        fit = algo["scalerl"] = yaml.safe_load(yaml.safe_dump(fit_template))
        fit["A"]["value"] = 40 + (i * 13) % 25
        fit["B"]["value"] = round(1.2 + (i % 9) / 10, 1)
        fit["C_mid"]["value"] = 1000 + (i * 37) % 9000
        if isinstance(fit.get("R0"), dict):  # a start below the varied asymptote, as the rule asks
            fit["R0"]["value"] = min(fit["R0"]["value"], fit["A"]["value"] / 2)
        for name in ("A", "B", "C_mid", "R0"):  # each quote states its own varied value
            figure = fit.get(name)
            if isinstance(figure, dict) and figure.get("status") == "reported":
                figure["locator"] = f'Synthetic table, row {i}, cell "{figure["value"]:g}"'
    return algo


def first_fit(catalog: Path) -> dict[str, Any] | None:
    """The ScaleRL fit of the first algorithm (by id) that has one, as written."""
    for path in sorted((catalog / "algorithms").glob("*.yaml")):
        fit = _read_yaml(path).get("scalerl")
        if fit:
            return fit
    return None


def add_algorithms(project: Path, n_algorithms: int,
                   refs_per_algorithm: int = REFS_PER_ALGORITHM) -> list[str]:
    """Add ``n_algorithms`` synthetic algorithms (entries, references, page stubs) to the
    project copy at ``project``; return their ids."""
    catalog, stubs = project / "catalog", project / "docs" / "algorithms"
    template = _read_yaml(catalog / "algorithms" / f"{TEMPLATE_ALGORITHM}.yaml")
    fit_template = first_fit(catalog)
    ref_template = _read_yaml(catalog / "references" / f"{TEMPLATE_REFERENCE}.yaml")
    ids = []
    for i in range(1, n_algorithms + 1):
        algo_id = synthetic_id(i)
        refs = [f"{algo_id}_ref{k + 1}" for k in range(max(1, refs_per_algorithm))]
        for k, ref_id in enumerate(refs):
            _write_yaml(catalog / "references" / f"{ref_id}.yaml",
                        _reference(ref_template, ref_id, i, k), "reference")
        _write_yaml(catalog / "algorithms" / f"{algo_id}.yaml",
                    _algorithm(template, i, refs, fit_template), "algorithm")
        (stubs / f"{algo_id}.md").write_text(f'{{{{ algorithm_page("{algo_id}") }}}}\n',
                                             encoding="utf-8")
        ids.append(algo_id)
    return ids


def copy_project(dest: Path) -> Path:
    """Copy the files a build reads from this repository into ``dest`` (emptied first)."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif src.is_file():
            shutil.copy2(src, dest / name)
    return dest


def keep_algorithms(project: Path, keep: Iterable[str]) -> Path:
    """Cut ``project``'s catalog to the algorithms ``keep`` names and those the site's own code
    names (``site.needs``: the calculator's default run and presets): every other algorithm's
    file and page stub go, and the published runs of those algorithms. A smaller site for a
    test whose point is not the catalog's size."""
    from tinkernomics.site.needs import site_needs

    kept = {*keep, *(eid for kind, eid, _ in site_needs() if kind == "algorithm")}
    for path in (project / "catalog" / "algorithms").glob("*.yaml"):
        if path.stem not in kept:
            path.unlink()
            (project / "docs" / "algorithms" / f"{path.stem}.md").unlink()
    for path in (project / "catalog" / "runs").glob("*.yaml"):  # published runs of cut ones
        named = re.search(r'(?m)^algorithm:\s*"?([^"\s]+)', path.read_text(encoding="utf-8"))
        if named is None or named.group(1) not in kept:
            path.unlink()
    return project


def make_project(n_algorithms: int, dest: Path,
                 refs_per_algorithm: int = REFS_PER_ALGORITHM) -> Path:
    """A buildable copy of this project in ``dest`` with ``n_algorithms`` synthetic algorithms
    added to the real catalog (0 gives the real site); returns ``dest``."""
    copy_project(Path(dest))
    add_algorithms(Path(dest), n_algorithms, refs_per_algorithm)
    return Path(dest)
