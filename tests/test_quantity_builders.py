"""Keyword-only quantity builders (issue 41): a quantity's key and expression go by position,
everything else by name, so no builder's argument order can swap a label and a format."""

from __future__ import annotations

from typing import Any

import pytest

from tinkernomics.derived.calculator import waysgraph
from tinkernomics.derived.calculator.graph import Quantity


def test_quantity_takes_format_and_label_by_name() -> None:
    make: Any = Quantity
    with pytest.raises(TypeError):
        make("k", "1.0", "count", "Label")
    q = Quantity("k", "1.0", format="count", label="Label")
    assert (q.format, q.label) == ("count", "Label")


def test_builders_are_keyword_only() -> None:
    make: Any = waysgraph.q
    with pytest.raises(TypeError):
        make("k", "1.0", "usd")
    assert waysgraph.q("k", "1.0", fmt="usd").format == "usd"
