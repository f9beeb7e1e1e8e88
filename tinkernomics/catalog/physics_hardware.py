"""GPU rules from the datasheets (pipeline step 3, cross-entry rules): a GPU's memory, memory
bandwidth and dense BF16 TFLOP/s lie within the ranges of its generation, and a sparse figure is
twice the dense one. Memory typed 1410 for 141 GB, or a sparse figure entered as dense, is
reported at its field with the generation's range. Board power lies within the range of every
listed part and gives a plausible compute per watt; a rental price, per dense BF16 petaFLOP-hour,
lies within a band that a price per node, per month or in cents falls outside.

The generation is read from the entry's id or name (``GENERATIONS``, first match); a GPU of no
known generation is held to ``ANY_GPU``, the union of all of them, so a new kind of GPU validates
and an order-of-magnitude slip is still caught. Each range spans the generation's parts as their
vendors list them (the slowest PCIe card to the fastest module), with the datasheet it comes
from; a new part outside them is a reason to widen the range here, with its source.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.partial import field_or_none, figure_value
from tinkernomics.catalog.problems import Problem

Range = tuple[float, float]


@dataclass(frozen=True)
class Generation:
    """A GPU generation: how to recognise its parts and the ranges their specs lie in."""

    name: str
    pattern: str
    """Regular expression searched in the lowercased id and name."""
    memory_gb: Range
    bandwidth_tb_s: Range
    bf16_dense_tflops: Range
    sources: str


GENERATIONS: tuple[Generation, ...] = (
    Generation("NVIDIA Blackwell", r"\bg?b(100|200|300)\b|blackwell", (180, 288), (7.0, 8.5),
               (1_700, 2_600),
               "NVIDIA DGX B200 / GB200 NVL72 / HGX B300 datasheets "
               "(https://www.nvidia.com/en-us/data-center/gb200-nvl72/, "
               "https://www.nvidia.com/en-us/data-center/hgx/); glennklockwood.com/garden/"
               "processors/B200 (B200 2,250 dense BF16, GB200 2,500 at 1,200 W, 8 TB/s)"),
    Generation("NVIDIA Hopper", r"\bg?h(20|100|200|800)\b|hopper", (80, 144), (2.0, 5.0),
               (140, 1_000),
               "NVIDIA H100, H200 and GH200 datasheets (https://www.nvidia.com/en-us/"
               "data-center/h100/, /h200/, /grace-hopper-superchip/): H100 PCIe 80 GB 2.0 TB/s "
               "756 dense BF16 to H200 141 GB 4.8 TB/s 989; H20 96 GB 4.0 TB/s 148"),
    Generation("NVIDIA Ampere", r"\ba(10|30|40|100|800)\b|ampere", (24, 80), (0.6, 2.1),
               (60, 320),
               "NVIDIA A100 datasheet (https://www.nvidia.com/en-us/data-center/a100/): 40-80 GB, "
               "1.55-2.04 TB/s, 312 dense BF16; A10 24 GB 0.6 TB/s 125"),
    Generation("NVIDIA Ada", r"\bl(4|40|40s)\b|\bada\b", (24, 48), (0.3, 1.0), (100, 370),
               "NVIDIA L4 and L40S datasheets (https://www.nvidia.com/en-us/data-center/l40s/): "
               "L4 24 GB 0.3 TB/s 121 dense BF16 to L40S 48 GB 0.86 TB/s 362"),
    Generation("AMD CDNA 3", r"\bmi3(00|25)x?\b", (128, 256), (5.0, 6.0), (900, 1_310),
               "AMD Instinct MI300X and MI325X data sheets (https://www.amd.com/en/products/"
               "accelerators/instinct/mi300.html): 192-256 GB, 5.3-6.0 TB/s, 1,307 dense BF16"),
    Generation("AMD CDNA 4", r"\bmi35[05]x?\b", (256, 288), (7.5, 8.5), (2_000, 2_600),
               "AMD Instinct MI350X and MI355X data sheets (https://www.amd.com/en/products/"
               "accelerators/instinct/mi350.html): 288 GB, 8 TB/s, 2.3-2.5 PF dense BF16"),
)
ANY_GPU = Generation("any GPU", r"", (8, 300), (0.2, 10.0), (20, 5_000),
                     "the union of the generations above, rounded outwards")
SPARSE_FACTOR = 2.0
"""2:4 structured sparsity doubles peak throughput on every part that has it."""
SPARSE_SLACK = 0.02
"""Datasheets round the two figures separately (H100: 989.4 and 1,978.9), and some print a
sparse figure a little off twice the dense one: NVIDIA's L40S datasheet gives BF16 "362.05 |
733*" (733 is 1.2% above 724.1). A sparse figure entered as dense is 100% off."""
SPECS = (("memory_gb", "GB"), ("bandwidth_tb_s", "TB/s"), ("bf16_dense_tflops", "TFLOP/s"))


def generation_of(hardware: Any) -> Generation:
    """The generation whose pattern the id or name matches, else ``ANY_GPU``."""
    text = " ".join(str(field_or_none(hardware, n) or "") for n in ("id", "name")).lower()
    return next((g for g in GENERATIONS if re.search(g.pattern, text)), ANY_GPU)


def rule_gpu_specs_in_range(catalog: Catalog) -> Iterator[Problem]:
    """Memory, bandwidth and dense BF16 lie within the ranges of the GPU's generation."""
    for key, hardware in catalog.hardware.items():
        generation = generation_of(hardware)
        for name, unit in SPECS:
            value = figure_value(hardware, name)
            low, high = getattr(generation, name)
            if value is None or low <= value <= high:
                continue
            yield catalog.problem(
                "hardware", key, (name, "value"),
                f"{name} {value:g} {unit} is outside {low:g}–{high:g} {unit}, the range of "
                f"{generation.name} parts",
                f"check for a typo (a digit or decimal point; a sparse or per-node figure?) "
                f"against the datasheet; the ranges come from {generation.sources}; a part "
                "really outside them: widen the range in tinkernomics/catalog/"
                "physics_hardware.py with its source")


def rule_sparse_is_twice_dense(catalog: Catalog) -> Iterator[Problem]:
    """Where both are given, sparse BF16 TFLOP/s is twice the dense figure."""
    for key, hardware in catalog.hardware.items():
        dense, sparse = (figure_value(hardware, n)
                         for n in ("bf16_dense_tflops", "bf16_sparse_tflops"))
        if dense is None or sparse is None:
            continue
        if abs(sparse - SPARSE_FACTOR * dense) <= SPARSE_SLACK * sparse:
            continue
        yield catalog.problem(
            "hardware", key, ("bf16_sparse_tflops", "value"),
            f"bf16_sparse_tflops {sparse:g} is not twice bf16_dense_tflops {dense:g} "
            f"(expected {SPARSE_FACTOR * dense:g})",
            "datasheets often print the sparse figure first: bf16_dense_tflops is half of it")


POWER_W: Range = (40, 4_000)
"""Board power of one accelerator, watts: NVIDIA L4 72 W (https://www.nvidia.com/en-us/
data-center/l4/) to AMD Instinct MI355X 1,400 W (https://www.amd.com/en/products/accelerators/
instinct/mi350/mi355x.html) and a GB200 Blackwell GPU's 1,200 W (glennklockwood.com/garden/
processors/B200); the top end is left near three times the largest for the next generation's
packages. A 10x slip of a 700 W part, or kilowatts typed as watts, falls outside."""
TFLOPS_PER_W: Range = (0.1, 6.0)
"""Dense BF16 TFLOP/s per watt of board power: a GeForce RTX 3090 gives 71 at 350 W (0.20), an H20
148 at 400 W (0.37), a B200 2,250 at 1,000 W (2.25); the band runs from half the lowest to
nearly three times the highest. An H100's 700 W typed as 70 gives 14."""
PRICE_PER_PF_HOUR: Range = (0.5, 50.0)
"""US dollars per dense BF16 petaFLOP-hour of a rented GPU: the listed H100, H200, B200 and GB200
rental prices run from about 1.7 to 7 (the Hardware page's sources); the band is three to seven
times wider either side. A node's price (8 GPUs) can hide inside it, a month's price (730 hours)
or a price in cents (100×) cannot."""


def rule_power_plausible(catalog: Catalog) -> Iterator[Problem]:
    """Board power lies in ``POWER_W`` and, with dense BF16 given, makes ``TFLOPS_PER_W``."""
    for key, hardware in catalog.hardware.items():
        power, dense = (figure_value(hardware, n) for n in ("power_w", "bf16_dense_tflops"))
        if power is None:
            continue
        low, high = POWER_W
        if not low <= power <= high:
            yield catalog.problem("hardware", key, ("power_w", "value"),
                           f"power_w {power:,g} W is outside {low:,g}–{high:,g} W, the range of "
                           "accelerators' board power",
                           "give one GPU's board power in watts (kilowatts, or a node's, is a "
                           "slip); the range's sources are in tinkernomics/catalog/"
                           "physics_hardware.py (POWER_W)")
        elif dense is not None and power > 0:
            rate, (slow, fast) = dense / power, TFLOPS_PER_W
            if not slow <= rate <= fast:
                yield catalog.problem("hardware", key, ("power_w", "value"),
                               f"power_w {power:g} W with bf16_dense_tflops {dense:g} gives "
                               f"{rate:.2f} TFLOP/s per watt, outside {slow:g}–{fast:g}",
                               "check both against the datasheet (a digit typed twice or "
                               "dropped?); the band's sources: physics_hardware.TFLOPS_PER_W")


def rule_rental_price_plausible(catalog: Catalog) -> Iterator[Problem]:
    """A rental price per GPU-hour, over the GPU's dense BF16 petaFLOP/s, lies in
    ``PRICE_PER_PF_HOUR``."""
    for key, hardware in catalog.hardware.items():
        dense = figure_value(hardware, "bf16_dense_tflops")
        if not dense:
            continue
        for index, row in enumerate(field_or_none(hardware, "rental_prices") or ()):
            price = figure_value(row, "price")
            if price is None:
                continue
            rate, (low, high) = price / (dense / 1000.0), PRICE_PER_PF_HOUR
            if not low <= rate <= high:
                yield catalog.problem("hardware", key, ("rental_prices", index, "price", "value"),
                               f"${price:,g} per GPU-hour is ${rate:,.2f} per dense BF16 "
                               f"petaFLOP-hour ({dense:g} TFLOP/s), outside ${low:g}–${high:g}",
                               "give one GPU's price for one hour in US dollars (a month's "
                               "price, a node's, or cents is a slip); the band's sources: "
                               "physics_hardware.PRICE_PER_PF_HOUR")
