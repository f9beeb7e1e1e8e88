"""What Tinker cannot run, as graph quantities (pipeline step 5): the estimate's own flag.

Tinker's limits are catalog facts (``TinkerPlatform.gaps`` in ``catalog/tinker/tinker.yaml``:
LoRA only, no critic), read by the same rule as every way to run's gaps (``derived/ways.py``
``gap_reason``). ``quantities`` turns them into ``tinker.no`` (1 where a gap the run needs
applies), which ``model.totals`` reads so that the Tinker bill, and every break-even made
from it, is missing for a run Tinker cannot do; ``reasons`` gives the page each gap's
condition and reason, its source named, escaped for the calculator's templates.
"""

from __future__ import annotations

import html

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.models.ways import Capability, Gap
from tinkernomics.derived.calculator.graph import Quantity

NEEDS: dict[Capability, str] = {
    Capability.online_rl: "run.online", Capability.offline: "(1 - run.online)",
    Capability.teacher: "role.teacher", Capability.critic: "role.critic",
    Capability.reward_model: "role.reward_model", Capability.reference_kl: "role.reference",
    Capability.full_finetune: "(1 - run.lora)",
}
"""What a run needs, as a flag of the estimate's inputs (``ways.needs_of``)."""

WORDS: dict[Capability, str] = {
    Capability.online_rl: "online RL (sampling from the policy)",
    Capability.offline: "offline training on a fixed dataset",
    Capability.teacher: "a teacher model", Capability.critic: "a critic (value model)",
    Capability.reward_model: "a learned reward model",
    Capability.reference_kl: "a KL penalty to a reference model",
    Capability.full_finetune: "full fine-tuning",
}
"""What a run needs, in the reader's words (never the capability's name, "reference_kl")."""


def tinker_gaps(catalog: Catalog) -> list[Gap]:
    """What Tinker cannot run, empty without the platform entry (a fixture catalog)."""
    platform = catalog.platform
    return list(platform.gaps) if platform is not None else []


def needed(gaps: list[Gap]) -> str:
    """1 where the run needs something one of ``gaps`` names, else 0 (an expression)."""
    terms = [NEEDS[gap.needs] for gap in gaps]
    return f"({' + '.join(terms)}) > 0" if terms else "0.0"


def quantities(catalog: Catalog) -> list[Quantity]:
    """``tinker.no``: 1 where Tinker cannot run the job (read before the Tinker bill)."""
    return [Quantity("tinker.no", needed(tinker_gaps(catalog)), format="number",
    label="Tinker cannot run it",
                     shown=False)]


def template_text(text: str) -> str:
    """Catalog text made safe inside a calculator template: HTML-escaped, and its braces
    written as entities so that no ``{key}`` in it is ever filled."""
    return html.escape(text).replace("{", "&#123;").replace("}", "&#125;")


def reasons(catalog: Catalog) -> list[tuple[str, str]]:
    """(condition, reader text) of each Tinker gap, in catalog order: 'not offered' with the
    reason and its source's title."""
    found = []
    for gap in tinker_gaps(catalog):
        ref = catalog.references.get(gap.source)
        source = ref.title if ref is not None else gap.source
        badge = "" if gap.status.value == "reported" else f" ({gap.status.value})"
        found.append((NEEDS[gap.needs], template_text(
            f"Not offered: {gap.reason}. Source: {source}{badge}.")))
    return found
