"""Ways to run (issue 33): the comparison engine on a fixture catalog with fixture prices.

Every price here is made up for the test; the real catalog's prices are never asserted.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, run_validate, write_file

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.catalog.models.ways import Capability
from tinkernomics.derived import ways

TODAY = dt.date(2026, 12, 2)
SRC = "source: tinker_docs\nlocator: 'fixture \"page one\"'\n"


def way(wid: str, *, series: str, effective: str, body: str, offer: str = "rented_gpus") -> str:
    return (f"id: {wid}\nname: {wid} name\nprovider: P\noffer: {offer}\nseries: {series}\n"
            f"effective: {effective}\ndated: as dated\nstatus: reported\n{SRC}{body}")


def gpu(hw: str, price: float) -> str:
    return (f"  - gpu: {hw}\n    price: {{value: {price}, unit: usd_per_gpu_hour, "
            "status: reported, source: tinker_docs, locator: 'fixture \"table row\"'}\n")


FREE = ("free_tier:\n  below_params_b: {value: 16, unit: billion_parameters, status: reported, "
        "source: tinker_docs, locator: 'fixture \"table row\"'}\n  status: reported\n"
        "  source: tinker_docs\n  locator: 'fixture \"the sentence\"'\n")
GAP_TEACHER = ("gaps:\n  - needs: teacher\n    reason: no teacher here\n    status: reported\n"
               "    source: tinker_docs\n    locator: 'fixture \"the sentence\"'\n")
FILES = {
    "ways/cheap-2026-11.yaml": way("cheap-2026-11", series="cheap", effective="2026-11-01",
                                   body="gpu_prices:\n" + gpu("h100", 2.0) + gpu("b300", 9.0)),
    "ways/cheap-2026-01.yaml": way("cheap-2026-01", series="cheap", effective="2026-01-01",
                                   body="gpu_prices:\n" + gpu("h100", 1.0)),
    "ways/old-2026-03.yaml": way("old-2026-03", series="old", effective="2026-03-01",
                                 body="gpu_prices:\n" + gpu("h100", 4.0)),
    "ways/svc-2026-12.yaml": way("svc-2026-12", series="svc", effective="2026-12-01",
                                 offer="managed_service",
                                 body="gpu_prices:\n" + gpu("h100", 3.0) + FREE +
                                 "runs: [online_rl]\n" + GAP_TEACHER),
    "ways/tok-2026-12.yaml": way("tok-2026-12", series="tok", effective="2026-12-01",
                                 offer="managed_service", body=(
        "token_prices:\n  - up_to_params_b: 10\n    train: {value: 0.5, unit: "
        "usd_per_million_tokens, status: reported, source: tinker_docs, "
        "locator: 'fixture \"table row\"'}\n")),
    "ways/hour-2026-12.yaml": way("hour-2026-12", series="hour", effective="2026-12-01",
                                  offer="managed_service", body=(
        "hour_price: {value: 100, unit: usd_per_hour, status: reported, source: tinker_docs, "
        "locator: 'fixture \"table row\"'}\n"
        "models: []\nmodels_note: trains its own model only\n")),
    "ways/none-2026-12.yaml": way("none-2026-12", series="none", effective="2026-12-01",
                                  offer="managed_service",
                                  body="price_note: the public page shows no price\n"),
}


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    root = copy_valid(tmp_path_factory.mktemp("ways"))
    for rel, text in FILES.items():
        write_file(root, rel, text)
    return load_valid_catalog(root)


def run(params_b: float = 8.0, needs: tuple[Capability, ...] = (Capability.online_rl,),
        model: str = "qwen3-8b", h100: float | None = 10.0) -> ways.RunTotals:
    return ways.RunTotals(
        algorithm="grpo", model=model, total_params_b=params_b, needs=frozenset(needs),
        tokens={"train": 4e6}, gpu_hours={"h100": h100, "gb200": 4.0}, training_hours=2.5,
        tinker_total=50.0, price_list="2026-07-17", price_list_date=dt.date(2026, 7, 17))


def rows(catalog: Catalog, r: ways.RunTotals, **kw: object) -> dict[str, ways.Row]:
    return {row.key: row for row in ways.compare(catalog, r, TODAY, **kw)}  # type: ignore[arg-type]


def test_the_fixture_ways_validate(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    for rel, text in FILES.items():
        write_file(root, rel, text)
    assert run_validate(tmp_path, str(root)).code == 0


def test_gpu_hours_times_the_rate_per_gpu_type_cheapest_first(catalog: Catalog) -> None:
    found = ways.compare(catalog, run(params_b=20), TODAY)
    by_key = {r.key: r for r in found}
    assert by_key["cheap-2026-11:h100"].total == pytest.approx(20.0)
    assert by_key["cheap-2026-11:h100"].basis == "gpu_hours"
    assert "cheap-2026-11:b300" not in by_key  # no specs, no GPU-hours: not priced
    assert by_key["svc-2026-12:h100"].total == pytest.approx(30.0)
    totals = [r.total for r in found if r.total is not None]
    assert totals == sorted(totals)
    assert found[-1].total is None


def test_tinker_is_a_row_of_its_own(catalog: Catalog) -> None:
    tinker = rows(catalog, run())[ways.TINKER]
    assert (tinker.total, tinker.basis, tinker.effective) == (50.0, "tokens", dt.date(2026, 7, 17))


def test_break_even_ratio_and_tying_rate(catalog: Catalog) -> None:
    cheap = rows(catalog, run())["cheap-2026-11:h100"]
    vs_tinker = cheap.break_even[ways.TINKER]
    assert vs_tinker.ratio == pytest.approx(20.0 / 50.0)
    assert vs_tinker.rate == pytest.approx(50.0 / 10.0)  # $/GPU-hour at which both cost the same


def test_old_lists_are_stale_and_the_newest_of_a_series_is_the_default(catalog: Catalog) -> None:
    found = rows(catalog, run())
    assert "cheap-2026-01:h100" not in found
    assert found["cheap-2026-11:h100"].stale == ""
    assert "months old" in found["old-2026-03:h100"].stale
    pinned = rows(catalog, run(), pinned=["cheap-2026-01", "nope"])
    assert set(pinned) == {ways.TINKER, "cheap-2026-01:h100"}
    assert "newer list (2026-11-01)" in pinned["cheap-2026-01:h100"].stale


def test_a_free_tier_below_its_model_size(catalog: Catalog) -> None:
    assert rows(catalog, run(params_b=8))["svc-2026-12:free"].total == 0.0
    assert "svc-2026-12:free" not in rows(catalog, run(params_b=16))


def test_not_offered_says_the_services_own_reason(catalog: Catalog) -> None:
    found = rows(catalog, run(needs=(Capability.online_rl, Capability.teacher)))
    assert found["svc-2026-12"].not_offered == "no teacher here"
    assert found["svc-2026-12"].total is None
    assert "trains its own model only" in found["hour-2026-12"].not_offered
    assert found["cheap-2026-11:h100"].not_offered == ""  # rented GPUs run anything


def test_unstated_needs_are_caveats_not_refusals(catalog: Catalog) -> None:
    found = rows(catalog, run(params_b=20, needs=(Capability.online_rl, Capability.reference_kl)))
    assert found["svc-2026-12:h100"].not_offered == ""
    assert any("a KL penalty to a reference model" in c for c in found["svc-2026-12:h100"].caveats)


def test_per_token_and_per_hour_bases(catalog: Catalog, tmp_path: Path) -> None:
    found = rows(catalog, run(params_b=8))
    assert found["tok-2026-12"].total == pytest.approx(4e6 * 0.5 / 1e6)
    assert "no per-token price for a 20B model" in rows(catalog, run(params_b=20))[
        "tok-2026-12"].missing
    assert found["none-2026-12"].missing == "the public page shows no price"
    assert found["none-2026-12"].total is None


def test_needs_follow_the_algorithms_roles() -> None:
    assert ways.needs_of(True, ["policy", "teacher"]) == {Capability.online_rl,
                                                          Capability.teacher}
    assert ways.needs_of(False, ["policy", "reference"]) == {Capability.offline,
                                                             Capability.reference_kl}


def test_run_totals_price_every_catalog_gpu() -> None:
    """On the real catalog's formulas and GPUs (no price is read or asserted)."""
    catalog = load_valid_catalog(Path(__file__).resolve().parent.parent / "catalog")
    totals = ways.run_totals(catalog, {})
    assert set(totals.gpu_hours) == set(catalog.hardware)
    assert all(h is not None and h > 0 for h in totals.gpu_hours.values())
    assert Capability.online_rl in totals.needs
    bigger = ways.run_totals(catalog, {"steps": "200"})
    assert bigger.gpu_hours["h100"] == pytest.approx(2 * totals.gpu_hours["h100"])  # type: ignore[operator]
    distil = ways.run_totals(catalog, {"a": "opd"})
    assert Capability.teacher in distil.needs


def test_six_months_back() -> None:
    assert ways.months_before(dt.date(2026, 8, 31), 6) == dt.date(2026, 2, 28)
    assert ways.staleness(dt.date(2026, 6, 2), dt.date(2026, 6, 2), TODAY) == ""
    assert ways.staleness(dt.date(2026, 6, 2), dt.date(2026, 6, 2), dt.date(2026, 12, 3))


@pytest.mark.parametrize(("body", "says"), [
    ("gpu_prices:\n" + gpu("h100", 1.0) +
     "hour_price: {value: 1, unit: usd_per_hour, status: reported, source: tinker_docs, "
     "locator: 'fixture \"table row\"'}\n",
     "one kind of price"),
    ("models: []\n", "price_note"),
    ("gpu_prices:\n  - gpu: h100\n    price: {value: 2, unit: usd_per_hour, status: reported, "
     "source: tinker_docs, locator: 'fixture \"table row\"'}\n", "usd_per_gpu_hour"),
])
def test_bad_ways_are_located_errors(tmp_path: Path, body: str, says: str) -> None:
    root = copy_valid(tmp_path)
    write_file(root, "ways/bad-2026-12.yaml",
               way("bad-2026-12", series="bad", effective="2026-12-01", body=body))
    result = run_validate(tmp_path, str(root))
    assert result.code == 1
    assert "ways/bad-2026-12.yaml:" in result.out and says in result.out
    assert "Traceback" not in result.out + result.err


def test_the_real_ways_name_catalog_entries_and_cover_the_issue() -> None:
    """Structure only (no price): every model id exists; at least three rented-GPU providers,
    a market index and a managed service; each list dated and sourced."""
    catalog = load_valid_catalog(Path(__file__).resolve().parent.parent / "catalog")
    found = catalog.of("way")
    for w in found.values():
        assert set(w.models or ()) <= set(catalog.models), w.id
        assert w.source in catalog.references and w.dated
    providers = {w.provider for w in found.values() if w.offer.value == "rented_gpus"}
    assert len(providers) >= 3
    assert any(w.offer.value == "market_index" for w in found.values())
    assert any(w.offer.value == "managed_service" for w in found.values())
