"""Context limits as service limits (issue 44): Tinker's priced row against a run's context.

On the toy model and price list (``helpers_calc.with_toys``) with a made-up long-context row
(``:peft:4096``) and a toy context limit of the model's own: a run whose sequence (prompt,
each turn's growth, the completion cap) needs more context than the row's variant serves has
no Tinker bill and no break-even, with the numbers in the reason, in the calculator's graph,
the Ways comparison and the command line; a plain row states no context and blocks nothing;
a run over the model's own limit is flagged for every way to run.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers_calc import TOY_MODEL, TOY_PRICES, real_catalog, with_toys

from tinkernomics.catalog.entries import KINDS_BY_NAME, Catalog, Entry
from tinkernomics.catalog.models.shape import ModelShape
from tinkernomics.catalog.models.ways import Capability
from tinkernomics.catalog.yamlread import YamlDoc
from tinkernomics.derived import ways
from tinkernomics.derived.calculator import limits, tree
from tinkernomics.derived.calculator.estimate import Estimate, estimate
from tinkernomics.site.calculator import estimate_cli, layout

SERVED = 4096
"""The toy long-context row's context (its variant ``:peft:4096``)."""
MODEL_LIMIT = 8192
"""The toy model's own context limit."""
RUN = {"m": TOY_MODEL, "p": TOY_PRICES, "a": "grpo", "ref": "0", "steps": "1", "n": "4",
       "G": "2", "K": "1", "T": "1", "in": "1000", "out": "2000"}
"""One turn: a sequence needs 1,000 prompt tokens and the completion cap (2,000 by default)."""


@pytest.fixture(scope="module")
def toy() -> Catalog:
    catalog = with_toys(real_catalog())
    plist = catalog.price_lists[TOY_PRICES]
    long_row = plist.rows[0].model_copy(update={"variant": f":peft:{SERVED}", "prefill": 2.0})
    changed = plist.model_copy(update={"rows": [*plist.rows, long_row]})
    model = catalog.models[TOY_MODEL]
    limit = {"context_limit": {"value": MODEL_LIMIT, "unit": "tokens", "status": "reported",
                               "source": "transformer_math", "locator": 'toy "a table row"'}}
    shaped = model.model_copy(update={"shape": ModelShape.model_validate_json(json.dumps(limit))})
    catalog.entries["price_list"] = {**catalog.entries["price_list"], TOY_PRICES: Entry(
        KINDS_BY_NAME["price_list"], TOY_PRICES, changed, YamlDoc(path="toy/long"))}
    catalog.entries["model"] = {**catalog.entries["model"], TOY_MODEL: Entry(
        KINDS_BY_NAME["model"], TOY_MODEL, shaped, YamlDoc(path="toy/model"))}
    return catalog


def run(catalog: Catalog, variant: str = f":peft:{SERVED}", **extra: str) -> Estimate:
    return estimate(catalog, {**RUN, "v": variant, **extra})


def test_a_variant_states_its_context_and_nothing_else_does() -> None:
    assert limits.served_context(":peft:131072") == 131072
    assert limits.served_context(":peft:262144") == 262144
    for other in (None, "", ":peft:", ":peft:0", ":fast", ":peft:12k"):
        assert limits.served_context(other) is None


def test_the_context_a_run_needs_counts_every_turn_and_the_cap(toy: Catalog) -> None:
    assert run(toy)["tokens.context"] == 1000 + 2000
    assert run(toy, maxout="3500")["tokens.context"] == 1000 + 3500
    # three turns: the last turn's prompt holds the first and two turns' growth of 500
    assert run(toy, T="3", d="500", maxout="2500")["tokens.context"] == 1000 + 2 * 500 + 2500


def test_over_the_rows_context_there_is_no_tinker_bill_nor_break_even(toy: Catalog) -> None:
    fits = run(toy, maxout=str(SERVED - 1000))
    assert fits["tinker.no"] == 0 and fits["tinker.total"] is not None
    over = run(toy, maxout=str(SERVED - 999))
    assert over["tinker.no"] == 1
    assert over["tinker.total"] is None and over["breakeven.gpu_price"] is None


def test_a_plain_row_states_no_context_and_blocks_nothing(toy: Catalog) -> None:
    plain = run(toy, variant="", maxout="100000")
    assert plain.env["price.context"] is None
    assert plain["tinker.no"] == 0 and plain["tinker.total"] is not None


def test_the_ways_table_says_why_with_the_numbers(toy: Catalog) -> None:
    est = run(toy, maxout="5000")
    totals = ways.totals_of(toy, est, {})
    assert Capability.context_length in totals.needs
    reason = ways.gap_reason(ways.tinker_gaps(toy), totals.needs, totals)
    assert reason.endswith("needs 6,000 tokens of context; Tinker's Toy-1B:peft:4096 serves "
                           "4,096")
    row = ways.tinker_row(totals, totals.price_list_date, totals.price_list_date,
                          ways.tinker_gaps(toy))
    assert row.total is None and row.not_offered == reason
    fits = ways.totals_of(toy, run(toy), {})
    assert Capability.context_length not in fits.needs


def test_a_context_need_is_no_caveat_of_ways_that_list_what_they_run(toy: Catalog) -> None:
    totals = ways.totals_of(toy, run(toy, maxout="5000"), {})
    for way in toy.of("way").values():
        assert not any("context" in text for text in ways.caveats(way, totals))


def test_the_calculator_card_shows_the_numbers_escaped(toy: Catalog) -> None:
    found = [(when, text) for when, text in limits.reasons(toy)
             if "{tokens.context:count}" in text]
    assert len(found) == 1
    when, text = found[0]
    assert "{price.context:count}" in text and "Source: Tinker Cookbook" in text
    env = {"tokens.context": 5000.0, "price.context": 4096.0}
    assert tree.evaluate(tree.to_tree(when), env) == 1
    assert tree.evaluate(tree.to_tree(when), {**env, "price.context": None}) == 0
    card = next(c for c in layout.cards(limits.reasons(toy)) if c["title"] == "Tinker bill")
    assert any("{tokens.context:count}" in template for _, template in card["cases"])


def test_over_the_models_own_limit_is_flagged_for_every_way(toy: Catalog) -> None:
    over = run(toy, variant="", maxout=str(MODEL_LIMIT))
    lines = estimate_cli.notes(toy, over)
    assert any("own context limit of 8,192" in line and "not in the catalog" in line
               for line in lines)
    assert not any("context" in line for line in estimate_cli.notes(toy, run(toy)))
    block = next(b for b in layout.blocks(toy, over_graph(toy)) if b["type"] == "text"
                 and b["when"] is not None and "model.context" in str(b["when"]))
    assert tree.evaluate(block["when"], {**over.env, **over.values}) == 1
    assert tree.evaluate(block["when"], {**run(toy).env, **run(toy).values}) == 0


def over_graph(catalog: Catalog) -> Any:
    from tinkernomics.derived.calculator.estimate import graph_for
    return graph_for(catalog)


def test_the_real_tinker_entry_states_a_sourced_context_gap() -> None:
    """Structure, not data: Tinker's entry has a context gap with a source and locator."""
    gaps = [g for g in limits.tinker_gaps(real_catalog()) if g.needs == Capability.context_length]
    assert len(gaps) == 1 and gaps[0].source and gaps[0].locator


def test_the_context_term_does_not_swallow_the_other_gaps(toy: Catalog) -> None:
    """Each need is its own term: a critic run within the row's context is still not offered."""
    flag = tree.to_tree(limits.needed(limits.tinker_gaps(toy)))
    env = {"run.online": 1.0, "run.lora": 1.0, "role.critic": 1.0, "role.teacher": 0.0,
           "role.reward_model": 0.0, "role.reference": 0.0, "tokens.context": 10.0,
           "price.context": 1000.0}
    assert tree.evaluate(flag, env) == 1
    assert tree.evaluate(flag, {**env, "role.critic": 0.0}) == 0
