"""The Ways page says where each recipe setting comes from in the reader's words (issue 44): no
input keys ("run.G"), link keys ("m") or reference ids reach the page. Fixture catalog only."""

from __future__ import annotations

from pathlib import Path

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.derived import recipe
from tinkernomics.site.ways.runs import READER_SOURCES, reader_source

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "valid"


def test_every_run_input_a_recipe_takes_has_words() -> None:
    for _, key in recipe.RUN_ARGS:
        assert f"calculator input {key}" in READER_SOURCES


def test_reference_ids_and_the_pin_read_as_names() -> None:
    catalog = load_valid_catalog(FIXTURE)
    ref_id, ref = next(iter(catalog.references.items()))
    algo_id, algo = next(iter(catalog.algorithms.items()))
    assert reader_source(ref_id, catalog) == f"{ref.title} ({ref.authors})"
    assert reader_source(f"cookbook pin ({algo_id})", catalog) == \
        f"the cookbook's recipe for {algo.name}"
    worded = reader_source("calculator input run.G", catalog)
    assert "run.G" not in worded and "G (completions per prompt)" in worded


def test_what_a_run_needs_is_named_in_words() -> None:
    """A caveat says 'a KL penalty to a reference model', never 'reference kl' (issue 44)."""
    from tinkernomics.catalog.models.ways import Capability, Offer
    from tinkernomics.derived.calculator.limits import WORDS
    from tinkernomics.site.ways.runs import OFFER_LABELS

    assert set(WORDS) == set(Capability)
    assert all("_" not in w and w != c.value.replace("_", " ") for c, w in WORDS.items()
               if c is not Capability.full_finetune)
    assert set(OFFER_LABELS) == {o.value for o in Offer} and "rented GPUs" in OFFER_LABELS.values()
