"""ScaleRL models (pipeline step 2): the sigmoid fit a chart draws, the other fits a paper reports
for an algorithm (recipe variants and design-choice ablations, partial ones included), and the
values an earlier source gave that they supersede.

``Algorithm.scalerl`` is the fit the charts and the calculator use; the rules accept only sourced
figures there (``rules.rule_scalerl_sourced``). ``Algorithm.scalerl_record`` keeps everything
else: what the paper gives for the algorithm, where, in which setting, and the superseded values.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, StringConstraints

from tinkernomics.catalog import numbers as n
from tinkernomics.catalog.fields import LEADING_WORD_PATTERN, Prose, ShortText
from tinkernomics.catalog.models.base import StrictModel
from tinkernomics.catalog.models.provenance import Figure

CURVE_LABEL_MAX = 40
"""A legend entry is the algorithm's name and this label; longer would crowd a phone's legend."""

CurveLabel = Annotated[
    ShortText, StringConstraints(max_length=CURVE_LABEL_MAX, pattern=LEADING_WORD_PATTERN)]
"""The short, plain label of a charted fit (``ScaleRLFit.curve_label``). It starts with a letter
or digit, so a spreadsheet opening a chart's CSV never reads it as a formula (``=``, ``+``, ``-``,
``@``); every output escapes it as text."""

SETTING_DESCRIPTION = (
    "The exact setting of the fit: model, training and evaluation data, batch, generation "
    "length, compute unit (e.g. GB200 GPU-hours), fitting window."
)


class ScaleRLFit(StrictModel):
    """Parameters of the ScaleRL sigmoid R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B)."""

    model: ShortText = Field(description="Model the fit was made on, as the source names it.",
                             examples=["8B dense model (not named in the paper)"])
    dataset: ShortText = Field(description="Training/evaluation data of the fit.",
                               examples=["Polaris-53K (1,000 held-out prompts)"])
    setting: Prose | None = Field(default=None, description=SETTING_DESCRIPTION)
    curve_label: CurveLabel | None = Field(
        default=None,
        description=("What the charted curve is, in a few words, shown after the algorithm's "
                     "name in chart legends, captions, alt text and data files (\"CISPO — "
                     "ScaleRL recipe\"), so that curves of unlike things (a full recipe, a "
                     "loss inside a baseline) are not read as like. Plain text, at most "
                     f"{CURVE_LABEL_MAX} characters; when absent, the curve is labelled by the "
                     "algorithm's name alone. It starts with a letter or digit."),
        examples=["ScaleRL recipe", "loss in the paper's baseline"])
    # Ranges (catalog/numbers.py): A and R0 0-100 %, B 0.01-20, C_mid 0.001 to 1e9 GB200-hours,
    # which keep every curve point and H100-equivalent hour finite.
    A: Annotated[Figure, n.SCALERL_A] = Field(
        description="Asymptotic pass rate (ceiling), unit `percent`.")
    B: Annotated[Figure, n.SCALERL_B] = Field(
        description="Scaling exponent (> 0), unit `dimensionless`.")
    C_mid: Annotated[Figure, n.SCALERL_C_MID] = Field(
        description="Compute at half the gain, unit `gb200_hours`.")
    R0: Annotated[Figure, n.SCALERL_R0] | None = Field(
        default=None,
        description="Starting pass rate, unit `percent`. When absent, curves assume 0.",
    )


class ScaleRLVariant(StrictModel):
    """One more fit a source reports for the algorithm: a recipe variant or an ablation.

    Sources often give only some of A, B and C_mid (the rest printed inside a plot); each
    parameter is optional and a missing one is shown as not given.
    """

    name: ShortText = Field(description="The variant as the source names it.",
                            examples=["ScaleRL-32k"])
    setting: Prose = Field(description=SETTING_DESCRIPTION)
    A: Annotated[Figure, n.SCALERL_A] | None = Field(
        default=None, description="Asymptotic pass rate, unit `percent`, if given.")
    B: Annotated[Figure, n.SCALERL_B] | None = Field(
        default=None, description="Scaling exponent, unit `dimensionless`, if given.")
    C_mid: Annotated[Figure, n.SCALERL_C_MID] | None = Field(
        default=None, description="Compute at half the gain, unit `gb200_hours`, if given.")
    note: Prose | None = Field(default=None, description="What the variant changes, and caveats.")


class SupersededFit(StrictModel):
    """Values an earlier source gave for the fit, kept as history and drawn nowhere."""

    model: ShortText = Field(description="Model label the earlier source gave.")
    dataset: ShortText = Field(description="Dataset label the earlier source gave.")
    A: Annotated[Figure, n.SCALERL_A] = Field(description="Its asymptote, unit `percent`.")
    B: Annotated[Figure, n.SCALERL_B] = Field(description="Its exponent.")
    C_mid: Annotated[Figure, n.SCALERL_C_MID] = Field(description="Its midpoint, GB200-hours.")
    why: Prose = Field(description="Why these values were superseded.")


class ScaleRLRecord(StrictModel):
    """What sources report about an algorithm's ScaleRL scaling, beyond the charted fit."""

    summary: Prose = Field(
        description=("What the source gives for this algorithm and what the chart draws; when "
                     "there is no charted fit, say why (e.g. values only inside a plot)."))
    variants: list[ScaleRLVariant] = Field(
        default_factory=list, description="Other fits the source reports, with locators.")
    superseded: SupersededFit | None = Field(
        default=None, description="Earlier values replaced by sourced ones (history only).")
