"""The tinker-cookbook pin on the Ways to run page (pipeline step 6, data for ``ways.feature``).

The cookbook entry (``catalog/cookbook/tinker_cookbook.yaml``) is what every recipe on the page
is checked against: the repository and pinned commit, the Tinker names of the catalog's models,
and per algorithm the module, config class, loss, each sourced setting (figure with badge,
citation and locator; an unverified one carries the id the Data quality page links to) and where
the cookbook's loop differs from the paper's algorithm (sourced claims).
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

from tinkernomics.catalog.models.cookbook import CookbookPin, LossSetting, Recipe, Setting
from tinkernomics.site.pages.views import Cite, Links, Origin, Shown, SiteIndex, prose_inline
from tinkernomics.site.pages.views.kinds import entry_anchor


@dataclass(frozen=True)
class SettingView:
    name: str
    value: Shown
    locator: Markup | None


@dataclass(frozen=True)
class RecipePinView:
    algorithm: str
    module: str
    path: str
    config_class: str
    loss: str
    settings: list[SettingView]
    departures: list[Shown]
    """Where the cookbook's loop differs from the paper's algorithm (sourced claims)."""
    notes: Markup | None


@dataclass(frozen=True)
class PinView:
    anchor: str
    repository: str
    commit: str
    commit_href: str
    date: str
    cite: Cite
    model_names: list[tuple[str, str]]
    model_names_locator: Markup
    recipes: list[RecipePinView]


def _setting(index: SiteIndex, s: Setting | LossSetting, prefix: str, origin: Origin,
             links: Links) -> SettingView:
    loc = s.value.locator
    # the settings table prints the locator in a column of its own
    return SettingView(f"{prefix}{s.name}", index.figure(s.value, links, origin).without_locator(),
                       prose_inline(loc) if loc and loc.strip() else None)


def _recipe(index: SiteIndex, pin: CookbookPin, i: int, r: Recipe,
            links: Links) -> RecipePinView:
    def at(*loc: str | int) -> Origin:
        return Origin("cookbook", pin.id, ("recipes", i, *loc))

    settings = [_setting(index, s, "", at("settings", j, "value"), links)
                for j, s in enumerate(r.settings)]
    settings += [_setting(index, s, "loss_fn_config.", at("loss_config", j, "value"), links)
                 for j, s in enumerate(r.loss_config)]
    algos = index.algorithms
    departures = [index.claim(c, links, at("departures", j)) for j, c in enumerate(r.departures)]
    return RecipePinView(algos[r.algorithm].name if r.algorithm in algos else r.algorithm,
                         r.module, r.path, r.config_class, r.loss, settings, departures,
                         prose_inline(r.notes) if r.notes else None)


def pin_views(index: SiteIndex, links: Links) -> list[PinView]:
    """Every cookbook pin (the catalog holds one) as the page shows it."""
    pins: dict[str, CookbookPin] = index.catalog.of("cookbook")
    models = index.catalog.models
    return [PinView(
        anchor=entry_anchor("cookbook", p.id) or p.id, repository=p.repository, commit=p.commit,
        commit_href=f"https://github.com/{p.repository}/tree/{p.commit}",
        date=p.date.isoformat(), cite=index.cite(p.source, links),
        model_names=[(models[n.model].name if n.model in models else n.model, n.name)
                     for n in p.model_names],
        model_names_locator=prose_inline(p.model_names_locator),
        recipes=[_recipe(index, p, i, r, links) for i, r in enumerate(p.recipes)])
        for _, p in sorted(pins.items())]
