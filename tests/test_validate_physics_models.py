"""Model figures checked by arithmetic (issue 45): a parameter count recounted from the shape,
heads that divide, sizes that multiply to the hidden size, parts within their wholes.

Every model here is a fixture written for the test (a made-up "toy" model), never today's
catalog; each mistake is one edit of a passing entry, reported at its file:line:col.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_catalog import copy_valid, run_validate, write_file

from tinkernomics.catalog import paramcount

SRC = ('status: reported, source: tinker_pricing_2026_07, '
       'locator: \'fixture config line 1 "the model config"\'')


def _fig(value: object, extra: str = "") -> str:
    return f"{{value: {value}, {SRC}{extra}}}"


DENSE = {"layers": 40, "attention_heads": 32, "kv_heads": 8, "head_dim": 128,
         "mlp_size": 14336, "vocab_size": 128000, "tied_embeddings": 0,
         "context_limit": 131072}
MOE = {"layers": 48, "attention_heads": 32, "kv_heads": 4, "head_dim": 128,
       "expert_mlp_size": 768, "experts": 128, "experts_active": 8, "vocab_size": 150000,
       "tied_embeddings": 0}


def _model(key: str, *, arch: str, total: float, d_model: int, shape: dict[str, object],
           active: float | None = None, notes: dict[str, str] | None = None) -> str:
    def figure(value: float) -> str:
        return (f"  value: {value}\n  unit: billion_parameters\n  status: reported\n"
                "  source: tinker_pricing_2026_07\n  locator: 'fixture \"table row\"'\n")
    lines = [f"id: {key}", f"name: Toy {key}", "family: Toy", f"architecture: {arch}",
             "total_params:", figure(total).rstrip("\n")]
    if active is not None:
        lines += ["active_params:", figure(active).rstrip("\n")]
    lines += ["d_model:", f"  value: {d_model}", "  unit: count", "  status: reported",
              "  source: tinker_pricing_2026_07",
              '  locator: \'fixture config line 2 "the model width"\'', "shape:"]
    for name, value in shape.items():
        note = (notes or {}).get(name)
        lines.append(f"  {name}: " + _fig(value, f', note: "{note}"' if note else ""))
    return "\n".join(lines) + "\n"


def _run(tmp_path: Path, text: str, key: str = "toy") -> list:
    root = copy_valid(tmp_path)
    write_file(root, f"models/{key}.yaml", text)
    return [p for p in run_validate(tmp_path, "catalog").problems
            if f"models/{key}.yaml" in p.where]


def _dense(**changes: object) -> str:
    total = changes.pop("total", 10)
    d_model = changes.pop("d_model", 4096)
    return _model("toy", arch="dense", total=total, d_model=d_model,  # type: ignore[arg-type]
                  shape={**DENSE, **changes})


def _line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def test_a_consistent_model_passes(tmp_path: Path) -> None:
    assert _run(tmp_path, _dense()) == []
    moe = _model("toy", arch="moe", total=30, active=3, d_model=2048, shape=MOE,
                 notes={"head_dim": "set apart in the config"})
    assert _run(tmp_path / "moe", moe) == []


@pytest.mark.parametrize("change", [{"total": 100}, {"layers": 400}, {"d_model": 40960},
                                    {"mlp_size": 143360}])
def test_a_total_its_shape_does_not_add_up_to_is_refused(tmp_path: Path,
                                                         change: dict[str, object]) -> None:
    text = _dense(**change, **({"head_dim": 1280} if "d_model" in change else {}))
    found = [p for p in _run(tmp_path, text) if p.where.endswith("total_params.value")]
    assert len(found) == 1, found
    line = _line_of(text, "total_params:") + 1
    assert found[0].where == f"catalog/models/toy.yaml:{line}:10: total_params.value"
    assert "disagrees with the" in found[0].message and "config.json" in (found[0].hint or "")


def test_a_rounded_name_is_not_a_mistake(tmp_path: Path) -> None:
    """A count written as a whole number of billions may be off by half a billion."""
    small = {**DENSE, "layers": 5, "vocab_size": 32000}
    text = _model("toy", arch="dense", total=1, d_model=4096, shape=small)
    recounted = paramcount.recount(_loaded(tmp_path, text))
    assert recounted is not None and 1.2 < recounted.total[0] < 1.5
    assert _run(tmp_path / "run", text) == []


def _loaded(tmp_path: Path, text: str) -> object:
    from tinkernomics.catalog.loader import load_catalog
    root = copy_valid(tmp_path)
    write_file(root, "models/toy.yaml", text)
    return load_catalog(root)[0].models["toy"]


def test_active_params_of_a_moe_are_recounted(tmp_path: Path) -> None:
    text = _model("toy", arch="moe", total=30, active=30, d_model=2048, shape=MOE,
                  notes={"head_dim": "set apart"})
    wheres = [p.where for p in _run(tmp_path, text)]
    assert wheres == [f"catalog/models/toy.yaml:{_line_of(text, 'active_params:') + 1}:10: "
                      "active_params.value"]


def test_kv_heads_that_do_not_divide_the_heads_are_refused(tmp_path: Path) -> None:
    text = _dense(kv_heads=80)
    found = [p for p in _run(tmp_path, text) if "kv_heads" in p.where]
    assert [p.where for p in found] == [
        f"catalog/models/toy.yaml:{_line_of(text, '  kv_heads:')}:21: shape.kv_heads.value"]
    assert "does not divide attention_heads 32" in found[0].message


def test_heads_times_head_dim_must_be_the_hidden_size_unless_noted(tmp_path: Path) -> None:
    text = _dense(head_dim=96)
    found = [p for p in _run(tmp_path, text) if "head_dim" in p.where]
    assert len(found) == 1 and "not the hidden size 4096" in found[0].message
    assert "note" in (found[0].hint or "")
    noted = _model("toy", arch="dense", total=10, d_model=4096, shape={**DENSE, "head_dim": 96},
                   notes={"head_dim": "the config sets head_dim on its own"})
    assert not [p for p in _run(tmp_path / "noted", noted) if "head_dim" in p.where]


@pytest.mark.parametrize(("change", "field"), [({"context_limit": 40}, "context_limit"),
                                               ({"vocab_size": 100}, "vocab_size")])
def test_context_and_vocabulary_within_sane_bounds(tmp_path: Path, change: dict[str, object],
                                                   field: str) -> None:
    found = [p for p in _run(tmp_path, _dense(**change)) if field in p.where]
    assert len(found) == 1 and "is outside" in found[0].message


def test_parts_fit_their_wholes(tmp_path: Path) -> None:
    text = _model("toy", arch="moe", total=30, active=3, d_model=2048,
                  shape={**MOE, "experts_active": 256}, notes={"head_dim": "set apart"})
    assert any(p.where.endswith("shape.experts_active.value") for p in _run(tmp_path, text))
    dense = _model("toy", arch="dense", total=10, d_model=4096, shape={**DENSE, "experts": 8})
    assert any(p.where.endswith(": architecture") for p in _run(tmp_path / "d", dense))
