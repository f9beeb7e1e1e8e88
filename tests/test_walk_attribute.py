"""``walk.attribute`` answers as ``getattr(obj, name, default)`` does (issue 47).

The rules read ``source``, ``references``, ``status`` and the locators of every nested model;
``attribute`` skips pydantic's slow path for a name a model cannot have. Compared with
``getattr`` on every nested model of the valid fixture catalog, for fields, methods, private and
unknown names, and on a model that keeps extra fields (where a name can appear per instance).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from tinkernomics.catalog.loader import load_catalog
from tinkernomics.catalog.walk import attribute, nested_models

NAMES = ("source", "references", "status", "locator", "model_names_locator", "value", "id",
         "model_dump", "model_fields_set", "_private", "__class__", "no_such_field")
MISSING = object()


def test_same_as_getattr_on_every_nested_model(valid_catalog_dir: Path) -> None:
    catalog, problems = load_catalog(valid_catalog_dir)
    assert not problems
    seen = 0
    for _, _, obj, _, _ in nested_models(catalog):
        for name in NAMES:
            assert attribute(obj, name, MISSING) == getattr(obj, name, MISSING), (obj, name)
            seen += getattr(obj, name, MISSING) is not MISSING
    assert seen > 0


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    known: int = 1


class _Closed(BaseModel):
    known: int = 1

    @property
    def derived(self) -> int:
        return self.known + 1


@pytest.mark.parametrize(("obj", "name", "expected"), [
    (_Open.model_validate({"extra_name": 5}), "extra_name", 5),
    (_Open(), "extra_name", MISSING),
    (_Closed(), "derived", 2),
    (_Closed(), "known", 1),
    (_Closed(), "other", MISSING),
    ({"source": "x"}, "source", MISSING),
])
def test_extra_fields_properties_and_plain_objects(obj: Any, name: str, expected: Any) -> None:
    assert attribute(obj, name, MISSING) is expected or attribute(obj, name, MISSING) == expected
    assert getattr(obj, name, MISSING) == expected
