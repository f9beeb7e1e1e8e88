"""The catalog figures an estimate reads, as graph quantities with provenance (pipeline step 5).

``inline`` writes a catalog formula into a quantity's expression with its variables replaced,
so the calculator evaluates the catalog's own expressions (never a re-typed copy).
``constants`` lists the catalog values every estimate shares (formula examples, DeepSeek-V3's
run, the GB200 conversion, the cost of building the stack), each a quantity whose expression is
the number and whose ``uses`` names the figure it comes from.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.models.hardware import default_rental
from tinkernomics.derived import derive
from tinkernomics.derived.calculator import ids
from tinkernomics.derived.calculator.graph import Quantity


class _Substitute(ast.NodeTransformer):
    def __init__(self, mapping: Mapping[str, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id not in self.mapping:
            raise ValueError(f"no value given for formula variable {node.id}")
        return ast.parse(self.mapping[node.id], mode="eval").body


def inline(catalog: Catalog, formula_id: str, **values: str) -> str:
    """The catalog formula's expression with each variable replaced by an expression."""
    tree = ast.parse(catalog.formulas[formula_id].expression.strip(), mode="eval").body
    return "(" + ast.unparse(_Substitute(values).visit(tree)) + ")"


def number(value: float) -> str:
    """A float as expression text that parses back to the very same float."""
    return repr(float(value))


def example(catalog: Catalog, formula_id: str, name: str) -> float:
    """The worked-example value of a formula variable (a catalog value, used as a default)."""
    return next(v.example for v in catalog.formulas[formula_id].variables if v.name == name)


def default_gpu_price(catalog: Catalog, hw_id: str) -> float | None:
    """The hardware's default price per GPU-hour (``DEFAULT_PRICE_RULE``: the median listed
    rental price), or None without rental prices (the estimate then asks for one)."""
    row = default_rental(catalog.hardware[hw_id])
    return row.price.value if row is not None else None


def vram_examples(catalog: Catalog) -> dict[str, float]:
    """Byte-valued VRAM variables and their example values (the defaults)."""
    found: dict[str, float] = {}
    for formula_id in (ids.VRAM_LORA, ids.VRAM_FULL):
        for var in catalog.formulas[formula_id].variables:
            if var.unit.value == "bytes":
                found.setdefault(var.name, var.example)
    return found


def constants(catalog: Catalog) -> list[Quantity]:
    """Catalog values shared by every estimate, with the figure each comes from."""
    factor = derive.conversion_factor(catalog)
    gb200 = catalog.hardware[factor.from_id]
    h800 = catalog.hardware[ids.H800_PEAK_HARDWARE]
    setup = catalog.platform.setup_cost.total.value if catalog.platform else 0.0
    gb200_price = default_gpu_price(catalog, gb200.id)
    if gb200_price is None:
        raise ValueError(f"hardware {gb200.id} has no rental price: ScaleRL's cost needs one")

    def c(key: str, value: float, fmt: str, label: str, *uses: str) -> Quantity:
        return Quantity(key, number(value), format=fmt, label=label, uses=uses, shown=False)

    lora = f"formula:{ids.FLOPS_LORA}"
    found = [
        c("const.lora_rank", example(catalog, ids.FLOPS_LORA, ids.VAR_RANK), "count",
          "LoRA rank (the formula's example)", lora),
        c("const.d_model", example(catalog, ids.FLOPS_LORA, ids.VAR_DMODEL), "count",
          "Hidden size (the formula's example)", lora),
        c("const.dsv3_active", ids.DEEPSEEK_V3_ACTIVE_PARAMS, "count",
          "DeepSeek-V3 active parameters", "assumption:mfu_train"),
        c("const.dsv3_tokens", ids.DEEPSEEK_V3_TOKENS, "count", "DeepSeek-V3 training tokens",
          "assumption:mfu_train"),
        c("const.dsv3_gpu_hours", ids.DEEPSEEK_V3_GPU_HOURS, "hours",
          "DeepSeek-V3 H800-hours", "assumption:mfu_train"),
        c("const.h800_tflops", h800.bf16_dense_tflops.value, "number", "H800 dense BF16",
          f"hardware:{h800.id}:tflops"),
        c("const.decode_sequences", ids.DECODE_SEQUENCES_PER_GPU, "count",
          "KV cache reserved per decoding GPU (sequences)", "assumption:decode_sequences"),
        c("const.gb200_tflops", gb200.bf16_dense_tflops.value, "number",
          f"{gb200.name} dense BF16", f"hardware:{gb200.id}:tflops"),
        c("const.h100_tflops", catalog.hardware[factor.to_id].bf16_dense_tflops.value,
          "number", f"{factor.to_name} dense BF16", f"hardware:{factor.to_id}:tflops"),
        c("const.gb200_price", gb200_price, "usd",
          f"{gb200.name} price per GPU-hour", f"hardware:{gb200.id}:price"),
        c("const.setup", setup, "usd", "Cost of building the stack", "setup:total"),
    ]
    for name, value in vram_examples(catalog).items():
        found.append(c(f"const.vram.{name}", value, "gb", f"{name} (the formula's example)",
                       f"formula:{ids.VRAM_LORA}"))
    found.append(Quantity("conv.factor", "const.gb200_tflops / const.h100_tflops", format="number",
                          label="GB200 to H100-equivalent (peak dense BF16 ratio)", shown=False))
    return found
