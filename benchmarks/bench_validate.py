"""Benchmark: full catalog validation against a bare C-accelerated YAML parse of the same files.

Generates a synthetic catalog of 10,000 algorithm entries (each the size and shape of a real one:
a sourced ScaleRL fit with locators, the original site's superseded values in its record,
reported and unverified figures, claims, prose) plus the references they cite, in a temporary
folder. The catalog must validate (``validate`` exits with the problems otherwise), so it follows
the catalog's rules: reported values carry a locator, the charted fit is sourced
(``catalog/locators.py``), references say when they were checked. Then times,
best of 3:

- ``validate``: ``load_catalog(root)``, the whole path the CLI takes: read bytes, strict YAML
  with a position for every node, pydantic models, every cross-entry rule;
- ``bare parse``: for every file of the same catalog, read its bytes and
  ``yaml.load(raw, Loader=yaml.CSafeLoader)``; no positions, no checks.

Prints both times and their ratio; the target is a ratio of at most 3.0 (PASS/FAIL, exit 1 on
FAIL). Run with ``make bench`` or ``.venv/bin/python benchmarks/bench_validate.py [--entries N]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

from tinkernomics.catalog.loader import catalog_files, load_catalog

ENTRIES = 10_000
REFERENCES_PER_ALGORITHM = 2
REFERENCE_POOL = 1_000
"""Distinct references the algorithms cite (each algorithm cites two of them)."""
REPEATS = 3
TARGET_RATIO = 3.0

ALGORITHM = """\
# yaml-language-server: $schema=../schema/algorithm.schema.json
id: {id}
name: Algo {n}
full_name: Synthetic Policy Optimization variant {n}
attribution: Author {n} et al., Synthetic Lab
year: {year}
models_in_memory: [policy, reference]
needs_critic: false
needs_reward_model: false
memory_profile: low
typical_k:
  values: [1, 2]
  status: unverified
  asserted_by: original_site
  source: original_site
  reported_instead: The source reports a single update per batch of rollouts.
typical_g:
  values: [8, 16, 64]
  status: reported
  source: {ref_a}
  locator: '§4.2: "a synthetic sentence"'
async_support: {async_}
tinker_mapping: Compute group-centred advantages on the client, then call `importance_sampling`.
scalerl:
  model: 8B dense model (not named in the paper)
  dataset: Polaris-53K maths (1,000 held-out prompts, mean@16)
  setting: >-
    The paper's baseline with this variant's loss, batch 768 = 48 prompts x 16 completions;
    compute in GPU-hours on Nvidia GB200 (§2.1, appendix A.3).
  A:
    value: {a}
    unit: percent
    status: reported
    source: {ref_a}
    locator: 'Figure 5a legend: "B: {b}, A: 0.{a}0"'
  B:
    value: {b}
    unit: dimensionless
    status: reported
    source: {ref_a}
    locator: 'Figure 5a legend: "B: {b}, A: 0.{a}0"'
  C_mid:
    value: {c_mid}
    unit: gb200_hours
    approx: true
    status: derived
    source: {ref_a}
    locator: Figure 5a, the drawn fitted curve; the legend prints no C_mid
    note: Fitted to the plotted curve with A and B fixed at the legend's values.
scalerl_record:
  summary: The charted fit is the paper's curve for this loss (Figure 5a).
  superseded:
    model: Llama-3.1-8B
    dataset: MATH
    A:
      value: {a}
      unit: percent
      status: unverified
      asserted_by: original_site
      source: original_site
      reported_instead: The paper fits an asymptote of about 0.49 for a comparable recipe.
    B:
      value: {b}
      unit: dimensionless
      status: unverified
      asserted_by: original_site
      source: original_site
      reported_instead: The paper does not quote B for this recipe.
    C_mid:
      value: {c_mid}
      unit: gb200_hours
      approx: true
      status: unverified
      asserted_by: original_site
      source: original_site
      reported_instead: No source gives a numeric C_mid; 1e-5 is a float here, not a string.
    why: The original site's values and labels, kept as history and drawn on no chart.
notes: >-
  Variant {n} drops the critic: the advantage of a sample is its reward normalised within a group
  of samples for the same prompt, so only the policy and a frozen reference stay in memory.
claims:
  - text: A synthetic 7B model reaches {a}% on MATH without tools.
    status: reported
    source: {ref_a}
    locator: 'Table 1, row "7B model"'
  - text: About **2x** faster than the baseline at equal compute.
    status: reported
    source: {ref_b}
    locator: 'Figure 3 caption: "2x faster"'
references: [{ref_a}, {ref_b}]
"""

REFERENCE = """\
id: {id}
title: "Synthetic paper {n}: scaling reinforcement learning for language models"
authors: Author {n} et al.
venue: arXiv 2501.{n:05d}
year: 2025
date: 2025-01-{day:02d}
url: https://arxiv.org/abs/2501.{n:05d}
checked: 2026-11-01
summary: A synthetic reference used by the validation benchmark.
"""

ORIGINAL_SITE = """\
id: original_site
title: tinker-nomics (original site)
authors: tinker-nomics
checked: 2026-11-01
status: unverified
asserted_by: original_site
reported_instead: The earlier page whose text seeded this catalog; it cites no source.
"""


def generate(root: Path, entries: int) -> None:
    """Write ``entries`` algorithms and the references they cite under ``root``."""
    (root / "algorithms").mkdir(parents=True)
    (root / "references").mkdir()
    (root / "references" / "original_site.yaml").write_text(ORIGINAL_SITE, encoding="utf-8")
    pool = min(REFERENCE_POOL, max(2, entries))
    for n in range(pool):
        text = REFERENCE.format(id=f"ref_{n:05d}", n=n, day=n % 28 + 1)
        (root / "references" / f"ref_{n:05d}.yaml").write_text(text, encoding="utf-8")
    for n in range(entries):
        algo_id = f"algo_{n:05d}"
        text = ALGORITHM.format(
            id=algo_id, n=n, year=2017 + n % 9, async_=str(n % 2 == 0).lower(),
            a=40 + n % 20, b=round(1.5 + (n % 10) / 10, 1), c_mid=1000 + 10 * n,
            ref_a=f"ref_{n % pool:05d}", ref_b=f"ref_{(n * 7 + 1) % pool:05d}",
        )
        (root / "algorithms" / f"{algo_id}.yaml").write_text(text, encoding="utf-8")


def bare_parse(files: list[Path]) -> int:
    """Read and C-parse every file; return how many mappings came back (keeps the work live)."""
    loaded = 0
    for path in files:
        with path.open("rb") as handle:
            data = yaml.load(handle.read(), Loader=yaml.CSafeLoader)
        loaded += isinstance(data, dict)
    return loaded


def validate(root: Path) -> int:
    """The full validation path; fails loudly if the synthetic catalog is not valid."""
    catalog, problems = load_catalog(root)
    if problems:
        shown = "\n".join(p.format() for p in problems[:10])
        raise SystemExit(f"synthetic catalog has {len(problems)} problem(s):\n{shown}")
    return sum(len(entries) for entries in catalog.entries.values())


def best_of(repeats: int, func: Callable[[], int]) -> tuple[float, int]:
    """Best wall time (seconds) of ``repeats`` calls, and the last result."""
    best, result = float("inf"), 0
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=ENTRIES, help="algorithm entries")
    parser.add_argument("--repeats", type=int, default=REPEATS, help="runs per measurement")
    args = parser.parse_args(argv)
    if not hasattr(yaml, "CSafeLoader"):
        print("PyYAML is built without libyaml: no C-accelerated baseline", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="tinkernomics-bench-") as tmp:
        root = Path(tmp) / "catalog"
        generate(root, args.entries)
        files = catalog_files(root)
        total = sum(p.stat().st_size for p in files)
        print(f"synthetic catalog: {len(files)} files ({args.entries} algorithms), "
              f"{total / 1e6:.1f} MB")
        bare_s, parsed = best_of(args.repeats, lambda: bare_parse(files))
        validate_s, checked = best_of(args.repeats, lambda: validate(root))
    assert parsed == checked == len(files), (parsed, checked, len(files))
    ratio = validate_s / bare_s
    print(f"bare parse (yaml.load, CSafeLoader): {bare_s:8.3f} s  (best of {args.repeats})")
    print(f"validate (load_catalog):             {validate_s:8.3f} s  (best of {args.repeats})")
    verdict = "PASS" if ratio <= TARGET_RATIO else "FAIL"
    print(f"ratio: {ratio:.2f}x (target <= {TARGET_RATIO:.1f}x) {verdict}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
