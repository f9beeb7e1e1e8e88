"""One run reports everything: a tab in a file no longer hides the file's other mistakes."""

from __future__ import annotations

from pathlib import Path

from helpers_catalog import copy_valid, run_validate

PPO = "algorithms/ppo.yaml"

BROKEN = """\
id: ppo
name: PPO
full_name: Proximal Policy Optimization
attribution: Schulman et al., OpenAI
year: 2017a
models_in_memory: [policy, reference, critic, reward_model]
needs_critic: maybe
needs_reward_model: true
memory_profile: enormous
typical_k:
\tvalues: [4]
  status: unverified
  asserted_by: original_site
  source: original_site
  reported_instead: The PPO paper uses 3 to 15 epochs per batch, depending on the task.
async_support: false
tinker_losses: [ppo]
colour: blue
notes: >-
  The clipped-ratio objective with a learned value model; four models share the accelerators.
references: [ppo_schulman, no_such_reference]
"""


def test_a_tab_and_five_other_mistakes_are_reported_in_one_run(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    (root / PPO).write_text(BROKEN, encoding="utf-8")
    run = run_validate(tmp_path, "catalog")
    assert run.code == 1
    where = {(p.where.split(":")[1], p.where.split(": ")[-1]) for p in run.problems
             if PPO in p.where}
    assert where >= {("11", "(file)"), ("5", "year"), ("7", "needs_critic"),
                     ("9", "memory_profile"), ("18", "colour"), ("21", "references[1]")}, run.out
    tab = next(p for p in run.problems if p.where.endswith("(file)"))
    assert tab.where == f"catalog/{PPO}:11:1: (file)"
    assert tab.hint and "spaces, never tabs" in tab.hint


def test_two_tabs_take_one_run(tmp_path: Path) -> None:
    root = copy_valid(tmp_path)
    text = (root / PPO).read_text(encoding="utf-8")
    text = text.replace("  values: [4]\n", "\tvalues: [4]\n").replace(
        "  status: unverified\n", "\tstatus: unverified\n", 1)
    (root / PPO).write_text(text, encoding="utf-8")
    run = run_validate(tmp_path, "catalog")
    assert [w for w in run.wheres if PPO in w] == [f"catalog/{PPO}:11:1: (file)",
                                                   f"catalog/{PPO}:12:1: (file)"], run.out
