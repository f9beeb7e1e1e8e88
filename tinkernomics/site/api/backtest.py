"""The back-test as a JSON file beside its page (pipeline step 6): ``/backtest/backtest.json``.

``document(catalog)`` turns ``derived/calculator/backtest.rows`` into the public model below:
every published run (``catalog/runs/``) with its calculator estimate, the GPU-hours it used,
the ratio (estimate ÷ actual), the settings its entry assumed, each stage's calculator
link, and whether it is scored (a run whose source reads two ways is priced under each reading
and left out of the summary); then the spread (geometric mean, lowest, highest) and the time
model's constants with their basis, and the held-out runs' ratios at first sight
(``derived/calculator/heldout.py``). ``write(catalog, site_dir)`` writes it after the build
(``site/calculator/feature.write_outputs``), so a reader or a script can take the page's table
as data. It is a file of its own, not a collection of ``/api/v2/``: the API's schema and
version are unchanged. Numbers are plain JSON numbers (null when missing); text is data.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

from pydantic import Field

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest, heldout, timing
from tinkernomics.derived.calculator.estimate import backtest_rows
from tinkernomics.site.api.provenance import ApiModel

PATH = "backtest/backtest.json"
"""Where the file sits in the built site, beside the Back-test page."""


class Stage(ApiModel):
    """One stage of a run as the calculator prices it."""

    label: str | None = Field(description="The stage's label; null if the run has one stage.")
    query: str = Field(description="The calculator link's query string (calculator/?<query>).")


class Reading(ApiModel):
    """The run priced under another reading of one setting."""

    label: str = Field(description="Which setting, and its value under this reading.")
    why: str = Field(description="Why the source reads both ways (Markdown).")
    estimate_gpu_hours: float | None = Field(description="The estimate under this reading.")
    ratio: float | None = Field(description="estimate ÷ actual under this reading.")


class Run(ApiModel):
    """One published run back-tested."""

    id: str = Field(description="Run id (catalog/runs/<id>.yaml).")
    name: str = Field(description="The run as its authors name it.")
    hardware: str = Field(description="Hardware id of its GPUs.")
    estimate_gpu_hours: float | None = Field(
        description="The calculator's self-hosted GPU-hours, summed over the stages.")
    actual_gpu_hours: float = Field(description="GPU-hours the run used, as its source states.")
    ratio: float | None = Field(description="estimate ÷ actual (1 is exact).")
    assumed: list[str] = Field(description="Settings the entry assumed ('stage: field').")
    stages: list[Stage] = Field(description="Each stage's calculator settings.")
    scored: bool = Field(description="False when the source reads two ways: not in the summary.")
    readings: list[Reading] = Field(description="The run under each other reading.")


class Constant(ApiModel):
    """One constant of the time model."""

    key: str = Field(description="Its key (const.time.<key> in the calculator's graph).")
    value: float = Field(description="Its value.")
    basis: str = Field(description="Physics, a default, an assumption, or fitted on the runs.")


class Summary(ApiModel):
    """How far the estimates landed from the runs."""

    count: int = Field(description="Scored runs with an estimate.")
    geometric_mean: float | None = Field(description="Geometric mean of the ratios.")
    low: float | None = Field(description="Lowest ratio.")
    high: float | None = Field(description="Highest ratio.")


class HeldOut(ApiModel):
    """A run added to test the model: its ratio the day it was added, beside today's."""

    id: str = Field(description="Run id (catalog/runs/<id>.yaml).")
    first_ratio: float = Field(description="estimate ÷ actual when the run was added.")
    ratio: float | None = Field(description="estimate ÷ actual today.")
    commit: str = Field(description="The commit whose time model gave the first ratio.")
    added: str = Field(description="The day the run was added (YYYY-MM-DD).")


class Backtest(ApiModel):
    """Every published run's estimate beside what it used."""

    runs: list[Run] = Field(description="The runs, in id order.")
    summary: Summary = Field(description="The spread of the ratios.")
    constants: list[Constant] = Field(description="The time model's constants.")
    held_out: list[HeldOut] = Field(
        description="Runs added to test the model, with their ratio at first sight.")


def _run(catalog: Catalog, r: backtest.Row) -> Run:
    labels = [s.label for s in catalog.of("run")[r.run].stages]
    stages = [Stage(label=label, query=urlencode(q, safe=":"))
              for label, q in zip(labels, r.stages, strict=True)]
    return Run(id=r.run, name=r.name, hardware=r.hardware,
               estimate_gpu_hours=r.estimate_gpu_hours, actual_gpu_hours=r.actual_gpu_hours,
               ratio=r.ratio, assumed=list(r.assumed), stages=stages, scored=r.scored,
               readings=[Reading(label=p.label, why=p.why,
                                 estimate_gpu_hours=p.estimate_gpu_hours,
                                 ratio=r.reading_ratio(p)) for p in r.readings])


def document(catalog: Catalog,
             records: tuple[heldout.FirstSight, ...] = heldout.FIRST_SIGHT) -> Backtest:
    """The back-test of every catalog run, as the public model."""
    rows = backtest_rows(catalog)
    s = backtest.summary(rows)
    return Backtest(
        runs=[_run(catalog, r) for r in rows],
        summary=Summary(count=s.count, geometric_mean=s.geometric_mean, low=s.low, high=s.high),
        constants=[Constant(key=c.key, value=c.value, basis=c.basis) for c in timing.CONSTANTS],
        held_out=[HeldOut(id=h.run, first_ratio=h.first, ratio=h.now, commit=h.commit,
                          added=h.added) for h in heldout.held_out(rows, records)])


def write(catalog: Catalog, site_dir: Path) -> Path:
    """Write ``backtest/backtest.json`` in the built site; return its path."""
    path = site_dir / PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    data = document(catalog).model_dump(mode="json")
    path.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True,
                               allow_nan=False) + "\n", encoding="utf-8")
    return path
