"""Every text that reaches HTML is escaped by the template layer (issue 16): each Jinja
environment that renders HTML (or Markdown that becomes HTML) autoescapes; trusted HTML is
marked with Markup where it is made. Checked on the source, and on the API page's templates."""

from __future__ import annotations

import ast
from pathlib import Path

from tinkernomics.site.api.feature import _template_env, markdown_text

PACKAGE = Path(__file__).resolve().parents[1] / "tinkernomics"
PLAIN_TEXT = {("site/api/files.py", "readme_text")}
"""Environments that render no HTML (the archive's README.md is plain text in a zip)."""


class _Finder(ast.NodeVisitor):
    """Collects ``Environment(...)`` calls with the name of the function that holds them."""

    def __init__(self) -> None:
        self.scope, self.calls = ["<module>"], []

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    def visit_Call(self, node: ast.Call) -> None:
        if getattr(node.func, "id", "") == "Environment":
            self.calls.append((self.scope[-1], node))
        self.generic_visit(node)


def environments() -> list[tuple[str, str, ast.Call]]:
    """Every ``Environment(...)`` call in the package: (file, enclosing function, call)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        finder = _Finder()
        finder.visit(ast.parse(path.read_text(encoding="utf-8")))
        found += [(str(path.relative_to(PACKAGE)), func, call) for func, call in finder.calls]
    return found


def test_every_html_environment_autoescapes() -> None:
    found = environments()
    assert len(found) >= 4, "no Jinja environment found: the scan is broken"
    unsafe = []
    for rel, func, call in found:
        value = next((k.value for k in call.keywords if k.arg == "autoescape"), None)
        if (rel, func) not in PLAIN_TEXT and (
                value is None or (isinstance(value, ast.Constant) and not value.value)):
            unsafe.append(f"{rel}:{call.lineno} ({func})")
    assert not unsafe, f"Jinja environments without autoescape: {unsafe}"


def test_api_page_templates_escape_values_but_not_python_code() -> None:
    env = _template_env()
    endpoints = env.get_template("endpoints.md.j2").render(
        root="api/v2/", endpoints=[{"href": "x\" onclick=\"y", "path": "references/<id>.json",
                                    "description": "a <b>bold</b> & claim", "count": None}])
    assert "references/&lt;id&gt;.json" in endpoints
    assert "a &lt;b&gt;bold&lt;/b&gt; &amp; claim" in endpoints
    assert 'href="x&#34; onclick=&#34;y"' in endpoints
    code = env.get_template("example.py.j2").render(base="https://e.org/a?b=1&c='d'",
                                                    algorithm="grpo")
    assert "BASE = \"https://e.org/a?b=1&c='d'\"" in code


def test_markdown_text_escapes_outside_code_spans_only() -> None:
    out = markdown_text("a <id> & `<file>#<ptr>` then ``x`<y>`` end <b>")
    assert out == "a &lt;id&gt; &amp; `<file>#<ptr>` then ``x`<y>`` end &lt;b&gt;"
