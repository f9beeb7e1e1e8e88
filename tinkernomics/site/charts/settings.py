"""The setting a ScaleRL fit was made in (pipeline step 6, a leaf of ``charts.spec``).

Fits made in different settings are not like things: a whole recipe and a loss run inside the
paper's baseline, or fits on other models or data, reach other ceilings for reasons that are not
the algorithm. ``setting_key`` says which fits may be compared: the same kind of curve (the fit's
``curve_label``), the same model and the same data. ``spec.build_chart`` orders a comparison's
curves by setting and names each (``setting_names``); the legends head each group with its name
and the summaries (``share``, ``cardsvg``) compare curves within a setting, never across.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from tinkernomics.catalog import models as m

Key = tuple[str, str, str]
T = TypeVar("T")


class Curve(Protocol):
    """What a summary reads of a charted curve (``spec.Series``)."""

    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def setting(self) -> str: ...
    @property
    def fit(self) -> m.ScaleRLFit: ...


def setting_key(fit: m.ScaleRLFit) -> Key:
    """What makes two fits comparable: the kind of curve, the model, the data."""
    return (fit.curve_label or "", fit.model, fit.dataset)


def setting_names(fits: Sequence[m.ScaleRLFit]) -> list[str]:
    """Each fit's setting as readers see it: its curve label ("Loss in the paper's baseline"),
    with the model and data only where the settings differ in them or a fit has no label."""
    keys = [setting_key(f) for f in fits]
    with_model = len({k[1:] for k in keys}) > 1 or not all(k[0] for k in keys)
    return [_name(k, with_model) for k in keys]


def _name(key: Key, with_model: bool) -> str:
    label, model, dataset = key
    where = f"{model}, {dataset}"
    if not label:
        return f"Fitted on {where}"
    head = label[:1].upper() + label[1:]
    return f"{head} ({where})" if with_model else head


def grouped(items: Sequence[tuple[str, T]]) -> dict[str, list[T]]:
    """(setting, item) pairs -> each setting's items, settings in order of first appearance."""
    out: dict[str, list[T]] = {}
    for setting, name in items:
        out.setdefault(setting, []).append(name)
    return out


def apart_note(settings: int) -> str:
    """The sentence that says curves of different settings are not compared."""
    if settings < 2:
        return "All were fitted in one setting."
    return (f"The curves come from {settings} settings, grouped in the legend: compare curves "
            "within a setting, not across settings.")


def description(series: Sequence[Curve], others: int = 0) -> str:
    """A chart's description: its curves (by setting on a comparison), where they were fitted,
    what the marks are."""
    names = ", ".join(s.title for s in series)
    if len(series) > 1:  # by setting: "Loss in the paper's baseline: DAPO, GSPO; ..."
        groups = grouped([(s.setting, s.name) for s in series])
        names = "; ".join(f"{k}: {', '.join(v)}" for k, v in groups.items())
    if others:
        names += f" (and {others} more fitted algorithm{'s' if others > 1 else ''} on request)"
    marks = ("Diamonds mark C_mid, the compute at half the gain; dashed lines the asymptote A."
             if len(series) > 1 else
             "The diamond marks C_mid, the compute at half the gain; the dashed line the "
             "asymptote A.")
    fitted_on = "; ".join(dict.fromkeys(f"{s.fit.model}, {s.fit.dataset}" for s in series))
    apart = f" {apart_note(len({s.setting for s in series}))}" if len(series) > 1 else ""
    return (f"Fitted pass rate against training compute (GB200-hours, log scale) for {names}."
            f"{apart} Fitted on: {fitted_on}. {marks}")
