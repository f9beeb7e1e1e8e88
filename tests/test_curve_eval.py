"""A ScaleRL curve is computed with the one formula, compiled once, bit for bit as the
calculator's evaluator walks it (issue 47; issue 41: the formula is written once).

``derive.curve_points`` (the charts' series, the API's curves) and ``derive.scalerl_reward``
used to parse and walk ``SCALERL_REWARD``'s tree at every point; they now run it compiled
(``derive._formula``). Compared here with the walk, point by point, on fixture fits and on
edge computes (zero, negative, tiny, huge), on a changed formula, and on a formula too deep
to compile (the walk answers).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable

import pytest

from tinkernomics.derived import derive
from tinkernomics.derived.calculator import compiled, tree

FITS = (derive.SigmoidParams(A=0.6, B=1.5, C_mid=100.0, R0=0.2),
        derive.SigmoidParams(A=0.615, B=0.73, C_mid=3.7e3, R0=0.0),
        derive.SigmoidParams(A=0.9, B=20.0, C_mid=0.001, R0=0.05),
        derive.SigmoidParams(A=0.3, B=0.01, C_mid=1e9, R0=0.299))
EDGES = (0.0, -0.0, -5.0, 5e-324, 1e-300, 1e-9, 1.0, 3, 1e300, float("inf"))


def _walked(p: derive.SigmoidParams, computes: Iterable[float]) -> list[tuple[float, float]]:
    """The previous path: the formula parsed and its tree walked at every point."""
    out = []
    for c in computes:
        env = {"A": p.A, "B": p.B, "C_mid": p.C_mid, "R0": p.R0, "C": c}
        value = tree.evaluate(tree.to_tree(derive.SCALERL_REWARD), env)
        out.append((c, p.R0 if value is None else value))
    return out


def _bits(points: list[tuple[float, float]]) -> list[tuple[bytes, bytes]]:
    return [(struct.pack("<d", c), struct.pack("<d", r)) for c, r in points]


def _computes(p: derive.SigmoidParams) -> list[float]:
    return [*derive.log_grid(p.C_mid / 30, p.C_mid * 30, 61), *EDGES]


@pytest.mark.parametrize("p", FITS)
def test_curve_is_the_walk_bit_for_bit(p: derive.SigmoidParams) -> None:
    computes = _computes(p)
    expected = _bits(_walked(p, computes))
    assert _bits(derive.curve_points(p, computes)) == expected
    assert _bits([(c, derive.scalerl_reward(p, c)) for c in computes]) == expected


def test_curve_walks_no_tree_per_point(monkeypatch: pytest.MonkeyPatch) -> None:
    """Compiled once: a curve of any length neither parses nor walks the formula per point."""
    derive.curve_points(FITS[0], [1.0])
    walks: list[object] = []
    monkeypatch.setattr(tree, "evaluate", lambda *args: walks.append(args))
    monkeypatch.setattr(tree, "to_tree", lambda *args: walks.append(args))
    points = derive.curve_points(FITS[0], derive.log_grid(1.0, 1e4, 31))
    assert walks == []
    assert len(points) == 31 and points[-1][1] > points[0][1]


def test_a_changed_formula_reaches_the_curve(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(derive, "SCALERL_REWARD", "A - R0 + C / C_mid * B")
    p = FITS[0]
    computes = _computes(p)
    assert _bits(derive.curve_points(p, computes)) == _bits(_walked(p, computes))
    assert derive.scalerl_reward(p, 50.0) == 0.6 - 0.2 + 50.0 / 100.0 * 1.5


def test_a_formula_too_deep_to_compile_is_walked(monkeypatch: pytest.MonkeyPatch) -> None:
    deep = "R0 if C <= 0 else (" * 70 + "A" + ")" * 70
    assert compiled.compile_graph([("value", None, tree.to_tree(deep))]) is None
    monkeypatch.setattr(derive, "SCALERL_REWARD", deep)
    p = FITS[1]
    assert _bits(derive.curve_points(p, [0.0, 2.0])) == _bits([(0.0, p.R0), (2.0, p.A)])
