"""A learner that trains on every completion padded to the cap (``pt``, a run's
``padded_training``: open-instruct's legacy GRPO trainer pads each response to
``response_length``): its update, old-policy and reference passes run over prompt + cap tokens
a sequence, not prompt + mean (fails on the model before it, which trained every learner on the
mean length); sampling is unchanged. Arithmetic on the fixture Toy-8B (helpers_runs): 500
prompt tokens, a mean of 1,000 and a cap of 2,000."""

from __future__ import annotations

import pytest
from helpers_runs import run, toy_estimate, with_runs

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import backtest, inputs, memory
from tinkernomics.derived.calculator.estimate import estimate


@pytest.fixture(scope="module")
def toy(catalog: Catalog) -> Catalog:
    return with_runs(catalog)


def test_a_padding_learner_trains_on_the_cap(toy: Catalog) -> None:
    plain = toy_estimate(toy, maxout="2000")
    padded = toy_estimate(toy, maxout="2000", pt="1")
    assert plain["time.train_sequence"] == pytest.approx(500 + 1000)
    assert padded["time.train_sequence"] == pytest.approx(500 + 2000)
    # every pass over the trained tokens grows at least with them (attention grows faster)
    for name in ("time.train_s", "time.reference_s"):
        assert padded[name] >= plain[name] * 2500 / 1500 * (1 - 1e-9)
    assert padded["time.decode_s"] == pytest.approx(plain["time.decode_s"])
    assert padded["self.gpu_hours"] > plain["self.gpu_hours"]


def test_padding_to_a_cap_equal_to_the_mean_changes_nothing(toy: Catalog) -> None:
    assert toy_estimate(toy, maxout="1000", pt="1")["time.train_s"] == pytest.approx(
        toy_estimate(toy, maxout="1000")["time.train_s"])


def test_a_runs_padded_training_reaches_the_estimate(catalog: Catalog) -> None:
    toy = with_runs(catalog, run("toy-plain", 10.0), run("toy-padded", 10.0,
                                                         padded_training=True))
    runs = toy.of("run")
    found = {rid: backtest.query(runs[rid], runs[rid].stages[0]) for rid in runs}
    assert found["toy-padded"][inputs.key("run.padded_train")] == "1"
    assert inputs.key("run.padded_train") not in found["toy-plain"]
    plain, padded = (estimate(toy, found[rid]) for rid in ("toy-plain", "toy-padded"))
    assert padded["time.train_s"] > plain["time.train_s"]


def test_a_padding_learner_holds_activations_and_logits_for_the_cap(toy: Catalog) -> None:
    # no recomputation: activations are 34·s·b·h a layer, linear in the sequence s; the fp32
    # logits span min(s, the loss chunk): under the chunk, linear too (the model before this
    # sized both on the mean sequence whatever the padding)
    plain = toy_estimate(toy, maxout="2000", ac="0")
    padded = toy_estimate(toy, maxout="2000", ac="0", pt="1")
    assert padded["mem.activations"] == pytest.approx(plain["mem.activations"] * 2500 / 1500)
    assert padded["mem.logit_tokens"] == pytest.approx(min(2500, memory.LOGIT_CHUNK))
    assert padded["mem.logits"] == pytest.approx(plain["mem.logits"] * 2500 / 1500)
    assert padded["mem.training"] > plain["mem.training"]
    # the sampler's KV cache holds what it samples: the mean, padded or not
    assert padded["mem.kv_cache"] == pytest.approx(plain["mem.kv_cache"])
