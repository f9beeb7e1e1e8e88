"""What Tinker cannot run, as graph quantities (pipeline step 5): the estimate's own flag.

Tinker's limits are catalog facts (``TinkerPlatform.gaps`` in ``catalog/tinker/tinker.yaml``:
LoRA only, no critic, context), read by the same rule as every way to run's gaps
(``derived/ways.py`` ``gap_reason``). ``quantities`` turns them into ``tinker.no`` (1 where a
gap the run needs applies), which ``model.totals`` reads so that the Tinker bill, and every
break-even made from it, is missing for a run Tinker cannot do; ``reasons`` gives the page each
gap's condition and reason, its source named, escaped for the calculator's templates.

Context (issue 44): a run needs its whole episode's context per sequence
(``tokens.context``: the prompt, every turn's growth and the completion cap, as the time
model holds a sequence, ``timing``). The context a price row serves is the one its variant states
(``served_context``: ``:peft:<tokens>``, as the context gap's locator quotes the cookbook);
a plain row's is not in the catalog (``price.context`` missing), so nothing is blocked there,
but ``context_notes`` says so where the run exceeds the model's own ``context_limit``, which
is flagged for every way to run (no way serves more context than the model has).
"""

from __future__ import annotations

import html
import re

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.models.ways import Capability, Gap
from tinkernomics.derived.calculator.graph import Quantity

NEEDS: dict[Capability, str] = {
    Capability.online_rl: "run.online", Capability.offline: "(1 - run.online)",
    Capability.teacher: "role.teacher", Capability.critic: "role.critic",
    Capability.reward_model: "role.reward_model", Capability.reference_kl: "role.reference",
    Capability.full_finetune: "(1 - run.lora)",
    Capability.context_length: "(tokens.context > coalesce(price.context, tokens.context))",
}
"""What a run needs, as a flag of the estimate's inputs (``ways.needs_of``)."""

WORDS: dict[Capability, str] = {
    Capability.online_rl: "online RL (sampling from the policy)",
    Capability.offline: "offline training on a fixed dataset",
    Capability.teacher: "a teacher model", Capability.critic: "a critic (value model)",
    Capability.reward_model: "a learned reward model",
    Capability.reference_kl: "a KL penalty to a reference model",
    Capability.full_finetune: "full fine-tuning",
    Capability.context_length: "a context longer than it serves for the model",
}
"""What a run needs, in the reader's words (never the capability's name, "reference_kl")."""

ROW_LIMITS = frozenset({Capability.context_length})
"""Needs a price row limits, not a service's docs in general: no caveat ('its docs do not say
whether it runs ...') is drawn from them for a way that lists what it runs."""

PEFT = re.compile(r"^:peft:(?P<tokens>[1-9][0-9]*)$")
"""A long-context variant's suffix: its number is the context it serves, in tokens (the
cookbook's AGENTS.md line 90, quoted by the context gap's locator in tinker.yaml)."""

OVER_MODEL = "(tokens.context > coalesce(model.context, tokens.context))"
"""1 where the run's sequences are longer than the model's own context limit (any way)."""


def served_context(variant: str | None) -> float | None:
    """The context a price row serves, from its variant (``:peft:131072``: 131,072 tokens);
    None for a plain row or any other suffix: not in the catalog."""
    found = PEFT.match(variant or "")
    return float(found["tokens"]) if found else None


def over(needed: float | None, limit: float | None) -> bool:
    """A known need above a known limit (``NEEDS[context_length]``, ``OVER_MODEL``)."""
    return needed is not None and limit is not None and needed > limit


def context_reason(reason: str, needed: float, row: str, served: float) -> str:
    """The context gap's reason with its numbers: what the run needs, what the row serves."""
    return f"{reason}: needs {needed:,.0f} tokens of context; Tinker's {row} serves {served:,.0f}"


CONTEXT_TAIL = (": needs {tokens.context:count} tokens of context; Tinker's "
                "{model_name:text}{variant:text} serves {price.context:count}")
"""``context_reason`` as a calculator template (after the escaped catalog reason)."""


def tinker_gaps(catalog: Catalog) -> list[Gap]:
    """What Tinker cannot run, empty without the platform entry (a fixture catalog)."""
    platform = catalog.platform
    return list(platform.gaps) if platform is not None else []


def needed(gaps: list[Gap]) -> str:
    """1 where the run needs something one of ``gaps`` names, else 0 (an expression)."""
    terms = [NEEDS[gap.needs] for gap in gaps]
    return f"({' + '.join(terms)}) > 0" if terms else "0.0"


CONTEXT = "run.C0 + run.delta * (run.T - 1) + tokens.completion_cap"
"""Tokens of context one sequence needs: the last turn's prompt (the first prompt and every
earlier turn's growth) and the completion cap (the mean where no cap is given)."""


def quantities(catalog: Catalog) -> list[Quantity]:
    """``tokens.context`` (what a sequence needs) and ``tinker.no``: 1 where Tinker cannot
    run the job (read before the Tinker bill)."""
    return [Quantity("tokens.context", CONTEXT, format="count", label="Context per sequence",
                     shown=False),
            Quantity("tinker.no", needed(tinker_gaps(catalog)), format="number",
                     label="Tinker cannot run it", shown=False)]


def template_text(text: str) -> str:
    """Catalog text made safe inside a calculator template: HTML-escaped, and its braces
    written as entities so that no ``{key}`` in it is ever filled."""
    return html.escape(text).replace("{", "&#123;").replace("}", "&#125;")


def gap_template(gap: Gap) -> str:
    """A gap's reason as calculator template text (escaped), a context gap's with its numbers
    (``CONTEXT_TAIL``)."""
    tail = CONTEXT_TAIL if gap.needs == Capability.context_length else ""
    return template_text(gap.reason) + tail


def reasons(catalog: Catalog) -> list[tuple[str, str]]:
    """(condition, reader text) of each Tinker gap, in catalog order: 'not offered' with the
    reason and its source's title."""
    found = []
    for gap in tinker_gaps(catalog):
        ref = catalog.references.get(gap.source)
        source = ref.title if ref is not None else gap.source
        badge = "" if gap.status.value == "reported" else f" ({gap.status.value})"
        found.append((NEEDS[gap.needs], "Not offered: " + gap_template(gap)
                      + template_text(f". Source: {source}{badge}.")))
    return found


def context_notes() -> list[tuple[str, str]]:
    """(condition, template) of the calculator's note where the run's sequences are longer
    than the model's own context limit: true of every way to run; and where Tinker's row
    states no context, that the catalog does not hold it (nothing is blocked then)."""
    over_model = ("This run's episodes need {tokens.context:count} tokens of "
                  "context per sequence, more than {model_name:text}'s own context limit of "
                  "{model.context:count}: no way to run it serves that without truncating")
    unknown = ("; the context Tinker serves for {model_name:text}{variant:text} is not in the "
               "catalog (only a <code>:peft:&lt;tokens&gt;</code> variant states it)")
    return [(f"({OVER_MODEL}) * missing(price.context) * (1 - missing(price.prefill))",
             over_model + unknown + "."),
            (OVER_MODEL, over_model + ".")]


def context_lines(model_name: str, row: str, needed: float | None,
                  model_limit: float | None, served: float | None, priced: bool) -> list[str]:
    """``context_notes`` as plain lines (the command line): the run over the model's own
    context limit, and whether the catalog states the context Tinker's row serves."""
    if not over(needed, model_limit):
        return []
    line = (f"context: this run's episodes need {needed:,.0f} tokens of context per sequence, "
            f"more than {model_name}'s own context limit of {model_limit:,.0f}: no way to run "
            "it serves that without truncating")
    if priced and served is None:
        line += f"; the context Tinker serves for {row} is not in the catalog"
    return [line]
