"""Hardware models (pipeline step 2): accelerators, rental prices, compute conversions."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from tinkernomics.catalog import numbers as n
from tinkernomics.catalog.fields import Id, Prose, ShortText
from tinkernomics.catalog.models.base import StrictModel
from tinkernomics.catalog.models.provenance import Claim, Figure


class RentalPrice(StrictModel):
    """A dated rental price for one GPU."""

    provider: ShortText = Field(description="Provider or index.", examples=["CoreWeave"])
    date: ShortText = Field(description="When the price held, e.g. '2026-02'.")
    price: Annotated[Figure, n.GPU_HOUR_PRICE] = Field(
        description="Price, unit `usd_per_gpu_hour`.")


class Hardware(StrictModel):
    """An accelerator with the specs the cost formulas need."""

    id: Id = Field(description="Equal to the file name without `.yaml`.", examples=["h100"])
    name: ShortText = Field(description="Display name.", examples=["NVIDIA H100 SXM"])
    # Ranges (catalog/numbers.py): every spec above zero, so the conversion factor (a ratio of
    # TFLOP/s) and per-GPU divisions stay finite.
    bf16_dense_tflops: Annotated[Figure, n.TFLOPS] = Field(
        description="Peak dense BF16, unit `tflops`.")
    bf16_sparse_tflops: Annotated[Figure, n.TFLOPS] | None = Field(
        default=None, description="Peak BF16 with 2:4 sparsity, unit `tflops`: twice the dense "
        "figure (validate checks it); optional, never used in place of the dense one.")
    memory_gb: Annotated[Figure, n.MEMORY_GB] = Field(description="Memory per GPU, unit `gb`.")
    bandwidth_tb_s: Annotated[Figure, n.BANDWIDTH] | None = Field(
        default=None, description="Unit `tb_per_second`.")
    power_w: Annotated[Figure, n.POWER_W] | None = Field(
        default=None, description="Board power, unit `watts`.")
    rental_prices: list[RentalPrice] = Field(
        default_factory=list, description="Dated rental prices, in any order; the calculator's "
        "default is their median (DEFAULT_PRICE_RULE). Optional: without one the estimate asks "
        "for a price."
    )
    notes: Prose | None = Field(default=None, description="Anything a reader should know.")


class Conversion(StrictModel):
    """A compute-equivalence between two accelerators, derived from their specs."""

    id: Id = Field(description="Equal to the file name without `.yaml`.",
                   examples=["gb200_to_h100"])
    from_hardware: Id = Field(description="Hardware id converted from.", examples=["gb200"])
    to_hardware: Id = Field(description="Hardware id converted to.", examples=["h100"])
    basis: ShortText = Field(description="How the factor is derived, shown beside it.")
    description: Prose = Field(description="Why this basis, and its limits.")
    legacy_factor: Annotated[Figure, n.LEGACY_FACTOR] | None = Field(
        default=None, description="A factor used before, kept for the record (often unverified)."
    )
    alternatives: list[Claim] = Field(default_factory=list,
                                      description="Other defensible factors, with sources.")


DEFAULT_PRICE_RULE = ("the median of the listed rental prices (the lower of the middle two when "
                      "their number is even)")
"""How the calculator picks a GPU's default price per GPU-hour, the same for every GPU: the
order the rows are written in does not matter, and one outlier (an index, a hyperscaler's list
price) does not set it. Each row counts with its ``price.value`` (a range's low end)."""


def default_rental(hardware: Hardware) -> RentalPrice | None:
    """The rental row ``DEFAULT_PRICE_RULE`` picks, or None for a GPU without rental prices."""
    rows = sorted(hardware.rental_prices, key=lambda row: row.price.value)
    return rows[(len(rows) - 1) // 2] if rows else None


def default_rental_label(hardware: Hardware) -> str:
    """What the default price is, to show beside it: 'median of 5 listed: RunPod, 2026-03'."""
    row = default_rental(hardware)
    if row is None:
        return "no rental price listed"
    return f"median of {len(hardware.rental_prices)} listed: {row.provider}, {row.date}"
