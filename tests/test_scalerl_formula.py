"""One ScaleRL formula (issue 41): ``derive.SCALERL_REWARD`` is read by the Python curve
(``scalerl_reward``, the charts) and by the calculator's graph, ``SCALERL_COMPUTE`` (its
inverse) by the graph (``resources.convergence``): a changed formula reaches both."""

from __future__ import annotations

import pytest

from tinkernomics.derived import derive
from tinkernomics.derived.calculator import resources, tree

PARAMS = derive.SigmoidParams(A=0.6, B=1.5, C_mid=100.0, R0=0.2)


def _expression(key: str) -> str:
    return next(q.expression for q in resources.convergence() if q.key == key)


def test_curve_and_graph_read_one_formula(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(derive, "SCALERL_REWARD", "A - R0 + C / C_mid * B")
    monkeypatch.setattr(derive, "SCALERL_COMPUTE", "C_mid * f")
    assert derive.scalerl_reward(PARAMS, 50.0) == pytest.approx(0.6 - 0.2 + 0.5 * 1.5)
    assert _expression("scalerl.reward") == \
        "scalerl.A - scalerl.R0 + scalerl.gb200_hours / fit.C_mid * fit.B"
    assert _expression("scalerl.gb200_hours") == "fit.C_mid * scalerl.fraction"


def _graph_value(key: str, env: dict[str, float]) -> float | None:
    return tree.evaluate(tree.to_tree(_expression(key)), env)


def test_the_sigmoid_and_its_inverse_agree() -> None:
    """The calculator's compute to 90% of the gain is where the curve reaches it."""
    env = {"fit.A": 60.0, "fit.B": PARAMS.B, "fit.C_mid": PARAMS.C_mid, "fit.R0": 20.0,
           "run.target_percent": 90.0}
    for key in ("scalerl.fraction", "scalerl.A", "scalerl.R0", "scalerl.gb200_hours"):
        value = _graph_value(key, env)
        assert value is not None, key
        env[key] = value
    compute = env["scalerl.gb200_hours"]
    assert derive.scalerl_reward(PARAMS, compute) == pytest.approx(0.2 + 0.9 * 0.4)
    assert _graph_value("scalerl.reward", env) == pytest.approx(0.2 + 0.9 * 0.4)
    assert derive.scalerl_reward(PARAMS, 0.0) == PARAMS.R0
    assert derive.scalerl_reward(PARAMS, 1e-300) == PARAMS.R0  # (C_mid / C)^B overflows
