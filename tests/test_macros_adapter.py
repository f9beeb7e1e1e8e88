"""The mkdocs-macros adapter (``macros/__init__.py``) under MkDocs, without building: the build's
context reaches ``on_post_build`` without being a page variable (mkdocs-macros serialises every
variable to JSON before the build, issue 47), and a failed load leaves no context behind.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from conftest_site import REPO_ROOT

from tinkernomics.catalog.problems import CatalogError, Problem
from tinkernomics.site.build import SiteContext


def _adapter() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tn_macros_adapter_ctx",
                                                  REPO_ROOT / "macros" / "__init__.py")
    assert spec is not None and spec.loader is not None
    adapter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(adapter)
    return adapter


class _Env(SimpleNamespace):
    """What the adapter reads of mkdocs-macros' plugin object."""

    def macro(self, fn: Any, name: str) -> None:
        self.macros[name] = fn


def _env(tmp_path: Path) -> _Env:
    return _Env(project_dir=str(tmp_path), conf={"site_url": "", "site_dir": str(tmp_path)},
                variables={}, macros={})


def test_the_context_reaches_post_build_but_is_no_page_variable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    adapter = _adapter()
    ctx = SiteContext(root=tmp_path, catalog=None)  # type: ignore[arg-type]
    written: list[SiteContext] = []
    monkeypatch.setattr(adapter, "shared_site", lambda *a, **k: (ctx, {"m": lambda: "x"}))
    monkeypatch.setattr(adapter, "start_all_outputs", lambda c: None)
    monkeypatch.setattr(adapter, "write_all_outputs", lambda c, d: written.append(c))
    env = _env(tmp_path)
    adapter.define_env(env)
    assert not any(isinstance(v, SiteContext) for v in env.variables.values())
    assert "m" in env.macros
    adapter.on_post_build(env)
    assert written == [ctx]


def test_a_failed_load_while_serving_leaves_no_context_of_a_previous_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    adapter = _adapter()
    ctx = SiteContext(root=tmp_path, catalog=None)  # type: ignore[arg-type]
    results: list[Any] = [(ctx, {}), CatalogError([Problem("a.yaml", 1, 1, "id", "bad")])]

    def shared_site(*args: Any, **kwargs: Any) -> Any:
        result = results.pop(0)
        if isinstance(result, Exception):
            raise result
        return result

    written: list[SiteContext] = []
    monkeypatch.setattr(adapter, "shared_site", shared_site)
    monkeypatch.setattr(adapter, "start_all_outputs", lambda c: None)
    monkeypatch.setattr(adapter, "write_all_outputs", lambda c, d: written.append(c))
    monkeypatch.setattr(adapter, "_serving", lambda: True)
    env = _env(tmp_path)
    adapter.define_env(env)
    adapter.define_env(env)  # the next rebuild, with a broken catalog
    adapter.on_post_build(env)
    assert written == []


def test_a_failed_load_leaves_no_pages_ahead_of_a_previous_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A second one-shot build in the same process whose catalog fails to load starts no child
    over the first build's pages (``tinkernomics.site.pagesahead``)."""
    from mkdocs.exceptions import PluginError

    from tinkernomics.site import pagesahead
    from tinkernomics.site.outputjob import JOB

    adapter = _adapter()
    ctx = SiteContext(root=tmp_path, catalog=None)  # type: ignore[arg-type]
    results: list[Any] = [(ctx, {"algorithm_page": lambda i: i}),
                          CatalogError([Problem("a.yaml", 1, 1, "id", "bad")])]

    def shared_site(*args: Any, **kwargs: Any) -> Any:
        result = results.pop(0)
        if isinstance(result, Exception):
            raise result
        return result

    monkeypatch.setattr(JOB, "enabled", True)
    monkeypatch.setattr(pagesahead, "cores", lambda: 2)
    monkeypatch.setattr(adapter, "shared_site", shared_site)
    monkeypatch.setattr(adapter, "_serving", lambda: False)
    adapter.define_env(_env(tmp_path))
    assert pagesahead.AHEAD.render is not None
    with pytest.raises(PluginError):
        adapter.define_env(_env(tmp_path))
    assert pagesahead.AHEAD.render is None
