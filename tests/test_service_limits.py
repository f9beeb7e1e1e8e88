"""Each service's limits as catalog facts, applied to Tinker as to every way to run (issue 44).

On a fixture catalog whose Tinker entry names made-up gaps: a run that needs one is "not
offered" on Tinker, with its reason, in the Python comparison (Ways page, command line) and in
the graph the calculator evaluates; free tiers sort after every paid row.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from helpers_calc import real_catalog
from helpers_catalog import copy_valid, run_validate, write_file

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.catalog.models.ways import Capability
from tinkernomics.derived import ways
from tinkernomics.derived.calculator import limits, tree
from tinkernomics.site.calculator import layout

TODAY = dt.date(2026, 12, 2)
GAPS = ("gaps:\n"
        "  - needs: full_finetune\n    reason: trains adapters {only}\n    status: reported\n"
        "    source: tinker_docs\n    locator: 'fixture \"page one\"'\n"
        "  - needs: critic\n    reason: no value model & no head\n    status: unverified\n"
        "    asserted_by: contributor\n    source: tinker_docs\n"
        "    reported_instead: the fixture says nothing\n")
FREE_WAY = (
    "id: svc-2026-12\nname: Svc\nprovider: P\noffer: managed_service\nseries: svc\n"
    "effective: 2026-12-01\ndated: as dated\nstatus: reported\nsource: tinker_docs\n"
    "locator: 'fixture \"page one\"'\ngpu_prices:\n  - gpu: h100\n    price: {value: 3, unit: "
    "usd_per_gpu_hour, status: reported, source: tinker_docs, locator: 'fixture \"table row\"'}\n"
    "free_tier:\n  below_params_b: {value: 16, unit: billion_parameters, status: reported, "
    "source: tinker_docs, locator: 'fixture \"table row\"'}\n  status: reported\n"
    "  source: tinker_docs\n  locator: 'fixture \"the sentence\"'\n")
RENTED = (
    "id: gpus-2026-12\nname: Gpus\nprovider: P\noffer: rented_gpus\nseries: gpus\n"
    "effective: 2026-12-01\ndated: as dated\nstatus: reported\nsource: tinker_docs\n"
    "locator: 'fixture \"page one\"'\ngpu_prices:\n  - gpu: h100\n    price: {value: 2, unit: "
    "usd_per_gpu_hour, status: reported, source: tinker_docs, locator: 'fixture \"table row\"'}\n")


def _root(tmp: Path) -> Path:
    root = copy_valid(tmp)
    platform = root / "tinker" / "tinker.yaml"
    text = platform.read_text(encoding="utf-8").replace("references:", GAPS + "references:", 1)
    platform.write_text(text, encoding="utf-8")
    write_file(root, "ways/svc-2026-12.yaml", FREE_WAY)
    write_file(root, "ways/gpus-2026-12.yaml", RENTED)
    return root


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    return load_valid_catalog(_root(tmp_path_factory.mktemp("limits")))


def run(*needs: Capability) -> ways.RunTotals:
    return ways.RunTotals(
        algorithm="grpo", model="qwen3-8b", total_params_b=8.0,
        needs=frozenset({Capability.online_rl, *needs}), tokens={"train": 4e6},
        gpu_hours={"h100": 10.0, "gb200": 4.0}, training_hours=2.5, tinker_total=50.0,
        price_list="2026-07-17", price_list_date=dt.date(2026, 7, 17))


def by_key(catalog: Catalog, r: ways.RunTotals) -> dict[str, ways.Row]:
    return {row.key: row for row in ways.compare(catalog, r, TODAY)}


def test_the_fixture_with_tinker_gaps_validates(tmp_path: Path) -> None:
    assert run_validate(tmp_path, str(_root(tmp_path))).code == 0


def test_a_run_tinker_cannot_do_is_not_offered_with_its_reason(catalog: Catalog) -> None:
    full = by_key(catalog, run(Capability.full_finetune))[ways.TINKER]
    assert full.total is None and full.not_offered == "trains adapters {only}"
    assert full.missing == ""
    critic = by_key(catalog, run(Capability.critic))[ways.TINKER]
    assert critic.not_offered == "no value model & no head"
    assert by_key(catalog, run())[ways.TINKER].total == 50.0


def test_no_break_even_against_a_tinker_bill_that_does_not_exist(catalog: Catalog) -> None:
    rows = by_key(catalog, run(Capability.full_finetune))
    assert ways.TINKER not in rows["gpus-2026-12:h100"].break_even
    assert ways.TINKER in by_key(catalog, run())["gpus-2026-12:h100"].break_even


def test_full_fine_tuning_is_a_need() -> None:
    assert Capability.full_finetune in ways.needs_of(True, ["policy"], lora=False)
    assert Capability.full_finetune not in ways.needs_of(True, ["policy"])


def test_the_graph_flag_reads_the_same_gaps(catalog: Catalog) -> None:
    expression = limits.needed(limits.tinker_gaps(catalog))
    flag = tree.to_tree(expression)
    env = {"run.lora": 1.0, "role.critic": 0.0}
    assert tree.evaluate(flag, env) == 0
    assert tree.evaluate(flag, {**env, "run.lora": 0.0}) == 1
    assert tree.evaluate(flag, {**env, "role.critic": 1.0}) == 1


def test_the_reason_reaches_the_card_escaped(catalog: Catalog) -> None:
    texts = [text for _, text in limits.reasons(catalog)]
    assert "{only}" not in texts[0] and "&#123;only&#125;" in texts[0]
    assert "& no" not in texts[1] and "&amp; no" in texts[1] and "(unverified)" in texts[1]
    card = next(c for c in layout.cards(limits.reasons(catalog)) if c["title"] == "Tinker bill")
    assert "Not offered" in card["cases"][0][1]


def test_free_tiers_sort_after_every_paid_row(catalog: Catalog) -> None:
    found = ways.compare(catalog, run(), TODAY)
    keys = [r.key for r in found]
    assert "svc-2026-12:free" in keys
    paid = [i for i, r in enumerate(found) if r.total and r.total > 0]
    assert keys.index("svc-2026-12:free") > max(paid)


def test_the_real_tinker_gaps_rule_out_full_fine_tuning() -> None:
    """Structure, not data: Tinker's entry states a gap for full fine-tuning (it is LoRA only),
    and a full fine-tuning link has no Tinker bill and no break-even."""
    real = real_catalog()
    assert Capability.full_finetune in {g.needs for g in limits.tinker_gaps(real)}
    from tinkernomics.derived.calculator.estimate import estimate
    full = estimate(real, {"ft": "full"})
    assert full.values["tinker.total"] is None
    assert full.values["breakeven.gpu_price"] is None
    assert estimate(real, {})["tinker.total"] is not None
