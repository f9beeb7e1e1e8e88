"""One estimate: a link's query -> inputs -> the evaluated graph (pipeline step 5).

``environment`` looks up what a ``Choice`` names in the catalog and flattens it into the graph's
input values (lookups and 0/1 flags only, no arithmetic); ``calculator.js`` does the same over
the tables the page ships. ``estimate`` evaluates the graph: the reference results the page,
the algorithm pages and the tests use.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any

from tinkernomics.catalog import models as m
from tinkernomics.catalog.entries import Catalog
from tinkernomics.derived import derive
from tinkernomics.derived.calculator import (
    backtest,
    heldout,
    ids,
    inputs,
    limits,
    model,
    offline,
    semantics,
)
from tinkernomics.derived.calculator.constants import default_gpu_price
from tinkernomics.derived.calculator.graph import Graph, evaluate, numbers

_GRAPHS: dict[int, tuple[Catalog, Graph]] = {}
_ESTIMATES: OrderedDict[int, tuple[Catalog, dict[Hashable, Estimate]]] = OrderedDict()
_ESTIMATE_CATALOGS = 4
"""Catalog objects whose estimates are kept (a build has one; tests make many)."""


def can_estimate(catalog: Catalog) -> bool:
    """True if the catalog holds every formula the cost model reads (a fixture catalog may not;
    the site's own catalog must: ``site/needs.py``)."""
    return all(fid in catalog.formulas for fid in ids.FORMULA_IDS)


def graph_for(catalog: Catalog) -> Graph:
    """The catalog's graph, built once per catalog object."""
    cached = _GRAPHS.get(id(catalog))
    if cached is None or cached[0] is not catalog:
        cached = _GRAPHS[id(catalog)] = (catalog, model.build(catalog))
        _add_ranges(catalog, cached[1])
    return cached[1]


def _add_ranges(catalog: Catalog, graph: Graph) -> None:
    """Add the published runs' spread (``backtest.range_quantities``) and the held-out runs'
    at first sight (``heldout.range_quantities``): the runs are estimated on the graph without
    them, then their cached estimates are dropped, as they lack them."""
    found = backtest.rows(catalog, estimate)
    graph.add(*backtest.range_quantities(found), *heldout.range_quantities(found))
    _ESTIMATES.pop(id(catalog), None)


def _flag(value: bool) -> float:
    return 1.0 if value else 0.0


def _fig(fig: m.Figure | None) -> float | None:
    return None if fig is None else fig.value


@dataclass(frozen=True)
class Resolved:
    """What a choice names: the roles in use and the ids of every entry read (for provenance)."""

    choice: inputs.Choice
    roles: tuple[str, ...]
    names: dict[str, str]
    """Ids and names the page and the figure keys read: model, teacher, row keys, formulas."""


@dataclass(frozen=True)
class Held:
    """The roles a run keeps for one setting of "score against the reference" and "a learned
    reward model scores" (the link's flags), whether one of them is a teacher, and the roles
    Tinker does not run, as text."""

    roles: tuple[str, ...]
    teacher: bool
    reference: bool
    """The reference model is scored (what the form's box shows)."""
    not_covered: str
    reward_model: bool = False
    """A learned reward model scores every completion (what the form's box shows)."""


def held(algo: m.Algorithm, score_reference: bool | None,
         score_reward_model: bool | None = None) -> Held:
    """The algorithm's roles in memory; a link's reference flag adds or drops the reference,
    its reward flag the learned reward model (off: the reward is a rule or verifier)."""
    in_memory = semantics.switch_role(
        semantics.switch_role(semantics.default_roles(algo), "reference", score_reference),
        "reward_model", score_reward_model)
    roles = tuple(in_memory)
    return Held(roles, "teacher" in roles, "reference" in roles, " and ".join(
        x.replace("_", " ") for x in roles if x in ("critic", "reward_model")),
        "reward_model" in roles)


HELD_BY_FLAG: dict[str, bool | None] = {"": None, "1": True, "0": False}
"""A role flag's link values (absent, on, off) -> ``held``'s argument; the page ships ``held``
for each pair of the reference and reward flags (``held_by_flags``), so calculator.js holds no
role rule."""


def held_by_flags(algo: m.Algorithm) -> dict[str, dict[str, Held]]:
    """``held`` by the reference flag's link value, then the reward flag's."""
    return {ref: {rw: held(algo, r, w) for rw, w in HELD_BY_FLAG.items()}
            for ref, r in HELD_BY_FLAG.items()}


def formula_names(lora: bool, lora_flops: str) -> dict[str, str]:
    """The formulas a run's training FLOPs and VRAM are priced by (``train_formula``,
    ``vram_formula``); the page ships them for every choice (``FORMULA_NAMES``)."""
    return {"train_formula": ids.LORA_FLOP_FORMULAS[lora_flops] if lora else ids.FLOPS_FULL,
            "vram_formula": ids.VRAM_LORA if lora else ids.VRAM_FULL}


FORMULA_NAMES = {str(lora).lower(): {lf: formula_names(lora, lf) for lf in inputs.LORA_FLOPS}
                 for lora in (True, False)}
"""``formula_names`` by LoRA (``"true"``/``"false"``, as JavaScript writes a boolean) and
LoRA FLOP accounting."""


def resolve(catalog: Catalog, c: inputs.Choice) -> Resolved:
    algo, model_entry = catalog.algorithms[c.algorithm], catalog.models[c.model]
    plist, hw = catalog.price_lists[c.price_list], catalog.hardware[c.hardware]
    kept = held(algo, c.score_reference, c.score_reward_model)
    roles = kept.roles
    teacher = c.teacher if kept.teacher else ""
    row = inputs.price_row(plist, c.model, c.variant)
    teacher_row = inputs.price_row(plist, teacher, "") if teacher else None
    names = {
        "model": c.model, "teacher": teacher, "algorithm": c.algorithm, "hw": c.hardware,
        "price_list": c.price_list, "hw_name": hw.name,
        "model_name": ("a model given by its architecture figures"
                       if c.numbers.get("set.arch.params_b") is not None else model_entry.name),
        "algorithm_name": algo.name, "fit_on": fit_setting(algo),
        "row": inputs.row_key(plist, row) if row else "",
        "variant": (row.variant or "") if row else "",
        "teacher_row": inputs.row_key(plist, teacher_row) if teacher_row else "",
        "not_covered": kept.not_covered,
        "critic": c.critic if "critic" in roles else "",
        "reward_model": c.reward_model if "reward_model" in roles else "",
        **formula_names(c.lora, c.lora_flops),
    }
    return Resolved(c, roles, names)


def cookbook_models(catalog: Catalog) -> set[str]:
    """Models the cookbook pin names (``derived/recipe.py``): the recipe can name them."""
    pin = catalog.of("cookbook").get(ids.COOKBOOK_PIN)
    return {n.model for n in pin.model_names} if pin is not None else set()


def model_inputs(catalog: Catalog, model_id: str) -> dict[str, float | None]:
    """A model's graph inputs (``model.<field>``, and ``teacher.<field>`` for a teacher)."""
    mod = catalog.models[model_id]
    shape = mod.shape
    return {"total_b": mod.total_params.value, "active_b": derive.active_params_billion(mod),
            "d_model": _fig(mod.d_model),
            "cookbook": _flag(model_id in cookbook_models(catalog)),
            **{name: _fig(getattr(shape, field)) if shape else None
               for name, field in SHAPE_INPUTS.items()}}


SHAPE_INPUTS = {"layers": "layers", "heads": "attention_heads",
                "kv_heads": "kv_heads", "head_dim": "head_dim", "kv_latent": "kv_latent_dim",
                "kv_layers": "kv_layers", "state_layers": "fixed_state_layers",
                "state_size": "fixed_state_size",
                "window": "sliding_window", "sliding": "sliding_layers", "mlp": "mlp_size",
                "expert_mlp": "expert_mlp_size", "experts": "experts", "vocab": "vocab_size",
                "context": "context_limit"}
"""Graph input (``model.<name>``) -> the model's architecture figure (``shape.<field>``)."""


def hardware_inputs(catalog: Catalog, hw_id: str) -> dict[str, float | None]:
    """A GPU's graph inputs (``hw.<field>``); a GPU without a dated rental price has no price
    (its run is sized and timed, not priced)."""
    hw = catalog.hardware[hw_id]
    return {"tflops": hw.bf16_dense_tflops.value, "memory_gb": hw.memory_gb.value,
            "bandwidth": _fig(hw.bandwidth_tb_s),
            "price": default_gpu_price(catalog, hw_id) if hw.rental_prices else None}


def row_inputs(row: m.PriceRow | None) -> dict[str, float | None]:
    """A price row's graph inputs (``price.<field>``; missing without a row): its prices and
    the context its variant states (``limits.served_context``; missing for a plain row)."""
    return {"prefill": row.prefill if row else None, "sample": row.sample if row else None,
            "train": row.train if row else None,
            "context": limits.served_context(row.variant) if row else None}


def fit_setting(algo: m.Algorithm) -> str:
    """Where the algorithm's ScaleRL fit was made (its model and data), as the catalog states
    it; empty without a fit (``fit_on`` in calculator.js)."""
    fit = algo.scalerl
    return f"{fit.model}, {fit.dataset}" if fit else ""


def fit_inputs(algo: m.Algorithm) -> dict[str, float | None]:
    """An algorithm's ScaleRL fit as graph inputs (``fit.<field>``; missing without a fit)."""
    fit = algo.scalerl
    return {"A": _fig(fit.A) if fit else None, "B": _fig(fit.B) if fit else None,
            "C_mid": _fig(fit.C_mid) if fit else None, "R0": _fig(fit.R0) if fit else None}


SIZED_ROLES = {"critic": "critic", "reward": "reward_model"}
"""Graph prefix -> the resolved name of a role priced at its own model's size when the link
names one (``critic.total_b``...); unnamed, its inputs are missing and the role takes the
policy's size (``resources.parameters``)."""


def prefixed(prefix: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """``{"a": 1}`` -> ``{"<prefix>.a": 1}`` (calculator.js ``prefixed``)."""
    return {f"{prefix}.{k}": v for k, v in values.items()}


def algorithm_env(algo: m.Algorithm) -> dict[str, float | None]:
    """The graph inputs an algorithm alone sets (shipped as its file's ``env``): an offline
    method's data shape (issue 44), rollouts, oversampling, roles, ScaleRL fit, typical G, K."""
    in_memory = set(semantics.default_roles(algo))
    return {
        **offline.overrides(algo),
        "run.online": _flag(semantics.rollouts(algo)),
        "algo.oversample": semantics.oversampling(algo),
        **{f"algo.role.{role}": _flag(role in in_memory) for role in inputs.ROLES},
        **prefixed("fit", fit_inputs(algo)), **prefixed("algo", inputs.typical(algo)),
    }


def role_env(roles: tuple[str, ...]) -> dict[str, float]:
    """The roles a run keeps as graph inputs (``role.<role>``: 1 or 0; shipped in ``held``)."""
    return {f"role.{role}": _flag(role in roles) for role in inputs.ROLES}


def price_list_env(plist: m.PriceList) -> dict[str, float | None]:
    """A price list's own graph inputs (shipped as its table's ``env``)."""
    return {"price.cache": _fig(plist.cached_prefill_discount),
            "price.storage": _fig(plist.storage_usd_per_gb_month)}


def _role_model(catalog: Catalog, model_id: str, policy: dict[str, Any]) -> dict[str, Any]:
    """A teacher's, critic's or reward model's shape inputs: its own model's where the link
    names one, else every one missing (the graph then takes the policy's, ``policy``'s keys)."""
    return model_inputs(catalog, model_id) if model_id else dict.fromkeys(policy)


def environment(catalog: Catalog, r: Resolved) -> dict[str, Any]:
    """The graph's input values for a resolved choice (``inputs`` in calculator.js, which
    reads ``algorithm_env``, ``role_env`` and ``price_list_env`` as shipped data)."""
    c = r.choice
    algo, plist = catalog.algorithms[c.algorithm], catalog.price_lists[c.price_list]
    teacher = r.names["teacher"]
    teacher_row = inputs.price_row(plist, teacher, "") if teacher else None
    model = model_inputs(catalog, c.model)
    return {
        **c.numbers, **algorithm_env(algo), **role_env(r.roles), **price_list_env(plist),
        **{i.flag[0]: _flag(getattr(c, i.sets) == i.flag[1]) for i in inputs.INPUTS if i.flag[0]},
        **prefixed("model", model),
        **{k: v for prefix, name in {"teacher": "teacher", **SIZED_ROLES}.items()
           for k, v in prefixed(prefix, _role_model(catalog, r.names[name], model)).items()},
        **prefixed("price", row_inputs(inputs.price_row(plist, c.model, c.variant))),
        "price.teacher_prefill": row_inputs(teacher_row)["prefill"],
        **prefixed("hw", hardware_inputs(catalog, c.hardware)),
    }


@dataclass(frozen=True)
class Estimate:
    """An evaluated estimate: the inputs, every quantity's value, what the page shows."""

    resolved: Resolved
    env: dict[str, Any]
    values: dict[str, float | None]
    numbers: dict[str, float | None]

    @property
    def choice(self) -> inputs.Choice:
        return self.resolved.choice

    def __getitem__(self, key: str) -> Any:
        return self.values[key] if key in self.values else self.env[key]


def estimate(catalog: Catalog, query: Mapping[str, str]) -> Estimate:
    """The estimate a calculator link shows: evaluated once per catalog object and query (a
    build asks for each algorithm's comparison run from its row in the index, its own page and
    the compare view), so the result is shared: treat it as read-only."""
    graph_for(catalog)  # built first: building it estimates the published runs (their range)
    key = _query_key(query)
    if key is None:
        return _evaluate(catalog, query)
    held = _ESTIMATES.get(id(catalog))
    if held is None or held[0] is not catalog:
        held = _ESTIMATES[id(catalog)] = (catalog, {})
        while len(_ESTIMATES) > _ESTIMATE_CATALOGS:
            _ESTIMATES.popitem(last=False)
    _ESTIMATES.move_to_end(id(catalog))
    found = held[1].get(key)
    if found is None:
        found = held[1][key] = _evaluate(catalog, query)
    return found


def _query_key(query: Mapping[str, Any]) -> Hashable | None:
    """The query as a dict key (list values as tuples), or None if a value is neither."""
    items = []
    for name, value in query.items():
        if isinstance(value, list | tuple):
            value = tuple(value)
        elif not isinstance(value, str | int | float):
            return None
        items.append((name, value))
    return tuple(sorted(items, key=lambda item: item[0]))


def _evaluate(catalog: Catalog, query: Mapping[str, str]) -> Estimate:
    graph = graph_for(catalog)
    r = resolve(catalog, inputs.choose(catalog, query))
    env = environment(catalog, r)
    values = evaluate(graph, env)
    return Estimate(r, env, values, numbers(graph, values))


def backtest_rows(catalog: Catalog) -> list[backtest.Row]:
    """Every published run back-tested with this module's estimate (``backtest.rows``)."""
    return backtest.rows(catalog, estimate)
