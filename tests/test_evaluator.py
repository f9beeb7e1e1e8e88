"""One expression evaluator: ``tree.evaluate`` in Python and ``evaluate`` in calculator-eval.js.

The Formulas page's worked examples, the calculator in Python and the calculator in the browser
evaluate the same expression language with the same rules: every value is a finite real
number or missing (``None``, JavaScript ``null``, shown as "–"). ``0/0``, ``-1/0``,
``(-8) ** 0.5`` and ``10 ** 400`` are missing in both; a worked example with no finite value is
an ``ExpressionError`` naming its expression. calculator-eval.js runs in node (its evaluator needs
no page: the script is loaded with a stub ``window`` and ``document``).
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tinkernomics.catalog.loader import load_valid_catalog
from tinkernomics.derived import derive
from tinkernomics.derived.calculator import tree
from tinkernomics.derived.calculator.tree import value_of
from tinkernomics.derived.expr import ExpressionError

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "site_overrides" / "assets" / "javascripts" / "calculator-eval.js"
NODE = shutil.which("node") or "/usr/bin/node"

EDGES = ["0 / 0", "-1 / 0", "1 / 0", "(-8) ** 0.5", "10 ** 400", "0 ** -1", "1e308 * 10",
         "-1e308 - 1e308", "a / z", "(a - a) / z"]
"""Expressions with no finite real value (``a`` = 2, ``z`` = 0)."""

SAME = ["min(a, b) * ceil(c / 3) + max(a, 2.5) ** 0.5", "coalesce(m, a) - missing(m)",
        "a / b if c > 4 else -a", "(a == 2.0) + (b <= 3) + (c >= 9)", "m * 2 + a",
        "coalesce(m * 2, b * 1e15) / 7", "coalesce(0 / 0, 5)", "missing(-1 / z)",
        "missing(10 ** 400) + missing(2 ** 10)", "1 if 0 / 0 else 2", "(0 / 0) * 0",
        "b ** -0.5", "(-b) ** 3", "(-b) ** (1 / 3)", "ceil(-0.5) + 0", "min(1e308 * 10, 3)",
        "1e308 + 1e307", "c ** 307", "c ** 308", "c ** 309", "2 ** 1023 * 2", "a - a * 1e-300"]
"""Expressions whose value Python and JavaScript must agree on (``m`` is missing)."""

ENV: dict[str, float | None] = {"a": 2.0, "b": 3.0, "c": 10.0, "z": 0.0, "m": None}

_JS = """
const vm = require("vm"), fs = require("fs");
const [script, payload] = process.argv.slice(1);
const document = { readyState: "complete", querySelectorAll: () => [] };
const window = { document: document };
vm.runInNewContext(fs.readFileSync(script, "utf8"), { window, document, console });
const { graph, env } = JSON.parse(fs.readFileSync(payload, "utf8"));
const values = window.tnCalculator.evaluate(graph, env);
// Non-finite numbers as text: JSON.stringify would write Infinity and NaN as null.
process.stdout.write(JSON.stringify(values, (k, v) =>
  typeof v === "number" && !isFinite(v) ? String(v) : v));
"""


def js_values(expressions: list[str], env: dict[str, float | None],
              tmp_path: Path) -> list[Any]:
    """Each expression's value computed by calculator-eval.js in node (one process for all)."""
    graph = [[f"q{i}", "number", 1, None, tree.to_tree(x)] for i, x in enumerate(expressions)]
    payload = tmp_path / "payload.json"
    payload.write_text(json.dumps({"graph": graph, "env": env}), encoding="utf-8")
    done = subprocess.run([NODE, "-e", _JS, str(SCRIPT), str(payload)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    values = json.loads(done.stdout)
    return [values[f"q{i}"] for i in range(len(expressions))]


def py_values(expressions: list[str], env: dict[str, float | None]) -> list[float | None]:
    return [tree.evaluate(tree.to_tree(x), env) for x in expressions]


@pytest.mark.parametrize("expression", EDGES)
def test_no_finite_value_is_missing_in_python(expression: str) -> None:
    assert tree.evaluate(tree.to_tree(expression), ENV) is None


@pytest.mark.parametrize("expression", ["0 / 0", "-1 / 0", "(-8) ** 0.5", "10 ** 400"])
def test_a_worked_example_without_a_value_names_its_expression(expression: str) -> None:
    with pytest.raises(ExpressionError, match="has no finite real value") as err:
        value_of(expression, {})
    assert repr(expression) in str(err.value)


def test_a_catalog_formula_without_a_finite_example_is_an_error() -> None:
    """derive.worked_example evaluates through the calculator's evaluator (fixture catalog)."""
    formula = next(iter(load_valid_catalog(ROOT / "tests/fixtures/valid").formulas.values()))
    assert derive.worked_example(formula).result > 0
    name = formula.variables[0].name
    broken = formula.model_copy(update={"expression": f"{name} / ({name} - {name})"})
    with pytest.raises(ExpressionError, match="has no finite real value"):
        derive.worked_example(broken)


def test_constants_must_be_finite() -> None:
    for expression in ("1e999 * a", "1" + "0" * 400):
        with pytest.raises(ExpressionError, match="not a finite number"):
            tree.to_tree(expression)


@pytest.mark.skipif(not Path(NODE).exists(), reason="node is not installed")
def test_javascript_gives_python_s_values(tmp_path: Path) -> None:
    expressions = EDGES + SAME
    got = js_values(expressions, ENV, tmp_path)
    expected = py_values(expressions, ENV)
    differ = {x: (g, e) for x, g, e in zip(expressions, got, expected, strict=True) if g != e}
    assert differ == {}
    assert got[:len(EDGES)] == [None] * len(EDGES)


def _random_expression(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.25:
        return rng.choice(["a", "b", "c", "z", "m", "0", "1", "2.5", "0.1", "1e3", "1e200"])
    if rng.random() < 0.15:
        return f"(-{_random_expression(rng, depth - 1)})"
    if rng.random() < 0.1:
        fn = rng.choice(["min", "max", "coalesce"])
        return f"{fn}({_random_expression(rng, depth - 1)}, {_random_expression(rng, depth - 1)})"
    op = rng.choice(["+", "-", "*", "/", "/", "**", ">", "=="])
    return f"({_random_expression(rng, depth - 1)} {op} {_random_expression(rng, depth - 1)})"


@pytest.mark.skipif(not Path(NODE).exists(), reason="node is not installed")
def test_random_expressions_agree(tmp_path: Path) -> None:
    """400 random expressions over finite, zero and missing names: the same value or missing."""
    rng = random.Random(27)
    expressions = [_random_expression(rng, 4) for _ in range(400)]
    got = js_values(expressions, ENV, tmp_path)
    expected = py_values(expressions, ENV)
    differ = {x: (g, e) for x, g, e in zip(expressions, got, expected, strict=True) if g != e}
    assert differ == {}
    assert sum(v is None for v in expected) > 40  # the edge cases are exercised
