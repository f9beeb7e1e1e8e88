"""Command-line input checks for ``tinkernomics estimate`` (pipeline step 6).

A link is forgiving: the page clamps a number into its range and falls back to the default for
an unknown id (``inputs.choose``). The command line is not: a typo must not price another run.
``check_query`` refuses, with one line naming the option, an unknown key, a number that is not
a plain number of its kind or lies outside its range (``--gpus 0``, ``--G -5``), an id the
catalog does not hold (``--gpu`` lists the choices), a cap below the mean completion length and
a learner split (``--pipeline-parallel`` × ``--train-tp`` × ``--context-parallel``) wider than
the GPUs that train.
After the estimate, ``check_sampler_fits`` refuses a run whose sampler engine cannot hold the
policy's weights in the GPUs given (``sampler_fit``), with the fewest an engine needs.
"""

from __future__ import annotations

from collections.abc import Mapping

from tinkernomics.catalog.entries import Catalog
from tinkernomics.catalog.runrules import learner_overspan
from tinkernomics.derived.calculator import inputs

CHOICES = {"algorithm": "algorithms", "model": "models", "teacher": "models",
           "critic": "models", "reward_model": "models",
           "hardware": "hardware", "price_list": "price_lists"}
"""Inputs (by declared name, ``inputs.key``) whose value is a catalog id, and the catalog
collection that holds them."""
FLAGS = {"lora": inputs.TUNING, "lora_flops": inputs.LORA_FLOPS, "cache": ("0", "1"),
         "score_reference": ("0", "1"), "score_reward_model": ("0", "1")}


class BadInput(ValueError):
    """One bad command-line value; its message is the line the command prints."""


def _name(key: str, options: Mapping[str, str]) -> str:
    """How the command line set ``key``: its option, ``--arch NAME`` or ``--set KEY``."""
    if key.startswith(inputs.ARCH_PREFIX):
        return f"--arch {key.removeprefix(inputs.ARCH_PREFIX)}"
    return options.get(key, f"--set {key}")


def _number(spec: inputs.Input, raw: str, name: str) -> float:
    if not inputs.valid(raw, spec.kind):
        kind = "a whole number" if spec.kind == "int" else "a number"
        raise BadInput(f"{name} {raw!r}: not {kind} (plain digits, no sign)")
    value = float(raw)
    if not spec.lo <= value <= spec.hi:
        raise BadInput(f"{name} {raw}: must be between {spec.lo:g} and {spec.hi:g}")
    return value


def _choice(catalog: Catalog, spec: inputs.Input, raw: str, name: str) -> None:
    if spec.sets in CHOICES:
        held = sorted(getattr(catalog, CHOICES[spec.sets]))
        if raw not in held:
            raise BadInput(f"{name} {raw!r}: unknown id; one of {', '.join(held)}")
    elif spec.sets in FLAGS and raw not in FLAGS[spec.sets]:
        raise BadInput(f"{name} {raw!r}: one of {', '.join(FLAGS[spec.sets])}")


def check_query(catalog: Catalog, query: Mapping[str, str],
                options: Mapping[str, str]) -> dict[str, str]:
    """The query itself if every value is good, else ``BadInput`` for the first bad one."""
    specs = {i.key: i for i in inputs.link_inputs(catalog)}
    numbers: dict[str, float] = {}  # by input name
    for key, raw in query.items():
        name = _name(key, options)
        if key not in specs:
            raise BadInput(f"{name}: unknown setting; the link keys are "
                           + ", ".join(sorted(specs)))
        if specs[key].kind in inputs.NUMBER_KINDS:
            numbers[specs[key].name] = _number(specs[key], raw, name)
        else:
            _choice(catalog, specs[key], raw, name)
    _check_together(numbers, options)
    return dict(query)


def _check_together(numbers: Mapping[str, float], options: Mapping[str, str]) -> None:
    """Numbers that are each in range but not together."""
    cap, mean = numbers.get("run.max_out"), numbers.get("run.out", 2048.0)
    if cap is not None and cap < mean:
        raise BadInput(f"{_name(inputs.key('run.max_out'), options)} {cap:g}: below the mean "
                       f"completion length ({mean:g}); the cap is the longest a completion "
                       "may be")
    _check_tp(numbers, options)
    _check_split(numbers, options)
    sampling, gpus = numbers.get("set.rollout_gpus"), numbers.get("set.gpus")
    if sampling is not None and gpus is not None and sampling >= gpus:
        raise BadInput(f"{_name(inputs.key('set.rollout_gpus'), options)} {sampling:g}: must "
                       f"leave GPUs to train on ({_name(inputs.key('set.gpus'), options)} "
                       f"{gpus:g})")


def _check_tp(numbers: Mapping[str, float], options: Mapping[str, str]) -> None:
    """A sampler engine spans at most the GPUs that sample."""
    tp = numbers.get("set.rollout_tp")
    sampling = numbers.get("set.rollout_gpus", numbers.get("set.gpus"))
    if tp is not None and sampling is not None and tp > sampling:
        raise BadInput(f"{_name(inputs.key('set.rollout_tp'), options)} {tp:g}: more GPUs than "
                       f"sample ({sampling:g}); one engine spans at most the sampling GPUs")


SPLIT_OPTIONS = ("set.pipeline_parallel", "set.train_tp", "set.context_parallel")
"""The inputs that split the learner's copy of the model; their product is its GPUs."""


def _check_split(numbers: Mapping[str, float], options: Mapping[str, str]) -> None:
    """One training copy of the model (pipeline × tensor × context parallel) spans at most the
    GPUs that train (``--gpus`` less ``--rollout-gpus``), where the reader gives them."""
    given = [(name, numbers[name]) for name in SPLIT_OPTIONS if name in numbers]
    gpus = numbers.get("set.gpus")
    if not given or gpus is None:
        return
    over = learner_overspan([value for _, value in given], gpus,
                            numbers.get("set.rollout_gpus", 0.0))
    if over is not None:
        span, training = over
        named = " × ".join(f"{_name(inputs.key(n), options)} {v:g}" for n, v in given)
        raise BadInput(f"{named}: one training copy of the model spans {span:g} GPUs, more "
                       f"than the {training:g} that train")


SAMPLER_OPTIONS = ("set.rollout_tp", "set.rollout_gpus", "set.gpus")
"""The inputs that size a sampler engine, the most specific first: the one a refusal names."""


def check_sampler_fits(values: Mapping[str, float | None], names: Mapping[str, str],
                       query: Mapping[str, str], options: Mapping[str, str]) -> None:
    """``BadInput`` if the estimate found an online run's sampler engine with no memory left
    after the policy's weights (``time.short``: one 80 GB GPU for a 140 GB model)."""
    if not values.get("time.short"):
        return
    given = [inputs.key(k) for k in SAMPLER_OPTIONS if inputs.key(k) in query]
    which = f"{_name(given[0], options)} {query[given[0]]}" if given else "the GPUs"
    gb = {k: (values.get(f"time.{k}") or 0.0) / 1e9 for k in ("engine_room", "weights_gb")}
    raise BadInput(f"{which}: a sampler engine of {values.get('time.tp') or 0:g} × "
                   f"{names.get('hw_name', '')} may use {gb['engine_room']:,.0f} GB, and "
                   f"{names.get('model_name', '')}'s bf16 weights alone are "
                   f"{gb['weights_gb']:,.0f} GB: one engine needs at least "
                   f"{values.get('time.min_engine_gpus') or 0:g} GPUs")
