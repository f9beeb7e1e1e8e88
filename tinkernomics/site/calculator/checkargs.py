"""Command-line input checks for ``tinkernomics estimate`` (pipeline step 6).

A link is forgiving: the page clamps a number into its range and falls back to the default for
an unknown id (``inputs.choose``). The command line is not: a typo must not price another run.
``check_query`` refuses, with one line naming the option, an unknown key, a number that is not
a plain number of its kind or lies outside its range (``--gpus 0``, ``--G -5``), an id the
catalog does not hold (``--gpu`` lists the choices) and a cap below the mean completion length.
"""

from __future__ import annotations

from collections.abc import Mapping

from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived.calculator import inputs

CHOICES = {"a": "algorithms", "m": "models", "tm": "models", "hw": "hardware",
           "p": "price_lists"}
"""Link keys whose value is a catalog id, and the catalog collection that holds them."""
FLAGS = {"ft": ("lora", "full"), "lf": inputs.LORA_FLOPS, "cache": ("0", "1"),
         "ref": ("0", "1")}


class BadInput(ValueError):
    """One bad command-line value; its message is the line the command prints."""


def _name(key: str, options: Mapping[str, str]) -> str:
    return options.get(key, f"--set {key}")


def _number(spec: inputs.Input, raw: str, name: str) -> float:
    if not inputs.valid(raw, spec.kind):
        kind = "a whole number" if spec.kind == "int" else "a number"
        raise BadInput(f"{name} {raw!r}: not {kind} (plain digits, no sign)")
    value = float(raw)
    if not spec.lo <= value <= spec.hi:
        raise BadInput(f"{name} {raw}: must be between {spec.lo:g} and {spec.hi:g}")
    return value


def _choice(catalog: Catalog, key: str, raw: str, name: str) -> None:
    if key in CHOICES:
        held = sorted(getattr(catalog, CHOICES[key]))
        if raw not in held:
            raise BadInput(f"{name} {raw!r}: unknown id; one of {', '.join(held)}")
    elif key in FLAGS and raw not in FLAGS[key]:
        raise BadInput(f"{name} {raw!r}: one of {', '.join(FLAGS[key])}")


def check_query(catalog: Catalog, query: Mapping[str, str],
                options: Mapping[str, str]) -> dict[str, str]:
    """The query itself if every value is good, else ``BadInput`` for the first bad one."""
    specs = {i.key: i for i in inputs.link_inputs(catalog)}
    numbers: dict[str, float] = {}
    for key, raw in query.items():
        name = _name(key, options)
        if key not in specs:
            raise BadInput(f"{name}: unknown setting; the link keys are "
                           + ", ".join(sorted(specs)))
        if specs[key].kind in inputs.NUMBER_KINDS:
            numbers[key] = _number(specs[key], raw, name)
        else:
            _choice(catalog, key, raw, name)
    if "maxout" in numbers and numbers["maxout"] < numbers.get("out", 2048.0):
        raise BadInput(f"{_name('maxout', options)} {numbers['maxout']:g}: below the mean "
                       f"completion length ({numbers.get('out', 2048.0):g}); the cap is the "
                       "longest a completion may be")
    if "rg" in numbers and "gpus" in numbers and numbers["rg"] >= numbers["gpus"]:
        raise BadInput(f"{_name('rg', options)} {numbers['rg']:g}: must leave GPUs to train "
                       f"on (--gpus {numbers['gpus']:g})")
    return dict(query)
