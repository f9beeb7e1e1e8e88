"""Which Tinker price lists carry a model (pipeline step 5): "not listed since", and the
closest model the newest list carries.

A model an older list priced and the newest does not is no dead end: ``listing`` says since
when it is not listed and names the listed model closest to it (the same architecture first,
then the nearest total size, then the same family), which the calculator's Tinker card and the
command line show where the chosen list has no row for it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog

FAMILY_PENALTY = 0.25
"""How much further (in log size ratio, about 1.3×) a model of another family counts."""


def _root(family: str) -> str:
    """'Qwen3.6', 'Qwen3-VL' -> 'qwen': the family's leading name, without its version."""
    found = re.match(r"[^\W\d_]+", family)
    return (found.group(0) if found else family).casefold()


@dataclass(frozen=True)
class Listing:
    model: str
    newest: str
    """Id of the newest price list."""
    listed: bool
    """The newest list has a row for the model."""
    since: str = ""
    """The first list, after the last one that priced the model, that does not ('' if none)."""
    closest: str = ""
    """The listed model nearest to it ('' if it is listed or the newest list is empty)."""


def _lists(catalog: Catalog) -> list[m.PriceList]:
    return sorted(catalog.price_lists.values(), key=lambda p: (p.effective, p.id))


def _carries(plist: m.PriceList, model_id: str) -> bool:
    return any(r.model == model_id for r in plist.rows)


def closest(catalog: Catalog, model_id: str, plist: m.PriceList) -> str:
    """The model ``plist`` carries that is nearest to ``model_id``: same architecture first,
    then the nearest total parameter count (by ratio, a family of another name counting as
    ``FAMILY_PENALTY`` further), then by id."""
    target = catalog.models[model_id]
    size = target.total_params.value

    def distance(mid: str) -> tuple[bool, float, str]:
        other = catalog.models[mid]
        kin = 0.0 if _root(other.family) == _root(target.family) else FAMILY_PENALTY
        return (other.architecture != target.architecture,
                abs(math.log(other.total_params.value / size)) + kin, mid)

    carried = sorted({r.model for r in plist.rows if r.model in catalog.models} - {model_id})
    return min(carried, key=distance) if carried else ""


def listing(catalog: Catalog, model_id: str) -> Listing:
    """Whether the newest list carries the model, since when not, and the closest it does."""
    lists = _lists(catalog)
    newest = lists[-1]
    if _carries(newest, model_id):
        return Listing(model_id, newest.id, True)
    last = max((i for i, p in enumerate(lists) if _carries(p, model_id)), default=None)
    since = lists[last + 1].id if last is not None else ""
    return Listing(model_id, newest.id, False, since, closest(catalog, model_id, newest))


def listing_text(catalog: Catalog, model_id: str) -> str:
    """The reader's sentence: '' when the newest list carries the model."""
    found = listing(catalog, model_id)
    if found.listed:
        return f"the newest Tinker price list ({found.newest}) carries it"
    head = (f"not listed since {found.since}" if found.since
            else "on no Tinker price list in this catalog")
    if not found.closest:
        return head
    near = catalog.models[found.closest]
    return (f"{head}; the closest model the newest list ({found.newest}) carries: "
            f"{near.name} ({near.total_params.value:,g}B parameters, "
            f"{'mixture of experts' if near.architecture == m.Architecture.moe else 'dense'})")
