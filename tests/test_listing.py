"""A model a price list no longer carries (issue 44): "not listed since <date>" and the closest
model the newest list carries, on a fixture catalog with made-up models and lists."""

from __future__ import annotations

import pytest
from helpers_calc import real_catalog
from helpers_catalog import copy_valid, write_file

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.derived import listing
from tinkernomics.site.calculator import presets


def model(mid: str, name: str, family: str, arch: str, size: float) -> str:
    return (f"id: {mid}\nname: {name}\nfamily: {family}\narchitecture: {arch}\ntotal_params:\n"
            f"  value: {size}\n  unit: billion_parameters\n  status: reported\n"
            "  source: tinker_pricing_2026_07\n  locator: 'fixture \"row one\"'\n"
            + ("active_params:\n  value: 3\n  unit: billion_parameters\n  status: reported\n"
               "  source: tinker_pricing_2026_07\n  locator: 'fixture \"row one\"'\n"
               if arch == "moe" else ""))


def plist(pid: str, models: list[str]) -> str:
    rows = "".join(f"  - {{model: {m}, prefill: 0.1, sample: 0.2, train: 0.3}}\n" for m in models)
    return (f"id: {pid}\neffective: {pid}\ntitle: Fixture list\nstatus: reported\n"
            f"source: tinker_pricing_2026_07\nlocator: 'fixture \"table row\"'\nrows:\n{rows}")


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    root = copy_valid(tmp_path_factory.mktemp("listing"))
    for mid, name, family, arch, size in [
            ("old-9b", "Old-9B", "Oldie 1", "dense", 9),
            ("big-70b", "Big-70B", "Qwen2", "dense", 70),
            ("moe-30b", "Moe-30B", "Qwen2", "moe", 30),
            ("new-moe-35b", "NewMoe-35B", "Qwen9", "moe", 35),
            ("gone-1b", "Gone-1B", "Qwen2", "dense", 1)]:
        write_file(root, f"models/{mid}.yaml", model(mid, name, family, arch, size))
    write_file(root, "tinker/prices/2025-01-01.yaml",
               plist("2025-01-01", ["gone-1b"]))
    write_file(root, "tinker/prices/2026-01-01.yaml",
               plist("2026-01-01", ["old-9b", "big-70b", "moe-30b", "qwen3-8b"]))
    newest = (root / "tinker/prices/2026-07-17.yaml")
    text = newest.read_text(encoding="utf-8").replace(
        "rows:\n", "rows:\n  - {model: new-moe-35b, prefill: 0.1, sample: 0.2, train: 0.3}\n", 1)
    newest.write_text(text, encoding="utf-8")
    return load_valid_catalog(root)


def test_a_listed_model_is_listed(catalog: Catalog) -> None:
    found = listing.listing(catalog, "qwen3-8b")
    assert found.listed and found.since == "" and found.newest == "2026-07-17"


def test_not_listed_since_the_first_list_without_it(catalog: Catalog) -> None:
    assert listing.listing(catalog, "old-9b").since == "2026-07-17"
    assert listing.listing(catalog, "gone-1b").since == "2026-01-01"


def test_the_closest_listed_model_shares_the_architecture_first(catalog: Catalog) -> None:
    assert listing.listing(catalog, "moe-30b").closest == "new-moe-35b"  # MoE before a dense 8B
    assert listing.listing(catalog, "old-9b").closest == "qwen3-8b"
    assert listing.listing(catalog, "big-70b").closest == "qwen3-8b"  # the only dense one


def test_the_readers_sentence(catalog: Catalog) -> None:
    text = listing.listing_text(catalog, "moe-30b")
    assert text.startswith("not listed since 2026-07-17")
    assert "NewMoe-35B (35B parameters, mixture of experts)" in text


def test_presets_use_models_the_newest_list_carries() -> None:
    """On the real catalog: every model a preset names, teacher included, is on the newest
    list, and no preset pins an older list (they opened on a stale list before)."""
    real = real_catalog()
    for label, query in presets.presets():
        assert "p" not in query, label
        for key in ("m", "tm"):
            if key in query:
                assert listing.listing(real, query[key]).listed, (label, query[key])
