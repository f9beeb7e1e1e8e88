"""Offline methods priced from their own data shape (pipeline step 5, issue 44).

An offline method (DPO, IPO, KTO, ORPO, SimPO) samples nothing: each training example is a
fixed pair of answers (a chosen and a rejected one) or a single labelled answer, as the
algorithm's sourced ``semantics.examples`` states. The estimate prices it as that: the
sequences per example stand where an online method's G (completions per prompt) stands, so the
link's G does not apply; the reference's log-probs are scored over the same sequences where
the method holds a reference (its roles), and no token is sampled (``run.online`` is 0).

``overrides`` is the only hook into the estimate (``estimate.environment`` and the page's
``calculator.js`` apply it after the link's numbers); ``describe`` is the reader's sentence for
the command line and the pages.
"""

from __future__ import annotations

from tinkernomics.catalog import models as m
from tinkernomics.catalog.models.algorithms import ExampleShape
from tinkernomics.derived.calculator import semantics

SEQUENCES: dict[ExampleShape, int] = {ExampleShape.pair: 2, ExampleShape.single: 1}
"""Sequences trained per example of each shape."""
WORDS: dict[ExampleShape, str] = {
    ExampleShape.pair: "a chosen and a rejected answer per example",
    ExampleShape.single: "one labelled answer per example",
}


def shape(algo: m.Algorithm) -> ExampleShape | None:
    """The data shape of an offline method that states one, else None (online, or unstated)."""
    s = algo.semantics
    if s is None or s.examples is None or semantics.rollouts(algo):
        return None
    return s.examples.value


def sequences_per_example(algo: m.Algorithm) -> int | None:
    """Sequences trained per example (2 for a pair, 1 for a single answer), else None."""
    found = shape(algo)
    return None if found is None else SEQUENCES[found]


def overrides(algo: m.Algorithm) -> dict[str, float]:
    """Graph inputs the data shape fixes: ``run.G`` as the sequences per example."""
    n = sequences_per_example(algo)
    return {} if n is None else {"run.G": float(n)}


def describe(algo: m.Algorithm) -> str:
    """'Offline: a chosen and a rejected answer per example, no sampling' ('' if online)."""
    found = shape(algo)
    if found is None:
        return ""
    ref = " and reference log-probs over them" if "reference" in semantics.default_roles(
        algo) else ""
    return f"offline: {WORDS[found]}{ref}; nothing is sampled"
