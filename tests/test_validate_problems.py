"""One invalid catalog per class of problem: the valid fixture with ONE mutation.

Each case asserts the exact ``path:line:col: field`` of every problem printed (so nothing else
in the catalog is reported: the other files still validate), a fragment of the message, the
hint where one is expected, and exit code 1.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers_catalog import copy_valid, replace_in, run_validate, write_file

PPO = "algorithms/ppo.yaml"
GRPO = "algorithms/grpo.yaml"
H100 = "hardware/h100.yaml"
GB200 = "hardware/gb200.yaml"
CONVERSION = "conversions/gb200_to_h100.yaml"
FORMULA = "formulas/rollout_flops.yaml"
PRICES = "tinker/prices/2026-07-17.yaml"
REFERENCE = "references/transformer_math.yaml"

Mutation = Callable[[Path], None]
POWER = """power_w:
  value: {watts}
  unit: watts
  status: reported
  source: glennklockwood_h100
  locator: 'Fixture: "board power"'
"""
PRICE_ROW = """  - provider: {provider}
    date: "2026-03"
    price:
      value: {value}
      unit: usd_per_gpu_hour
      status: reported
      source: glennklockwood_h100
      locator: 'Fixture: "rental price"'
"""
PRICES_ROWS = ("rental_prices:\n" + PRICE_ROW.format(provider="First", value="{first}")
               + PRICE_ROW.format(provider="Second", value="{second}"))


def sub(rel: str, old: str, new: str) -> Mutation:
    return lambda root: replace_in(root, rel, old, new)


def put(rel: str, content: str | bytes) -> Mutation:
    return lambda root: write_file(root, rel, content)


def append(rel: str, content: str | bytes) -> Mutation:
    def mutate(root: Path) -> None:
        path = root / rel
        raw = content if isinstance(content, bytes) else content.encode()
        path.write_bytes(path.read_bytes() + raw)

    return mutate


@dataclass(frozen=True)
class Expect:
    where: str
    """``path:line:col: field`` relative to the test's cwd (tmp_path)."""
    message: str
    """A fragment the message must contain."""
    hint: str | None = None
    """A fragment the hint must contain (None: no check)."""


@dataclass(frozen=True)
class Case:
    id: str
    mutate: Mutation
    expected: tuple[Expect, ...]


def c(case_id: str, mutate: Mutation, *expected: Expect) -> pytest.param:
    return pytest.param(Case(case_id, mutate, expected), id=case_id)


CASES = [
    # ------------------------------------------------------------------ types and fields
    c("wrong-type-int", sub(PPO, "year: 2017", 'year: "2017"'),
      Expect("catalog/algorithms/ppo.yaml:5:7: year", "valid integer")),
    c("wrong-type-figure-value", sub(H100, "value: 989.4", 'value: "989.4"'),
      Expect("catalog/hardware/h100.yaml:4:10: bf16_dense_tflops.value", "valid number")),
    c("wrong-type-thousands-separator", sub(GB200, "value: 2500", "value: 2,500"),
      Expect("catalog/hardware/gb200.yaml:4:10: bf16_dense_tflops.value", "valid number",
             "without thousands separators")),
    c("wrong-type-list", sub(PPO, "references: [ppo_schulman]", "references: ppo_schulman"),
      Expect("catalog/algorithms/ppo.yaml:20:13: references", "valid array", "write a list")),
    c("missing-required-top", sub(PPO, "full_name: Proximal Policy Optimization\n", ""),
      Expect("catalog/algorithms/ppo.yaml:1:1: full_name", "required field is missing",
             "Expanded name.")),
    c("missing-required-nested", sub(H100, "  unit: tflops\n", ""),
      Expect("catalog/hardware/h100.yaml:4:3: bf16_dense_tflops.unit",
             "required field is missing", "Unit of `value`")),
    c("missing-source-reported", sub(
        H100, "  source: glennklockwood_h100\n  locator: 'Fixture: \"Spec",
        "  locator: 'Fixture: \"Spec"),
      Expect("catalog/hardware/h100.yaml:10:3: memory_gb.source",
             "a reported value names its source", "write status: unverified")),
    c("missing-source-unverified", sub(
        H100, "  status: reported\n  source: glennklockwood_h100\n  locator: 'Fixture: \"Spec",
        "  status: unverified\n  asserted_by: contributor\n  reported_instead: A vendor slide."
        "\n  note: 'Fixture: \"Spec"),
      Expect("catalog/hardware/h100.yaml:10:3: memory_gb.source",
             "an unverified value still names the source", "reported_instead says")),
    c("power-a-digit-short", append(H100, POWER.format(watts="7")),
      Expect("catalog/hardware/h100.yaml:16:10: power_w.value", "outside 40–4,000 W",
             "kilowatts")),
    c("power-too-low-for-its-compute", append(H100, POWER.format(watts="70")),
      Expect("catalog/hardware/h100.yaml:16:10: power_w.value", "14.13 TFLOP/s per watt",
             "datasheet")),
    c("price-per-month", append(H100, POWER.format(watts="700") + PRICES_ROWS.format(
        first="2.35", second="1700")),
      Expect("catalog/hardware/h100.yaml:33:14: rental_prices[1].price.value",
             "$1,700 per GPU-hour is $1,718.21 per dense BF16 petaFLOP-hour", "a month's")),
    c("price-in-cents", append(H100, PRICES_ROWS.format(first="235", second="2.69")),
      Expect("catalog/hardware/h100.yaml:19:14: rental_prices[0].price.value",
             "outside $0.5–$50", "cents")),
    c("unknown-field-top", sub(PPO, "async_support: false\n",
                               "async_support: false\nasync_suport: true\n"),
      Expect("catalog/algorithms/ppo.yaml:17:1: async_suport", "unknown field 'async_suport'",
             "did you mean 'async_support'?")),
    c("unknown-field-nested", sub(H100, "  value: 80\n", "  value: 80\n  units: gb\n"),
      Expect("catalog/hardware/h100.yaml:11:3: memory_gb.units", "unknown field 'units'",
             "did you mean 'unit'?")),
    c("unknown-field-in-list-item", sub(PRICES, "    train: 0.44\n",
                                        "    train: 0.44\n    trian: 0.44\n"),
      Expect("catalog/tinker/prices/2026-07-17.yaml:23:5: rows[0].trian",
             "unknown field 'trian'", "did you mean 'train'?")),
    c("derived-field-stored", sub(GRPO, "    value: 4000\n",
                                  "    value: 4000\n    h100_eq_hours: 11200\n"),
      Expect("catalog/algorithms/grpo.yaml:43:5: scalerl.C_mid.h100_eq_hours",
             "unknown field 'h100_eq_hours'", "derived")),
    # ------------------------------------------------------------------ ranges and enums
    c("percent-above-100", sub(GRPO, "    value: 50\n", "    value: 150\n"),
      Expect("catalog/algorithms/grpo.yaml:28:12: scalerl.A.value",
             "percent cannot exceed 100 (got 150)")),
    c("percent-above-100-price-list", sub(PRICES, "  value: 80\n", "  value: 180\n"),
      Expect("catalog/tinker/prices/2026-07-17.yaml:13:10: cached_prefill_discount.value",
             "percent cannot exceed 100")),
    c("negative-compute", sub(GRPO, "    value: 4000\n", "    value: -4000\n"),
      Expect("catalog/algorithms/grpo.yaml:42:12: scalerl.C_mid.value",
             "must not be negative (got -4000")),
    c("negative-price", sub(PRICES, "train: 0.44", "train: -0.44"),
      Expect("catalog/tinker/prices/2026-07-17.yaml:22:12: rows[0].train",
             "greater than or equal to 0")),
    c("bad-enum", sub(PPO, "memory_profile: high", "memory_profile: huge"),
      Expect("catalog/algorithms/ppo.yaml:9:17: memory_profile", "'low', 'medium' or 'high'")),
    c("bad-enum-in-list", sub(PPO, "[policy, reference, critic, reward_model]",
                              "[policy, reference, critic, reward]"),
      Expect("catalog/algorithms/ppo.yaml:6:47: models_in_memory[3]", "'reward_model'")),
    c("bad-enum-unit", sub(H100, "unit: gb\n", "unit: GB\n"),
      Expect("catalog/hardware/h100.yaml:11:9: memory_gb.unit", "Input should be")),
    # ------------------------------------------------------------------ YAML syntax and features
    c("invalid-yaml", sub(PPO, "attribution: Schulman et al., OpenAI",
                          "attribution: Schulman et al.: OpenAI"),
      Expect("catalog/algorithms/ppo.yaml:4:29: (file)",
             "invalid YAML: mapping values are not allowed")),
    c("invalid-yaml-tab-indent", sub(H100, "  value: 80\n", "\tvalue: 80\n"),
      Expect("catalog/hardware/h100.yaml:10:1: (file)", "a tab character in YAML",
             "spaces, never tabs")),
    c("invalid-yaml-unterminated-quote", sub(PPO, "name: PPO\n", 'name: "PPO\n'),
      Expect("catalog/algorithms/ppo.yaml:21:1: (file)",
             "invalid YAML: while scanning a quoted scalar", "starts on line 2")),
    c("duplicate-key", append(PPO, "year: 2018\n"),
      Expect("catalog/algorithms/ppo.yaml:21:1: year", "duplicate key 'year'",
             "first defined on line 5")),
    c("duplicate-key-nested", sub(H100, "  value: 80\n", "  value: 80\n  value: 81\n"),
      Expect("catalog/hardware/h100.yaml:11:3: memory_gb.value", "duplicate key 'value'",
             "first defined on line 10")),
    c("anchor-and-alias", lambda root: (
        replace_in(root, PPO, "needs_critic: true", "needs_critic: &flag true"),
        replace_in(root, PPO, "needs_reward_model: true", "needs_reward_model: *flag")),
      Expect("catalog/algorithms/ppo.yaml:7:15: needs_critic", "anchor &flag is not allowed"),
      Expect("catalog/algorithms/ppo.yaml:8:21: needs_reward_model",
             "aliases are not allowed")),
    c("merge-key", sub(H100, "memory_gb:\n", "memory_gb:\n  <<: {approx: true}\n"),
      Expect("catalog/hardware/h100.yaml:10:3: memory_gb", "merge keys")),
    c("custom-tag", sub(PPO, "tinker_losses: [ppo]", "tinker_losses: !losses [ppo]"),
      Expect("catalog/algorithms/ppo.yaml:17:16: tinker_losses", "custom YAML tag '!losses'")),
    c("python-tag", sub(PPO, "year: 2017", "year: !!python/name:os.system 2017"),
      Expect("catalog/algorithms/ppo.yaml:5:7: year", "custom YAML tag")),
    c("non-utf8", lambda root: (root / PPO).write_bytes(
        (root / PPO).read_bytes().replace(b"name: PPO\n", b"name: PP\xd6\n")),
      Expect("catalog/algorithms/ppo.yaml:2:9: (file)", "invalid UTF-8 byte 0xd6",
             "UTF-8")),
    c("empty-file", put("algorithms/dapo.yaml", ""),
      Expect("catalog/algorithms/dapo.yaml:1:1: (file)", "file is empty")),
    c("comments-only-file", put("algorithms/dapo.yaml", "# TODO: fill in\n\n"),
      Expect("catalog/algorithms/dapo.yaml:1:1: (file)", "file is empty")),
    c("document-marker-only", put("algorithms/dapo.yaml", "---\n...\n"),
      Expect("catalog/algorithms/dapo.yaml:1:1: (file)", "file is empty")),
    c("top-level-list", put("algorithms/dapo.yaml", "- id: dapo\n"),
      Expect("catalog/algorithms/dapo.yaml:1:1: (file)", "top level must be a mapping")),
    c("not-finite", sub(H100, "value: 989.4", "value: .inf"),
      Expect("catalog/hardware/h100.yaml:4:10: bf16_dense_tflops.value", "must be finite")),
    # ------------------------------------------------------------------ YAML 1.1 booleans
    *[
        c(f"yaml11-boolean-{word}", sub(PPO, "needs_critic: true", f"needs_critic: {word}"),
          Expect("catalog/algorithms/ppo.yaml:7:15: needs_critic", "valid boolean",
                 f"write true or false; {word!r} is read as text"))
        for word in ("yes", "no", "on", "off")
    ],
    # ------------------------------------------------------------------ ids and links
    c("id-differs-from-file-name", sub(PPO, "id: ppo\n", "id: ppo-v2\n"),
      Expect("catalog/algorithms/ppo.yaml:1:5: id", "id 'ppo-v2' differs from the file name",
             "rename the file to ppo-v2.yaml or set id: ppo")),
    c("bad-id-pattern", sub(PPO, "id: ppo\n", "id: PPO\n"),
      Expect("catalog/algorithms/ppo.yaml:1:5: id", "should match pattern")),
    c("unknown-source", sub(CONVERSION, "source: original_site", "source: original_sight"),
      Expect("catalog/conversions/gb200_to_h100.yaml:11:11: legacy_factor.source",
             "unknown reference 'original_sight'", "did you mean 'original_site'?")),
    c("unknown-reference", sub(PPO, "[ppo_schulman]", "[ppo_schulmann]"),
      Expect("catalog/algorithms/ppo.yaml:20:14: references[0]",
             "unknown reference 'ppo_schulmann'", "did you mean 'ppo_schulman'?")),
    c("unknown-reference-no-close-match", sub(PPO, "[ppo_schulman]", "[williams1992]"),
      Expect("catalog/algorithms/ppo.yaml:20:14: references[0]",
             "unknown reference 'williams1992'", "add catalog/references/williams1992.yaml")),
    c("unknown-tinker-loss", sub(PPO, "tinker_losses: [ppo]", "tinker_losses: [cispo]"),
      Expect("catalog/algorithms/ppo.yaml:17:17: tinker_losses[0]",
             "unknown Tinker loss 'cispo'")),
    c("unknown-price-row-model", sub(PRICES, "model: qwen3-8b", "model: qwen3-9b"),
      Expect("catalog/tinker/prices/2026-07-17.yaml:19:12: rows[0].model",
             "unknown model 'qwen3-9b'", "did you mean 'qwen3-8b'?")),
    c("unknown-hardware", sub(CONVERSION, "from_hardware: gb200", "from_hardware: gb300"),
      Expect("catalog/conversions/gb200_to_h100.yaml:2:16: from_hardware",
             "unknown hardware 'gb300'", "did you mean 'gb200'?")),
    # ------------------------------------------------------------------ formulas
    c("undeclared-variable", sub(FORMULA, "expression: 2 * P_active",
                                 "expression: 2 * P_active * T"),
      Expect("catalog/formulas/rollout_flops.yaml:6:13: expression",
             "variable 'T' is not declared", "declare it under variables")),
    c("misspelt-variable", sub(FORMULA, "expression: 2 * P_active", "expression: 2 * P_activ"),
      Expect("catalog/formulas/rollout_flops.yaml:6:13: expression",
             "variable 'P_activ' is not declared", "did you mean 'P_active'?"),
      Expect("catalog/formulas/rollout_flops.yaml:9:11: variables[0].name",
             "variable 'P_active' is not used")),
    c("declared-unused-variable", sub(FORMULA, "    example: 8.0e9\n", (
        "    example: 8.0e9\n"
        "  - name: T\n"
        "    symbol: T\n"
        "    meaning: Tokens\n"
        "    unit: tokens\n"
        "    example: 1000\n")),
      Expect("catalog/formulas/rollout_flops.yaml:14:11: variables[1].name",
             "variable 'T' is not used", "remove it or use it")),
    c("expression-with-call", sub(FORMULA, "expression: 2 * P_active",
                                  "expression: max(2 * P_active, 1)"),
      Expect("catalog/formulas/rollout_flops.yaml:6:13: expression", "Call is not allowed")),
    c("expression-with-attribute", sub(FORMULA, "expression: 2 * P_active",
                                       "expression: 2 * P_active.real"),
      Expect("catalog/formulas/rollout_flops.yaml:6:13: expression",
             "Attribute is not allowed")),
    # ------------------------------------------------------------------ URLs and prose
    *[
        c(f"url-{scheme}", sub(REFERENCE, "url: https://blog.eleuther.ai/transformer-math/",
                               f"url: {bad}"),
          Expect("catalog/references/transformer_math.yaml:6:6: url",
                 "must be an absolute http:// or https:// URL"))
        for scheme, bad in (("ftp", "ftp://blog.eleuther.ai/transformer-math/"),
                            ("javascript", "javascript:alert(1)"),
                            ("relative", "/transformer-math/"))
    ],
    c("script-link-in-prose", sub(PPO, "  The clipped-ratio objective",
                                  "  The [clipped-ratio](javascript:alert(1)) objective"),
      Expect("catalog/algorithms/ppo.yaml:18:8: notes", "links must be http(s)")),
    c("script-tag-in-prose", sub(PPO, "  The clipped-ratio objective",
                                 "  The <script>alert(1)</script> clipped-ratio objective"),
      Expect("catalog/algorithms/ppo.yaml:18:8: notes", "raw HTML is not allowed")),
    c("html-tag-in-short-text", sub(PPO, "name: PPO\n", "name: <b>PPO</b>\n"),
      Expect("catalog/algorithms/ppo.yaml:2:7: name", "raw HTML is not allowed")),
    c("html-comment-in-prose", sub(GRPO, "Drops the critic", "Drops the critic <!-- todo -->"),
      Expect("catalog/algorithms/grpo.yaml:48:8: notes", "raw HTML is not allowed")),
    # ------------------------------------------------------------------ provenance and logic
    c("unverified-without-reported-instead", sub(
        CONVERSION, "  reported_instead: No source gives 2.8; the dense BF16 ratio is about 2.5.\n",
        ""),
      Expect("catalog/conversions/gb200_to_h100.yaml:9:11: legacy_factor.status",
             "an unverified figure needs `reported_instead`")),
    c("unverified-without-asserted-by", sub(CONVERSION, "  asserted_by: original_site\n", ""),
      Expect("catalog/conversions/gb200_to_h100.yaml:9:11: legacy_factor.status",
             "an unverified value needs `asserted_by`",
             "original_site, contributor, secondary_source")),
    c("asserted-by-on-a-reported-figure", sub(PRICES, "\nstatus: reported\n",
                                              "\nstatus: reported\nasserted_by: contributor\n"),
      Expect("catalog/tinker/prices/2026-07-17.yaml:5:1: asserted_by",
             "`asserted_by` is only for unverified values (status: reported)",
             "remove asserted_by")),
    c("asserted-by-typo", sub(CONVERSION, "asserted_by: original_site",
                              "asserted_by: orignal_site"),
      Expect("catalog/conversions/gb200_to_h100.yaml:10:16: legacy_factor.asserted_by",
             "Input should be")),
    c("needs-critic-inconsistent", sub(PPO, "needs_critic: true", "needs_critic: false"),
      Expect("catalog/algorithms/ppo.yaml:7:15: needs_critic",
             "needs_critic is false but models_in_memory has critic")),
    c("needs-reward-model-inconsistent", sub(GRPO, "needs_reward_model: false",
                                             "needs_reward_model: true"),
      Expect("catalog/algorithms/grpo.yaml:8:21: needs_reward_model",
             "needs_reward_model is true but models_in_memory lacks reward_model")),
    c("high-below-value", sub("tinker/tinker.yaml", "    high: 4\n", "    high: 1\n"),
      Expect("catalog/tinker/tinker.yaml:50:11: setup_cost.duration.high",
             "high (1) is below value (2)")),
    c("wrong-unit-for-slot", sub(GRPO, "    unit: gb200_hours\n", "    unit: gpu_hours\n"),
      Expect("catalog/algorithms/grpo.yaml:43:11: scalerl.C_mid.unit",
             "C_mid must be in gb200_hours (got gpu_hours)")),
    c("list-for-one-value", sub(PPO, "name: PPO", "name: [PPO]"),
      Expect("catalog/algorithms/ppo.yaml:2:7: name", "Input should be a valid string",
             "this field takes one value, not a list: write name: PPO")),
    c("mapping-for-one-value", sub(PPO, "year: 2017", "year:\n  value: 2017"),
      Expect("catalog/algorithms/ppo.yaml:6:3: year", "Input should be a valid integer",
             "not fields below it: write year: ... on one line")),
    c("number-for-text", sub(PPO, "name: PPO", "name: 2017"),
      Expect("catalog/algorithms/ppo.yaml:2:7: name", "Input should be a valid string",
             'put text in quotes: write "2017"')),
    # ------------------------------------------------------------------ files and folders
    c("unknown-folder", put("algorithm/dapo.yaml", "id: dapo\n"),
      Expect("catalog/algorithm/dapo.yaml:1:1: (file)", "algorithm/ is not a catalog folder",
             "algorithms/")),
    c("file-at-catalog-root", put("grpo.yaml", "id: grpo\n"),
      Expect("catalog/grpo.yaml:1:1: (file)", "is not a catalog folder")),
    c("yml-extension", put("algorithms/dapo.yml", "id: dapo\n"),
      Expect("catalog/algorithms/dapo.yml:1:1: (file)", "catalog files end in .yaml",
             "rename to dapo.yaml")),
    c("upper-case-extension", put("algorithms/dapo.YAML", "id: dapo\n"),
      Expect("catalog/algorithms/dapo.YAML:1:1: (file)", "catalog files end in .yaml",
             "rename to dapo.yaml")),
]


@pytest.mark.parametrize("case", CASES)
def test_single_mistake_is_reported_exactly(tmp_path: Path, case: Case) -> None:
    root = copy_valid(tmp_path)
    case.mutate(root)
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1, run.out
    assert sorted(run.wheres) == sorted(e.where for e in case.expected), run.out
    by_where = {p.where: p for p in run.problems}
    for expect in case.expected:
        reported = by_where[expect.where]
        assert expect.message in reported.message, run.out
        if expect.hint is not None:
            assert reported.hint is not None and expect.hint in reported.hint, run.out
    assert f"{len(case.expected)} problem(s)" in run.err


def test_oversized_file(tmp_path: Path) -> None:
    from tinkernomics.catalog.yamlread import MAX_FILE_BYTES

    root = copy_valid(tmp_path)
    padding = b"# padding to exceed the size limit\n" * (MAX_FILE_BYTES // 35 + 1)
    append(PPO, padding)(root)
    size = (root / PPO).stat().st_size
    assert size > MAX_FILE_BYTES
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1
    assert run.wheres == ["catalog/algorithms/ppo.yaml:1:1: (file)"]
    assert run.problems[0].message == f"file is {size} bytes; the limit is {MAX_FILE_BYTES}"


def test_file_at_the_size_limit_is_read(tmp_path: Path) -> None:
    from tinkernomics.catalog.yamlread import MAX_FILE_BYTES

    root = copy_valid(tmp_path)
    size = (root / PPO).stat().st_size
    append(PPO, b"#" * (MAX_FILE_BYTES - size - 1) + b"\n")(root)
    assert (root / PPO).stat().st_size == MAX_FILE_BYTES
    assert run_validate(tmp_path, "catalog").code == 0


def test_unreadable_file_is_a_problem_not_a_crash(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    root = copy_valid(tmp_path)
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "ppo.yaml" and self.parent.name == "algorithms":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1
    assert run.wheres == ["catalog/algorithms/ppo.yaml:1:1: (file)"]
    assert run.problems[0].message == "cannot read the file: Permission denied"
    assert root.is_dir()
